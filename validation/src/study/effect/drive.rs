//! The effects written into a joint's section: its drive (`sim::motor`), friction
//! (`sim::friction`) and rotor (`sim::rotor`). The table of what each writes is in [`super`].

use sim::elastic::Spring;
use sim::friction::{Drift, Friction, LoadFriction, Lugre};
use sim::motor::Motor;
use sim::rotor::Rotor;
use sim::scenario::JointSection;

use super::EffectKind;

/// Bristle deflection (rad) at which LuGre's bristles carry the Coulomb level.
const BRISTLE_DEFLECTION: f64 = 1e-4;
/// LuGre's Stribeck velocity (rad/s).
const STRIBECK_VELOCITY: f64 = 0.05;
/// The smoothing of `load_friction` on a joint without friction (rad/s).
const SMOOTHING: f64 = 0.01;

/// The gear ratio of the rotors the drive effects add (motor turns per joint turn).
const GEAR_RATIO: f64 = 100.0;

/// The reflected inertia of the rotor behind the `elasticity` and `backlash` gears (kg·m²).
const ELASTIC_ROTOR: f64 = 0.1;
/// The damping ratio of those gears' springs against the rotor: `d = 2 ζ √(k J_E)`.
const GEAR_DAMPING_RATIO: f64 = 0.1;
/// The stiffness of the gear whose play `backlash` sweeps (N·m/rad).
const BACKLASH_STIFFNESS: f64 = 1e4;

/// Writes `kind` at `level` into one joint's section of a run of length `end` (s); `Err`
/// says what the joint lacks. The sensor chain's and the mismatch effects write nothing here.
pub(super) fn write(
    kind: EffectKind,
    joint: &mut JointSection,
    level: f64,
    end: f64,
) -> Result<(), String> {
    fn motor(joint: &mut JointSection) -> &mut Motor {
        joint.motor.get_or_insert(Motor {
            torque_constant_error: 0.0,
            current_bandwidth: None,
            gear_efficiency: None,
        })
    }
    match kind {
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
        EffectKind::Armature => {
            joint.rotor = (level > 0.0).then(|| rotor(level));
        }
        EffectKind::Elasticity if level < 0.0 => {
            return Err(format!("expected a compliance ≥ 0 rad/N·m, got {level}"));
        }
        EffectKind::Elasticity if level == 0.0 => {
            joint.rotor = Some(rotor(ELASTIC_ROTOR));
            joint.spring = None;
        }
        EffectKind::Elasticity => elastic_gear(joint, 1.0 / level, 0.0),
        EffectKind::Backlash => elastic_gear(joint, BACKLASH_STIFFNESS, level),
        EffectKind::LinkLengthError
        | EffectKind::JointOffsetError
        | EffectKind::CurrentDelay
        | EffectKind::AntiAliasing
        | EffectKind::Payload
        | EffectKind::FtCrossTalk
        | EffectKind::FtDelay
        | EffectKind::FtAntiAliasing => {}
    }
    Ok(())
}

/// A rotor of reflected inertia `armature` (kg·m²) behind the effects' gear ratio.
fn rotor(armature: f64) -> Rotor {
    Rotor {
        inertia: armature / (GEAR_RATIO * GEAR_RATIO),
        gear_ratio: GEAR_RATIO,
    }
}

/// The rotor [`ELASTIC_ROTOR`] behind a spring of stiffness `k` (N·m/rad) damped at
/// [`GEAR_DAMPING_RATIO`], with a play of total width `backlash` (rad); the simulator checks
/// the values (a negative play is refused naming `spring.backlash`).
fn elastic_gear(joint: &mut JointSection, k: f64, backlash: f64) {
    joint.rotor = Some(rotor(ELASTIC_ROTOR));
    joint.spring = Some(Spring {
        stiffness: k,
        damping: 2.0 * GEAR_DAMPING_RATIO * (k * ELASTIC_ROTOR).sqrt(),
        backlash,
    });
}
