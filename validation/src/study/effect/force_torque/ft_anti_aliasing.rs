//! `ft_anti_aliasing`: an anti-aliasing filter of cut-off `level` (Hz) on the F/T channels
//! (none at 0).

use sim::noise::Noise;

use crate::study::effect::{SweptEffect, Target};

/// The order of the filter (a second-order Butterworth).
const FILTER_ORDER: usize = 2;

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
            let law = Noise::AntiAliasing {
                order: FILTER_ORDER,
                cutoff: level,
            };
            super::write(target, super::Edit::Chain(law));
        }
        Ok(())
    }
}
