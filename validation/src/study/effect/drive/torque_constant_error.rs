//! `torque_constant_error`: the torque constants' relative error `ε`.

use crate::study::effect::{SweptEffect, Target};

/// `motor.torque_constant_error = ε` on every actuated joint.
pub struct TorqueConstantError;

impl SweptEffect for TorqueConstantError {
    fn name(&self) -> &'static str {
        "torque_constant_error"
    }

    fn unit(&self) -> &'static str {
        "ε"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            super::motor(joint).torque_constant_error = level;
            Ok(())
        })
    }
}
