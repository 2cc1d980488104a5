//! `lugre`: LuGre friction in place of Coulomb–viscous, of static-to-Coulomb ratio `level`.

use sim::friction::Friction;

use crate::study::effect::{JointProblem, SweptEffect, Target};

/// Bristle deflection (rad) at which LuGre's bristles carry the Coulomb level.
const BRISTLE_DEFLECTION: f64 = 1e-4;
/// LuGre's Stribeck velocity (rad/s).
const STRIBECK_VELOCITY: f64 = 0.05;

/// Every actuated joint's Coulomb–viscous friction `(F_c, F_v)` becomes LuGre with
/// `F_s = level · F_c`, `v_s` = `STRIBECK_VELOCITY`, `σ0 = F_c / BRISTLE_DEFLECTION`,
/// `σ1 = 0`, `σ2 = F_v`.
pub struct Lugre;

impl SweptEffect for Lugre {
    fn name(&self) -> &'static str {
        "lugre"
    }

    fn unit(&self) -> &'static str {
        "F_s/F_c"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            let Some(Friction::CoulombViscous {
                coulomb, viscous, ..
            }) = joint.friction.clone().filter(
                |f| matches!(f, Friction::CoulombViscous { coulomb, .. } if *coulomb > 0.0),
            )
            else {
                return Err(JointProblem {
                    field: "friction",
                    expected: "a `coulomb_viscous` friction with coulomb > 0 to turn into LuGre"
                        .into(),
                });
            };
            joint.friction = Some(Friction::Lugre(sim::friction::Lugre {
                coulomb,
                static_friction: level * coulomb,
                stribeck_velocity: STRIBECK_VELOCITY,
                bristle_stiffness: coulomb / BRISTLE_DEFLECTION,
                bristle_damping: 0.0,
                viscous,
            }));
            Ok(())
        })
    }
}
