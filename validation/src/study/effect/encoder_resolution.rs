//! `encoder_resolution`: the joint encoders' resolution `level` (rad, or m on a prismatic
//! joint).

use sim::noise::Noise;

use super::{Place, SweptEffect, Target};

/// `{ type = "quantize", resolution = r }` after the laws of every joint's angle reading `q`
/// (the converter: each reading a whole multiple of `r`), a new entry for the joints none
/// covers; 0 writes none. The angles the identifiers read, and every derivative they take of
/// them, carry the quantization; the simulated arm does not.
pub struct EncoderResolution;

impl SweptEffect for EncoderResolution {
    fn name(&self) -> &'static str {
        "encoder_resolution"
    }

    fn unit(&self) -> &'static str {
        "rad"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level != 0.0 {
            let law = Noise::Quantize { resolution: level };
            target.add_joint_law("q", law, Place::Last);
        }
        Ok(())
    }
}
