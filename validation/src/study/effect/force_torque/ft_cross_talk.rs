//! `ft_cross_talk`: the F/T sensors' cross-talk, of relative size `level`.

use crate::study::effect::{SweptEffect, Target};

/// The length (m) that makes the `ft_cross_talk` pattern's force–moment blocks commensurate: a
/// moment of 1 N·m leaks into a force channel as a force of `ε / L`, a force of 1 N into a
/// moment channel as `ε L` (the radius of a wrist F/T sensor's strain-gauge ring).
pub const CROSS_TALK_LENGTH: f64 = 0.05;

/// The `ft_cross_talk` calibration error at level `ε`: every off-diagonal entry `±ε`, the sign
/// `(−1)^(i+j)`, scaled by `L` in the moment-from-force block and by `1/L` in the
/// force-from-moment block; the diagonal (the channels' gains) left to their `scale` errors.
pub fn cross_talk(level: f64) -> [[f64; 6]; 6] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let unit = match (i < 3, j < 3) {
                (true, false) => 1.0 / CROSS_TALK_LENGTH,
                (false, true) => CROSS_TALK_LENGTH,
                _ => 1.0,
            };
            let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            if i == j { 0.0 } else { sign * level * unit }
        })
    })
}

/// `cross_talk = C` ([`cross_talk`]) on every F/T sensor; 0 writes none.
pub struct FtCrossTalk;

impl SweptEffect for FtCrossTalk {
    fn name(&self) -> &'static str {
        "ft_cross_talk"
    }

    fn unit(&self) -> &'static str {
        "ε"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level != 0.0 {
            super::write(target, super::Edit::CrossTalk(Box::new(cross_talk(level))));
        }
        Ok(())
    }
}
