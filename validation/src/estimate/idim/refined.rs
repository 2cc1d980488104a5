//! IDIM-OLS revised by a model that reads its solution: the least-squares system of
//! [`super::base::Idim`] is solved as IDIM-OLS solves it, its estimates and their
//! least-squares standard deviations ([`crate::lsq::ols_std`]) are handed to a [`Refine`], and
//! the revised values (with their standard deviations) make the identified model, its torque
//! predictor included. The learned joint-level identifier
//! ([`crate::estimate::nim::joint`]) is one: the normal equations of the run are its encoder,
//! the network its decoder.

use std::sync::Arc;

use nalgebra::DVector;
use sim::model::Chain;

use super::base::{Idim, System};
use super::{Estimates, Prepared};
use crate::estimate::{EstimateError, NotApplicable};
use crate::lsq::least_squares;
use crate::param::ParamId;

/// One parameter of IDIM-OLS's solution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solved {
    /// Which parameter (base parameters first, then friction terms).
    pub id: ParamId,
    /// The least-squares estimate.
    pub value: f64,
    /// Its least-squares standard deviation (NaN where none is stated).
    pub std: f64,
}

/// A revision of IDIM-OLS's solution.
pub trait Refine: Send + Sync {
    /// The revised `(value, std)` of every parameter of `ols` (the solution for an arm of
    /// kinematics `geometry`), in its order (std NaN where none is stated); `Err` with the
    /// reason where the revision does not apply to this arm.
    fn refine(&self, geometry: &Chain, ols: &[Solved]) -> Result<Vec<(f64, f64)>, NotApplicable>;
}

/// IDIM-OLS revised by a [`Refine`].
#[derive(Clone)]
pub struct Refined {
    /// The method's name, the `method` column of reports.
    pub name: &'static str,
    /// The revision.
    pub refine: Arc<dyn Refine>,
}

impl Refined {
    /// Identifies the arm: IDIM-OLS, then the revision.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let System { full, a, b, .. } = Idim::ols().system(experiment, self.name)?;
        let x = least_squares(&a, &b);
        let values: Vec<Option<f64>> = x.iter().map(|v| Some(*v)).collect();
        let std = crate::lsq::ols_std(&a, &b, &values);
        let std = DVector::from_iterator(std.len(), std.iter().map(|s| s.unwrap_or(f64::NAN)));
        let solved: Vec<Solved> = (full.parameters(&x).into_iter())
            .zip(full.parameters(&std))
            .map(|((id, value), (_, std))| Solved { id, value, std })
            .collect();
        let revised = self
            .refine
            .refine(experiment.geometry(), &solved)
            .map_err(|e| e.into_error(self.name))?;
        if revised.len() != x.len() {
            return Err(EstimateError {
                estimator: self.name.into(),
                message: format!(
                    "the revision returned {} values for {} parameters",
                    revised.len(),
                    x.len()
                ),
            });
        }
        let value = DVector::from_iterator(x.len(), revised.iter().map(|r| r.0));
        let std = DVector::from_iterator(x.len(), revised.iter().map(|r| r.1));
        let std = (full.parameters(&std).into_iter())
            .filter(|(_, s)| s.is_finite())
            .collect();
        Ok(full.identified(&value).with_std(std))
    }
}

impl super::Identifier for Refined {
    fn name(&self) -> &'static str {
        self.name
    }

    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        Refined::identify(self, experiment)
    }
}
