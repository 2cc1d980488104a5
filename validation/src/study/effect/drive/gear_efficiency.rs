//! `gear_efficiency`: the gears' efficiency `η`.

use crate::study::effect::{SweptEffect, Target};

/// `motor.gear_efficiency = η` on every actuated joint.
pub struct GearEfficiency;

impl SweptEffect for GearEfficiency {
    fn name(&self) -> &'static str {
        "gear_efficiency"
    }

    fn unit(&self) -> &'static str {
        "η"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            super::motor(joint).gear_efficiency = Some(level);
            Ok(())
        })
    }
}
