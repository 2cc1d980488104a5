//! `current_delay`: the current read `level` samples late (a whole number).

use sim::noise::Noise;

use crate::study::effect::{Place, SweptEffect, Target, whole_samples};

/// `{ type = "delay", samples = n }` ahead of the current's laws: the current read `n`
/// samples late against the encoders; 0 writes none.
pub struct CurrentDelay;

impl SweptEffect for CurrentDelay {
    fn name(&self) -> &'static str {
        "current_delay"
    }

    fn unit(&self) -> &'static str {
        "samples"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        let samples = whole_samples(self.name(), level)?;
        if samples > 0 {
            target.add_joint_law(super::CURRENT, Noise::Delay { samples }, Place::First);
        }
        Ok(())
    }
}
