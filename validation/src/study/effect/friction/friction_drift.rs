//! `friction_drift`: the friction's thermal drift, relative change `level`.

use sim::friction::Drift;

use crate::study::effect::{SweptEffect, Target};

/// `friction_drift = { change = Δ, time_constant }` on every actuated joint, the time constant a
/// quarter of the run.
pub struct FrictionDrift;

impl SweptEffect for FrictionDrift {
    fn name(&self) -> &'static str {
        "friction_drift"
    }

    fn unit(&self) -> &'static str {
        "relative change"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        let time_constant = target.end() / 4.0;
        target.actuated_joints(|joint| {
            joint.friction_drift = Some(Drift {
                change: level,
                time_constant,
            });
            Ok(())
        })
    }
}
