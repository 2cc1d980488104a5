//! The generator's effects as a study sweeps them (`[[effect]]` of a study file): at each
//! severity the study's scenario is rewritten with the effect on every actuated joint (servo
//! or torque signal), simulated once, and measured by the scenario's own sensors once per
//! Monte-Carlo seed; the estimators never learn of the effect. What each severity writes:
//!
//! | effect | level | written on every actuated joint |
//! |---|---|---|
//! | `gear_efficiency` | `η` | `motor.gear_efficiency = η` (`sim::motor`) |
//! | `torque_constant_error` | `ε` | `motor.torque_constant_error = ε` |
//! | `current_bandwidth` | `ω_c` (rad/s) | `motor.current_bandwidth = ω_c` |
//! | `lugre` | `F_s / F_c` | the joint's Coulomb–viscous friction `(F_c, F_v)` becomes LuGre with `F_s = level · F_c`, `v_s` = 0.05 rad/s, `σ0 = F_c / 1e-4 rad` (the bristles hold `F_c` at 0.1 mrad), `σ1 = 0`, `σ2 = F_v` (`sim::friction::Lugre`) |
//! | `load_friction` | `c` (m) | `load_friction = { coefficient = c, smoothing }`, the smoothing of the joint's friction (0.01 rad/s without one) |
//! | `friction_drift` | `Δ` | `friction_drift = { change = Δ, time_constant }`, a quarter of the run (`sim::friction::Drift`) |
//! | `armature` | `J` (kg·m²) | `rotor = { inertia = J / 100², gear_ratio = 100 }` (`sim::rotor`): a rotor of reflected inertia `J` the identifiers' Coulomb–viscous columns do not model; 0 writes none |
//! | `elasticity` | `c` (rad/N·m) | the rotor of reflected inertia `J_E` = 0.1 kg·m² (`armature`'s largest level) behind a spring `spring = { stiffness = 1/c, damping = 2 ζ √(J_E/c) }`, ζ = 0.1 (`sim::elastic`; the servos read the motor side, the identifiers the link side); 0 writes the same rotor rigid |
//! | `backlash` | `b` (rad) | the same rotor behind a stiff gear `k` = 1e4 N·m/rad (damping as `elasticity`'s) with a play of total width `b`; 0 writes the stiff gear without play |
//!
//! The sensor chain acts on the motor-current reading `i` the identifiers read (its
//! `[[noise]]` entries, before their laws: an analog stage ahead of the converter; a new entry
//! for the joints none covers):
//!
//! | effect | level | written |
//! |---|---|---|
//! | `current_delay` | `n` (samples) | `{ type = "delay", samples = n }`: the current read `n` samples late against the encoders; 0 writes none |
//! | `anti_aliasing` | `f_c` (Hz) | `{ type = "anti_aliasing", order = 2, cutoff = f_c }` on the current only (the encoders are digital): its phase lag is not in the angles; 0 writes none |
//!
//! The joints' force/torque sensors (`[[sensor]] type = "force_torque"`, what MIM reads), in
//! the sensor's frame; a sensor without errors is added on the bodies none covers:
//!
//! | effect | level | written on every F/T sensor |
//! |---|---|---|
//! | `ft_cross_talk` | `ε` | `cross_talk = C`, every off-diagonal entry `(−1)^(i+j) ε`, times `L` = 0.05 m in the moment-from-force block and `1/L` in the force-from-moment block ([`force_torque::cross_talk`]); 0 writes none |
//! | `ft_delay` | `n` (samples) | `chain += { type = "delay", samples = n }`: the wrench read `n` samples late against the body's motion; 0 writes none |
//! | `ft_anti_aliasing` | `f_c` (Hz) | `chain += { type = "anti_aliasing", order = 2, cutoff = f_c }` on the six channels; 0 writes none |
//!
//! An unmodelled payload is in the arm, and not in the truth the estimators are scored against
//! (the arm without it: the robot's own parameters, what a user identifying the robot wants):
//!
//! | effect | level | written |
//! |---|---|---|
//! | `payload` | `m` (kg) | `payload = { mass = m, centroid }` (`sim::payload`): a point mass 0.1 m out from the last joint's point along its axis (zero configuration), carried in both runs; 0 writes none |
//!
//! Model mismatch is in what the estimators are told, not in the arm (the scenario runs as
//! written; the truth they are scored against is the simulated arm's):
//!
//! | effect | level | what the estimators read |
//! |---|---|---|
//! | `link_length_error` | `ε` | kinematics whose every link (joint point to joint point, from the first joint on) is `1 + ε` times as long |
//! | `joint_offset_error` | `δ` (rad or m) | every joint's measured coordinate offset by `±δ`, alternating in sign along the chain (encoders zeroed wrong) |
//!
//! The edited scenario is checked like any other ([`sim::scenario::Scenario::edited`]), so a
//! severity the simulator refuses (an efficiency above 1) is an error naming the field.

