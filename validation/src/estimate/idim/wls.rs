//! `idim_wls`: IDIM by weighted least squares, each joint's equations weighted by the inverse of
//! its OLS residual's RMS (Gautier's weighting).

use super::base::Idim;
use super::{Identified, Prepared, WholeArm};
use crate::estimate::EstimateError;

/// IDIM-WLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimWls;

impl WholeArm for IdimWls {
    fn name(&self) -> &'static str {
        "idim_wls"
    }

    fn identify(&self, experiment: &Prepared) -> Result<Identified, EstimateError> {
        Idim::wls().identify(experiment)
    }
}
