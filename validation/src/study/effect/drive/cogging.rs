//! `cogging`: the motors' cogging torque, amplitude `level` (N·m, or N on a prismatic joint).

use sim::cogging::Cogging;

use crate::study::effect::{SweptEffect, Target};

/// The cogging period at the joint (rad): a direct drive whose motor has 36 slots and 12 poles
/// (`lcm(36, 12)` = 36 detents a revolution, `sim::cogging`).
const PERIOD: f64 = std::f64::consts::TAU / 36.0;

/// `cogging = { amplitude = A, period = 2π/36 }` on every actuated joint; 0 writes none. The
/// arm feels a conservative torque, periodic in each joint's angle, that no identifier's
/// columns describe.
pub struct CoggingTorque;

impl SweptEffect for CoggingTorque {
    fn name(&self) -> &'static str {
        "cogging"
    }

    fn unit(&self) -> &'static str {
        "N·m"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        if level == 0.0 {
            return Ok(());
        }
        target.actuated_joints(|joint| {
            joint.cogging = Some(Cogging {
                amplitude: level,
                period: PERIOD,
                phase: 0.0,
            });
            Ok(())
        })
    }
}
