//! IDIM-IV: inverse-dynamics identification with instrumental variables (Janot, Vandanjon and
//! Gautier, "A generic instrumental variable approach for industrial robot identification",
//! IEEE TCST 22(1), 2014).
//!
//! IDIM-OLS is biased where the regressor `W(q, q̇, q̈)` built from measured angles is noisy
//! (errors in variables: the noise of `q̈` correlates `W` with the equation error) and its
//! result depends on how `q̇, q̈` are filtered. IV keeps the measured system `W x = τ` and
//! multiplies it by instruments `Z` that are correlated with `W` but not with its noise: the
//! regressor of the identified model simulated in the loop of the run's design
//! ([`super::closed_loop`]), `x_k = (Zᵀ W)⁻¹ Zᵀ τ` with `Z = W_s(x_{k−1})`, from the OLS
//! estimate until the parameters settle (Janot et al.'s iteration). Columns are scaled to unit
//! norm before the square system is solved (SVD, rank-revealing).

use nalgebra::{DMatrix, DVector};

use super::Identifier;
use super::base::System;
use super::closed_loop::{self, Iteration};
use super::{Estimates, Prepared};
use crate::estimate::EstimateError;
use crate::estimate::NotApplicable;
use crate::lsq::least_squares;
use sim::reading::Measurements;

/// The IDIM-IV identifier.
#[derive(Clone, Debug, Default)]
pub struct Iv {
    /// How the simulated instruments are iterated.
    pub iteration: Iteration,
}

impl Iv {
    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        closed_loop::identify(experiment, self.iteration, self.name(), |system, z| {
            instrumental(z, system)
        })
    }
}

impl super::Identifier for Iv {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimIv.name()
    }

    fn needs(&self) -> &'static str {
        "an excitation run with joint angles and torques; simulates the identified arm in the run's control loop"
    }

    fn requires(&self, excitation: &Measurements) -> Result<(), NotApplicable> {
        super::closed_loop::ClosedLoop::of_run(excitation).map(|_| ())
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        Iv::identify(self, experiment)
    }
}

/// `(Zᵀ W)⁻¹ Zᵀ τ` of the measured system, `W`'s columns scaled to unit norm, solved without
/// forming `Zᵀ W`: with the thin QR `Z = Q R` (`R` invertible where the instruments are
/// independent) the equations are `Qᵀ W x = Qᵀ τ`, whose condition is `W`'s over the cosine of
/// the angle between the instruments' and the regressor's spans, where `Zᵀ W`'s is about its
/// square (issue 61: on a 250 Hz Panda run the product lost 1e-6 of the parameters on exact
/// data).
fn instrumental(z: &DMatrix<f64>, system: &System) -> DVector<f64> {
    let dw: Vec<f64> = (system.a.column_iter())
        .map(|c| c.norm().max(f64::MIN_POSITIVE))
        .collect();
    let mut w = system.a.clone();
    for (c, d) in dw.iter().enumerate() {
        w.column_mut(c).scale_mut(1.0 / d);
    }
    let q = z.clone().qr().q();
    let y = least_squares(&(q.transpose() * &w), &(q.transpose() * &system.b));
    DVector::from_fn(y.len(), |c, _| y[c] / dw[c])
}
