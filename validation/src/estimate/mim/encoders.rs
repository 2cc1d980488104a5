//! MIM on what a robot without link IMUs has: joint force/torque sensors and encoders. Body
//! kinematics come from the measured joint angles through the known kinematics
//! ([`crate::encoder`]: five-point differentiator); the joint wrenches are the measured ones.

use crate::encoder::reconstruct;
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};

/// What the encoder path needs its samples for.
const DIFFERENTIATOR: &str = "the five-point differentiator of the joint angles";

/// MIM stacked body by body on the encoder-only kinematics.
#[derive(Clone, Copy, Debug)]
pub struct MimEncoders;

/// The run's measurements with encoder-only kinematics, or why there are none.
pub(crate) fn encoder_view(
    experiment: &Experiment,
) -> Result<crate::dataset::Measurements, NotApplicable> {
    crate::estimate::enough_samples(experiment, 5, DIFFERENTIATOR).map(reconstruct)
}

impl Estimator for MimEncoders {
    fn name(&self) -> &'static str {
        "mim_encoders"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        crate::estimate::enough_samples(experiment, 5, DIFFERENTIATOR).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let view = encoder_view(experiment).map_err(|e| e.into_error(self.name()))?;
        crate::estimate::mim::Stacked.estimate(&Experiment::single(&view))
    }
}
