//! `idim_ols`: IDIM by ordinary least squares, with the least-squares standard deviations under
//! white equation errors ([`crate::lsq::ols_std`]).

use super::base::Idim;
use super::{Estimates, Identifier, Prepared};
use crate::estimate::EstimateError;

/// IDIM-OLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimOls;

impl Identifier for IdimOls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimOls.name()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        Idim::ols().identify(experiment)
    }
}
