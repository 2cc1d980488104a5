//! `backlash`: a stiff gear's play of total width `level` (rad).

use crate::study::effect::{SweptEffect, Target};

/// The stiffness of the gear whose play `backlash` sweeps (N·m/rad).
const BACKLASH_STIFFNESS: f64 = 1e4;

/// On every actuated joint, the rotor of `elasticity` behind a stiff gear
/// (`BACKLASH_STIFFNESS`) with a play of total width `b`; 0 writes the stiff gear without play.
pub struct Backlash;

impl SweptEffect for Backlash {
    fn name(&self) -> &'static str {
        "backlash"
    }

    fn unit(&self) -> &'static str {
        "rad"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            super::elastic_gear(joint, BACKLASH_STIFFNESS, level);
            Ok(())
        })
    }
}
