//! The effects that put a rotor behind a joint (`sim::rotor`), rigidly geared or behind a
//! compliant gear (`sim::elastic`). The table of what each writes is in [`super`].

pub(super) mod armature;
pub(super) mod backlash;
pub(super) mod elasticity;

use sim::elastic::Spring;
use sim::rotor::Rotor;
use sim::scenario::JointSection;

/// The gear ratio of the rotors these effects add (motor turns per joint turn).
const GEAR_RATIO: f64 = 100.0;

/// The reflected inertia of the rotor behind the `elasticity` and `backlash` gears (kg·m²).
const ELASTIC_ROTOR: f64 = 0.1;
/// The damping ratio of those gears' springs against the rotor: `d = 2 ζ √(k J_E)`.
const GEAR_DAMPING_RATIO: f64 = 0.1;

/// A rotor of reflected inertia `armature` (kg·m²) behind [`GEAR_RATIO`].
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
