//! `current_bandwidth`: the current loops' bandwidth `ω_c` (rad/s).

use crate::study::effect::{SweptEffect, Target};

/// `motor.current_bandwidth = ω_c` on every actuated joint.
pub struct CurrentBandwidth;

impl SweptEffect for CurrentBandwidth {
    fn name(&self) -> &'static str {
        "current_bandwidth"
    }

    fn unit(&self) -> &'static str {
        "rad/s"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            super::motor(joint).current_bandwidth = Some(level);
            Ok(())
        })
    }
}
