//! `elasticity`: an elastic gear of compliance `level` (rad/N·m) behind a rotor (rigid at 0).

use crate::study::effect::{JointProblem, SweptEffect, Target};

/// On every actuated joint, the rotor of reflected inertia `J_E` behind a spring of stiffness
/// `1/c` (the servos read the motor side, the identifiers the link side); 0 writes the same
/// rotor rigid.
pub struct Elasticity;

impl SweptEffect for Elasticity {
    fn name(&self) -> &'static str {
        "elasticity"
    }

    fn unit(&self) -> &'static str {
        "rad/(N·m)"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            if level < 0.0 {
                return Err(JointProblem {
                    field: "spring",
                    expected: format!("a compliance ≥ 0 rad/N·m, got {level}"),
                });
            }
            if level == 0.0 {
                joint.rotor = Some(super::rotor(super::ELASTIC_ROTOR));
                joint.spring = None;
            } else {
                super::elastic_gear(joint, 1.0 / level, 0.0);
            }
            Ok(())
        })
    }
}
