//! `ft_delay`: the wrench read `level` samples late (a whole number).

use sim::noise::Noise;

use crate::study::effect::{SweptEffect, Target, whole_samples};

/// `chain += { type = "delay", samples = n }` on every F/T sensor: the wrench read `n`
/// samples late against the body's motion; 0 writes none.
pub struct FtDelay;

impl SweptEffect for FtDelay {
    fn name(&self) -> &'static str {
        "ft_delay"
    }

    fn unit(&self) -> &'static str {
        "samples"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level != 0.0 {
            let samples = whole_samples(self.name(), level)?;
            super::write(target, super::Edit::Chain(Noise::Delay { samples }));
        }
        Ok(())
    }
}
