//! `armature`: an unmodelled rotor of reflected inertia `level` (kg·m²).

use crate::study::effect::{SweptEffect, Target};

/// `rotor = { inertia = J / 100², gear_ratio = 100 }` on every actuated joint: a reflected
/// inertia the identifiers' Coulomb–viscous columns do not model; 0 writes none.
pub struct Armature;

impl SweptEffect for Armature {
    fn name(&self) -> &'static str {
        "armature"
    }

    fn unit(&self) -> &'static str {
        "kg·m²"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            joint.rotor = (level > 0.0).then(|| super::rotor(level));
            Ok(())
        })
    }
}
