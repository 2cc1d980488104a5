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

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use sim::friction::{Drift, Friction, LoadFriction, Lugre};
use sim::motor::Motor;
use sim::scenario::{JointSection, Scenario};

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
}

/// Bristle deflection (rad) at which LuGre's bristles carry the Coulomb level.
const BRISTLE_DEFLECTION: f64 = 1e-4;
/// LuGre's Stribeck velocity (rad/s).
const STRIBECK_VELOCITY: f64 = 0.05;
/// The smoothing of `load_friction` on a joint without friction (rad/s).
const SMOOTHING: f64 = 0.01;

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
        }
    }

    /// Changes what the estimators are told of a measured run at `level` (the mismatch
    /// effects; the others are in the arm and leave it as measured).
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

    /// Writes the effect at `level` into one joint's section of a run of length `end` (s);
    /// `Err` says what the joint lacks.
    fn write(self, joint: &mut JointSection, level: f64, end: f64) -> Result<(), String> {
        fn motor(joint: &mut JointSection) -> &mut Motor {
            joint.motor.get_or_insert(Motor {
                torque_constant_error: 0.0,
                current_bandwidth: None,
                gear_efficiency: None,
            })
        }
        match self {
            EffectKind::GearEfficiency => motor(joint).gear_efficiency = Some(level),
            EffectKind::TorqueConstantError => motor(joint).torque_constant_error = level,
            EffectKind::CurrentBandwidth => motor(joint).current_bandwidth = Some(level),
            EffectKind::Lugre => {
                let Some(Friction::CoulombViscous {
                    coulomb, viscous, ..
                }) = joint.friction.clone().filter(
                    |f| matches!(f, Friction::CoulombViscous { coulomb, .. } if *coulomb > 0.0),
                )
                else {
                    return Err(
                        "expected a `coulomb_viscous` friction with coulomb > 0 to turn into LuGre"
                            .into(),
                    );
                };
                joint.friction = Some(Friction::Lugre(Lugre {
                    coulomb,
                    static_friction: level * coulomb,
                    stribeck_velocity: STRIBECK_VELOCITY,
                    bristle_stiffness: coulomb / BRISTLE_DEFLECTION,
                    bristle_damping: 0.0,
                    viscous,
                }));
            }
            EffectKind::LoadFriction => {
                let smoothing = match joint.friction {
                    Some(Friction::CoulombViscous { smoothing, .. })
                    | Some(Friction::Stribeck { smoothing, .. }) => smoothing,
                    _ => SMOOTHING,
                };
                joint.load_friction = Some(LoadFriction {
                    coefficient: level,
                    smoothing,
                });
            }
            EffectKind::FrictionDrift => {
                joint.friction_drift = Some(Drift {
                    change: level,
                    time_constant: end / 4.0,
                });
            }
            EffectKind::LinkLengthError | EffectKind::JointOffsetError => {}
        }
        Ok(())
    }
}

/// `scenario` with `kind` at `level` on every actuated joint (servo or torque signal), checked
/// again as a whole; `Err` names the joint and what it lacks, or the field the simulator
/// refuses.
pub fn scenario_at(scenario: &Scenario, kind: EffectKind, level: f64) -> Result<Scenario, String> {
    let mut failure = None;
    let edited = scenario.edited(|f| {
        let end = f.time.end;
        let actuated = f.joint.iter_mut().enumerate();
        for (k, joint) in actuated.filter(|(_, j)| j.servo.is_some() || j.torque.is_some()) {
            if let Err(e) = kind.write(joint, level, end) {
                failure.get_or_insert(format!("joint[{k}]: {e}"));
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    edited.map_err(|e| e.to_string())
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
