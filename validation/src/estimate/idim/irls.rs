//! `idim_irls`: IDIM by iteratively reweighted least squares with Huber's robust weights
//! ([`super::robust::Huber`]).

use super::base::Idim;
use super::{Estimates, Identifier, Prepared};
use crate::estimate::EstimateError;

/// IDIM-IRLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimIrls;

impl Identifier for IdimIrls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimIrls.name()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        Idim::irls().identify(experiment)
    }
}
