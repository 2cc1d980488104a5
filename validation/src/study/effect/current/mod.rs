//! The effects written into the sensor chain of the motor-current reading `i` (its `[[noise]]`
//! entries, `sim::noise`), ahead of its laws: an analog stage before the converter. The table
//! of what each writes is in [`super`].

pub(super) mod anti_aliasing;
pub(super) mod current_delay;

/// The column the identifiers read as the drive's torque (`K i`).
const CURRENT: &str = "i";
