//! `idim_tls`: IDIM by total least squares (errors in the regressor as in the torques).

use super::base::Idim;
use super::{Estimates, Identifier, Prepared};
use crate::estimate::EstimateError;

/// IDIM-TLS.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdimTls;

impl Identifier for IdimTls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimTls.name()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        Idim::tls().identify(experiment)
    }
}
