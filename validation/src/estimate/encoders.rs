//! MIM on what a robot without link IMUs has: joint force/torque sensors and encoders. Body
//! kinematics come from the measured joint angles through the known kinematics
//! ([`crate::encoder`]: five-point differentiator); the joint wrenches are the measured ones.

use super::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};
use crate::encoder::reconstruct;

/// MIM stacked body by body on the encoder-only kinematics.
#[derive(Clone, Copy, Debug)]
pub struct MimEncoders;

/// The run's measurements with encoder-only kinematics, or why there are none.
pub(crate) fn encoder_view(
    experiment: &Experiment,
) -> Result<crate::dataset::Measurements, NotApplicable> {
    let data = super::single(experiment)?;
    if data.samples() < 5 {
        return Err(NotApplicable::new(
            "needs at least 5 samples (the five-point differentiator of the joint angles)",
        ));
    }
    Ok(reconstruct(data))
}

impl Estimator for MimEncoders {
    fn name(&self) -> &'static str {
        "mim_encoders"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let data = super::single(experiment)?;
        if data.samples() < 5 {
            return Err(NotApplicable::new(
                "needs at least 5 samples (the five-point differentiator of the joint angles)",
            ));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let view = encoder_view(experiment).map_err(|e| EstimateError {
            estimator: self.name().into(),
            message: e.0,
        })?;
        super::mim::Stacked.estimate(&Experiment::single(&view))
    }
}
