//! `idim_ols`: IDIM by ordinary least squares, with the least-squares standard deviations under
//! white equation errors ([`crate::lsq::ols_std`]).

use super::base::Idim;
use super::{Identified, Prepared, WholeArm};
use crate::estimate::EstimateError;

/// IDIM-OLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimOls;

impl WholeArm for IdimOls {
    fn name(&self) -> &'static str {
        "idim_ols"
    }

    fn identify(&self, experiment: &Prepared) -> Result<Identified, EstimateError> {
        Idim::ols().identify(experiment)
    }
}
