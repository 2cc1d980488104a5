//! `idim_tls`: IDIM by total least squares (errors in the regressor as in the torques).

use super::base::Idim;
use super::{Identified, Prepared, WholeArm};
use crate::estimate::EstimateError;

/// IDIM-TLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimTls;

impl WholeArm for IdimTls {
    fn name(&self) -> &'static str {
        "idim_tls"
    }

    fn identify(&self, experiment: &Prepared) -> Result<Identified, EstimateError> {
        Idim::tls().identify(experiment)
    }
}
