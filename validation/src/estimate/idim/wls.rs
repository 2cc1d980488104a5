//! `idim_wls`: IDIM by weighted least squares, each joint's equations weighted by the inverse of
//! its OLS residual's RMS (Gautier's weighting).

use super::base::Idim;
use super::{Estimates, Identifier, Prepared};
use crate::estimate::EstimateError;

/// IDIM-WLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimWls;

impl Identifier for IdimWls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimWls.name()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        Idim::wls().identify(experiment)
    }
}
