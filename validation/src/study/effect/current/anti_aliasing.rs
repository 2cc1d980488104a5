//! `anti_aliasing`: an anti-aliasing filter of cut-off `level` (Hz) on the current (none at 0).

use crate::study::effect::{Place, SweptEffect, Target, anti_aliasing_filter};

/// `{ type = "anti_aliasing", order = 2, cutoff = f_c }` ahead of the current's laws (the
/// encoders are digital: its phase lag is not in the angles); 0 writes none.
pub struct AntiAliasing;

impl SweptEffect for AntiAliasing {
    fn name(&self) -> &'static str {
        "anti_aliasing"
    }

    fn unit(&self) -> &'static str {
        "Hz"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level != 0.0 {
            target.add_joint_law(super::CURRENT, anti_aliasing_filter(level), Place::First);
        }
        Ok(())
    }
}
