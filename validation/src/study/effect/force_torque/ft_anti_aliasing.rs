//! `ft_anti_aliasing`: an anti-aliasing filter of cut-off `level` (Hz) on the F/T channels
//! (none at 0).

use crate::study::effect::{SweptEffect, Target, anti_aliasing_filter};

/// `chain += { type = "anti_aliasing", order = 2, cutoff = f_c }` on the six channels of every
/// F/T sensor; 0 writes none.
pub struct FtAntiAliasing;

impl SweptEffect for FtAntiAliasing {
    fn name(&self) -> &'static str {
        "ft_anti_aliasing"
    }

    fn unit(&self) -> &'static str {
        "Hz"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level != 0.0 {
            super::write(target, super::Edit::Chain(anti_aliasing_filter(level)));
        }
        Ok(())
    }
}
