//! `idim_irls`: IDIM by iteratively reweighted least squares with Huber's robust weights
//! ([`super::robust::Huber`]).

use super::base::Idim;
use super::{Identified, Identifier, Prepared};
use crate::estimate::EstimateError;

/// IDIM-IRLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimIrls;

impl Identifier for IdimIrls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimIrls.name()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Identified, EstimateError> {
        Idim::irls().identify(experiment)
    }
}
