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
//! | `cogging` | `A` (N·m) | `cogging = { amplitude = A, period = 2π/36 }` (`sim::cogging`): a direct drive's 36 detents a revolution; 0 writes none |
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
//! The encoders' converter, after the laws of the angle reading `q` (a new entry for the joints
//! none covers):
//!
//! | effect | level | written |
//! |---|---|---|
//! | `encoder_resolution` | `r` (rad, or m) | `{ type = "quantize", resolution = r }`: every reading a whole multiple of `r`; 0 writes none |
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
//!
//! Each effect is one module implementing [`SweptEffect`] (its name, its level's unit, what it
//! writes, what it tells), listed once in [`registry`]; a study file names it by
//! [`SweptEffect::name`], and [`EffectKind`] is the typed handle the sweeps and reports pass
//! around.

mod current;
mod drive;
mod encoder_resolution;
pub mod force_torque;
mod friction;
mod kind;
mod mismatch;
mod payload;
pub mod registry;
mod rotor;
mod target;

pub use kind::EffectKind;
pub use target::{JointProblem, Place, Target};

use sim::scenario::Scenario;

use sim::reading::Measurements;

/// One effect of the generator a study can sweep: what it writes into a scenario at a severity
/// (the arm, its drives, its sensors), or what it tells the estimators of a measured run (a
/// model mismatch). Implemented once per effect, by a unit type in its own module, and listed
/// in [`registry::EFFECTS`].
pub trait SweptEffect: Sync {
    /// Its name in study files (`[[effect]] kind = "…"`), results and reports.
    fn name(&self) -> &'static str;

    /// Its level's quantity and unit, as a report states it.
    fn unit(&self) -> &'static str;

    /// Writes the effect at `level` into the scenario being edited; `Err` names what the
    /// scenario lacks or the level the effect cannot take ([`crate::Error::Invalid`]). The
    /// default writes nothing (an effect only in what the estimators are told).
    fn write(&self, _target: &mut Target<'_>, _level: f64) -> crate::Result<()> {
        Ok(())
    }

    /// Whether it changes what the estimators are told rather than the arm or its sensors.
    fn is_mismatch(&self) -> bool {
        false
    }

    /// Changes what the estimators are told of a measured run at `level`. The default tells
    /// them the run as measured.
    fn tell(&self, _m: &mut Measurements, _level: f64) {}
}

/// `scenario` with `kind` at `level` written into it, checked again as a whole; `Err` names the
/// joint and what it lacks, or the field the simulator refuses.
pub fn scenario_at(scenario: &Scenario, kind: EffectKind, level: f64) -> crate::Result<Scenario> {
    let mut failure = None;
    let edited = scenario.edited(|file| {
        let mut target = Target {
            file,
            chain: &scenario.chain,
        };
        failure = kind.effect().write(&mut target, level).err();
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(edited?)
}

/// A delay effect's `level` as a whole number of samples; `Err` names the effect.
fn whole_samples(name: &str, level: f64) -> crate::Result<usize> {
    if level >= 0.0 && level.fract() == 0.0 && level <= u32::MAX as f64 {
        Ok(level as usize)
    } else {
        Err(crate::Error::Invalid {
            what: format!("`{name}` level"),
            expected: format!("a whole number of samples ≥ 0, got {level}"),
        })
    }
}

/// The anti-aliasing effects' filter (`anti_aliasing`, `ft_anti_aliasing`) of cut-off `cutoff`
/// (Hz): a second-order Butterworth, as on servo amplifiers' current channels and F/T sensors'
/// amplifiers.
fn anti_aliasing_filter(cutoff: f64) -> sim::noise::Noise {
    sim::noise::Noise::AntiAliasing { order: 2, cutoff }
}

/// One effect swept by a study.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    /// The effect.
    pub kind: EffectKind,
    /// Its severities, in the units of its [`SweptEffect::unit`] (the level that turns it off,
    /// where one is listed, is the baseline).
    pub levels: Vec<f64>,
    /// The estimators run under it.
    pub estimators: Vec<String>,
}
