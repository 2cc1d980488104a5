//! The effects written into a joint's motor (`sim::motor`): the gear's losses, the torque
//! constant's error, the current loop's bandwidth; and its cogging (`sim::cogging`). The table of what each writes is in
//! [`super`].

pub(super) mod cogging;
pub(super) mod current_bandwidth;
pub(super) mod gear_efficiency;
pub(super) mod torque_constant_error;

use sim::motor::Motor;
use sim::scenario::JointSection;

/// The joint's motor, an ideal one (exact constant, instantaneous current, lossless gear)
/// added where it has none.
fn motor(joint: &mut JointSection) -> &mut Motor {
    joint.motor.get_or_insert(Motor {
        torque_constant_error: 0.0,
        current_bandwidth: None,
        gear_efficiency: None,
    })
}
