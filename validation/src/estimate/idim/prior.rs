//! `idim_prior`: standard-parameter IDIM with a prior model, unconstrained
//! ([`super::consistent::StandardIdim`] with [`super::consistent::Constraint::None`]).

use std::path::PathBuf;

use super::consistent::{Constraint, StandardIdim};
use super::{Estimates, Identifier, Prepared};
use crate::estimate::{EstimateError, NotApplicable};

/// Standard-parameter IDIM with a prior, unconstrained.
#[derive(Clone, Debug)]
pub struct IdimPrior(StandardIdim);

impl IdimPrior {
    /// The identifier with the prior model at `prior` (a URDF), if any.
    pub fn new(prior: Option<PathBuf>) -> Self {
        IdimPrior(StandardIdim::new(Constraint::None, prior))
    }
}

impl Identifier for IdimPrior {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimPrior.name()
    }

    fn needs(&self) -> &'static str {
        "an excitation run with joint angles and torques, and a prior model (--prior URDF)"
    }

    fn available(&self) -> Result<(), NotApplicable> {
        self.0.available()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        self.0.identify(experiment)
    }
}
