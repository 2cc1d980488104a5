//! `load_friction`: Coulomb friction proportional to the constraint load, coefficient `level`
//! (m).

use sim::friction::Friction;

use crate::study::effect::{SweptEffect, Target};

/// The smoothing of `load_friction` on a joint without friction (rad/s).
const SMOOTHING: f64 = 0.01;

/// `load_friction = { coefficient = c, smoothing }` on every actuated joint, the smoothing of
/// the joint's friction (`SMOOTHING` without one).
pub struct LoadFriction;

impl SweptEffect for LoadFriction {
    fn name(&self) -> &'static str {
        "load_friction"
    }

    fn unit(&self) -> &'static str {
        "m"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        target.actuated_joints(|joint| {
            let smoothing = match joint.friction {
                Some(Friction::CoulombViscous { smoothing, .. })
                | Some(Friction::Stribeck { smoothing, .. }) => smoothing,
                _ => SMOOTHING,
            };
            joint.load_friction = Some(sim::friction::LoadFriction {
                coefficient: level,
                smoothing,
            });
            Ok(())
        })
    }
}