mod drive;
pub mod force_torque;
mod sensor_chain;

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use sim::scenario::Scenario;

use crate::dataset::{JointColumn, Measurements};

/// An effect of the generator a study can sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// The gears' efficiency `η`.
    GearEfficiency,
    /// The torque constants' relative error `ε`.
    TorqueConstantError,
    /// The current loops' bandwidth `ω_c` (rad/s).
    CurrentBandwidth,
    /// LuGre friction in place of Coulomb–viscous, of static-to-Coulomb ratio `level`.
    Lugre,
    /// Coulomb friction proportional to the constraint load, coefficient `level` (m).
    LoadFriction,
    /// The friction's thermal drift, relative change `level`.
    FrictionDrift,
    /// The kinematics told: link lengths scaled by `1 + level`.
    LinkLengthError,
    /// The joint coordinates told: offset by `±level`, alternating along the chain.
    JointOffsetError,
    /// An unmodelled rotor of reflected inertia `level` (kg·m²).
    Armature,
    /// The current read `level` samples late (a whole number).
    CurrentDelay,
    /// An anti-aliasing filter of cut-off `level` (Hz) on the current (none at 0).
    AntiAliasing,
    /// An unmodelled payload of mass `level` (kg) on the last link.
    Payload,
    /// The F/T sensors' cross-talk, of relative size `level`.
    FtCrossTalk,
    /// The wrench read `level` samples late (a whole number).
    FtDelay,
    /// An anti-aliasing filter of cut-off `level` (Hz) on the F/T channels (none at 0).
    FtAntiAliasing,
    /// An elastic gear of compliance `level` (rad/N·m) behind a rotor (rigid at 0).
    Elasticity,
    /// A stiff gear's play of total width `level` (rad).
    Backlash,
}

impl EffectKind {
    /// Its name in files.
    pub fn name(self) -> &'static str {
        match self {
            EffectKind::GearEfficiency => "gear_efficiency",
            EffectKind::TorqueConstantError => "torque_constant_error",
            EffectKind::CurrentBandwidth => "current_bandwidth",
            EffectKind::Lugre => "lugre",
            EffectKind::LoadFriction => "load_friction",
            EffectKind::FrictionDrift => "friction_drift",
            EffectKind::LinkLengthError => "link_length_error",
            EffectKind::JointOffsetError => "joint_offset_error",
            EffectKind::Armature => "armature",
            EffectKind::CurrentDelay => "current_delay",
            EffectKind::AntiAliasing => "anti_aliasing",
            EffectKind::Payload => "payload",
            EffectKind::FtCrossTalk => "ft_cross_talk",
            EffectKind::FtDelay => "ft_delay",
            EffectKind::FtAntiAliasing => "ft_anti_aliasing",
            EffectKind::Elasticity => "elasticity",
            EffectKind::Backlash => "backlash",
        }
    }

    /// Its level's quantity and unit, as a report states it.
    pub fn unit(self) -> &'static str {
        match self {
            EffectKind::GearEfficiency => "η",
            EffectKind::TorqueConstantError => "ε",
            EffectKind::CurrentBandwidth => "rad/s",
            EffectKind::Lugre => "F_s/F_c",
            EffectKind::LoadFriction => "m",
            EffectKind::FrictionDrift => "relative change",
            EffectKind::LinkLengthError => "ε",
            EffectKind::JointOffsetError => "rad",
            EffectKind::Armature => "kg·m²",
            EffectKind::CurrentDelay => "samples",
            EffectKind::AntiAliasing => "Hz",
            EffectKind::Payload => "kg",
            EffectKind::FtCrossTalk => "ε",
            EffectKind::FtDelay => "samples",
            EffectKind::FtAntiAliasing => "Hz",
            EffectKind::Elasticity => "rad/(N·m)",
            EffectKind::Backlash => "rad",
        }
    }

    /// Whether it changes what the estimators are told rather than the arm or its sensors.
    pub fn is_mismatch(self) -> bool {
        matches!(
            self,
            EffectKind::LinkLengthError | EffectKind::JointOffsetError
        )
    }

    /// Changes what the estimators are told of a measured run at `level` (the mismatch
    /// effects; the others are in the arm or its sensors and leave it as measured).
    pub fn tell(self, m: &mut Measurements, level: f64) {
        match self {
            EffectKind::LinkLengthError => {
                let anchors: Vec<Vector3<f64>> = (m.geometry.links.iter())
                    .map(|l| Vector3::from(l.joint.anchor))
                    .collect();
                for k in 1..anchors.len() {
                    let before = Vector3::from(m.geometry.links[k - 1].joint.anchor);
                    let anchor = before + (1.0 + level) * (anchors[k] - anchors[k - 1]);
                    let link = &mut m.geometry.links[k];
                    link.joint.anchor = anchor.into();
                    link.body.centroid = anchor.into();
                }
            }
            EffectKind::JointOffsetError => {
                for (j, joint) in m.joints.iter_mut().enumerate() {
                    let offset = if j % 2 == 0 { level } else { -level };
                    let q: Vec<f64> = joint.q.iter().map(|q| q + offset).collect();
                    joint.measured.insert(JointColumn::Q, q.clone());
                    joint.q = q;
                }
            }
            _ => {}
        }
    }
}

