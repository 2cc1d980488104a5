//! `friction_sweep`: the sweep analysis ([`super::friction_sweep`]) as an identifier.

use super::friction_sweep::analysis;
use super::{Estimates, Prepared, Runs};
use crate::estimate::EstimateError;

/// The sweep analysis as an identifier: friction and gravity only (its torque model has no
/// inertia), reported for its parameters.
pub struct SweepFit;

impl SweepFit {
    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let fg = analysis(experiment)?.clone();
        let parameters = fg.parameters(&experiment.geometry().joint_ids());
        Ok(Estimates::identified(parameters, Box::new(fg)))
    }
}

impl super::Identifier for SweepFit {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::FrictionSweep.name()
    }

    fn needs(&self) -> &'static str {
        "forward/backward sweep runs of each joint (role sweep)"
    }

    fn runs(&self) -> Runs {
        Runs::Sweeps
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        SweepFit::identify(self, experiment)
    }
}