/// `scenario` with `kind` at `level` on every actuated joint (servo or torque signal), its
/// current reading, its force/torque sensors or its last link, checked again as a whole; `Err`
/// names the joint and what it lacks, or the field the simulator refuses.
pub fn scenario_at(scenario: &Scenario, kind: EffectKind, level: f64) -> crate::Result<Scenario> {
    let mut failure = None;
    let payload = payload(scenario, kind, level);
    let bodies: Vec<u8> = (1..=scenario.chain.links.len() as u8).collect();
    let edited = scenario.edited(|f| {
        if payload.is_some() {
            f.payload = payload;
        }
        let ids: Vec<u8> = f.joint.iter().map(|j| j.id).collect();
        if let Err(e) = sensor_chain::write(kind, &mut f.noise, &ids, level) {
            failure.get_or_insert(e);
        }
        if let Err(e) = force_torque::write(kind, &mut f.sensor, &bodies, level) {
            failure.get_or_insert(e);
        }
        let end = f.time.end;
        let actuated = f.joint.iter_mut().enumerate();
        for (k, joint) in actuated.filter(|(_, j)| j.servo.is_some() || j.torque.is_some()) {
            if let Err(e) = drive::write(kind, joint, level, end) {
                failure.get_or_insert(format!("joint[{k}]: {e}"));
            }
        }
    });
    if let Some(e) = failure {
        return Err(crate::Error::Data(e));
    }
    Ok(edited?)
}

/// A delay effect's `level` as a whole number of samples; `Err` names the kind.
fn whole_samples(kind: EffectKind, level: f64) -> Result<usize, String> {
    if level >= 0.0 && level.fract() == 0.0 && level <= u32::MAX as f64 {
        Ok(level as usize)
    } else {
        Err(format!(
            "expected a whole number of samples ≥ 0 for `{}`, got {level}",
            kind.name()
        ))
    }
}

/// The distance of the `payload` effect's mass from the last joint's point, along its axis (m).
const PAYLOAD_REACH: f64 = 0.1;

/// The payload `kind` at `level` puts on `scenario`'s last link, if any.
fn payload(scenario: &Scenario, kind: EffectKind, level: f64) -> Option<sim::payload::Payload> {
    let joint = &scenario.chain.links.last()?.joint;
    (kind == EffectKind::Payload && level != 0.0).then(|| sim::payload::Payload {
        mass: level,
        centroid: (Vector3::from(joint.anchor) + PAYLOAD_REACH * Vector3::from(joint.axis)).into(),
        inertia: [0.0; 6],
    })
}

/// One effect swept by a study.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// The effect.
    pub kind: EffectKind,
    /// Its severities, in the units of [`EffectKind`] (the level that turns it off, where one
    /// is listed, is the baseline).
    pub levels: Vec<f64>,
    /// The estimators run under it.
    pub estimators: Vec<String>,
}
