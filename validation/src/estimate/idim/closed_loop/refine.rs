//! The iteration of the output-error identifiers on the simulated loop.

use nalgebra::{DMatrix, DVector};

use super::ClosedLoop;
use crate::estimate::EstimateError;
use crate::estimate::idim::base::{Idim, System};
use crate::estimate::idim::{Estimates, Prepared};
use crate::lsq::least_squares;

/// How an output-error identifier iterates on the simulated loop ([`crate::estimate::idim::iv`],
/// [`crate::estimate::idim::didim`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iteration {
    /// Most simulations.
    pub iterations: usize,
    /// Stop when the parameters move less than this, relative to their norm.
    pub tolerance: f64,
}

impl Default for Iteration {
    fn default() -> Self {
        Iteration {
            iterations: 10,
            tolerance: 1e-3,
        }
    }
}

/// Identifies the arm of the experiment by an output-error method: IDIM's system of the
/// excitation run (OLS settings), the run's design as the loop, and `update(system, W_s)` for the
/// next estimate from `W_s`, the regressor of the current estimate's simulated run row for row
/// beside the measured system; from the OLS estimate until the parameters settle.
pub fn identify(
    experiment: &Prepared,
    iteration: Iteration,
    name: &str,
    update: impl Fn(&System, &DMatrix<f64>) -> DVector<f64>,
) -> Result<Estimates, EstimateError> {
    let idim = Idim::ols();
    let system = idim.system(experiment, name)?;
    let design = ClosedLoop::of_run(experiment.excitation).map_err(|e| e.into_error(name))?;
    let samples = &system.samples;
    let mut x = least_squares(&system.a, &system.b);
    for _ in 0..iteration.iterations {
        let simulated =
            (design.simulate(&system.full, &x, &samples.t, samples.period)).map_err(|e| {
                EstimateError {
                    estimator: name.into(),
                    message: e.to_string(),
                }
            })?;
        let w_s =
            (system.full).system_beside(&simulated, samples, idim.min_speed, experiment.filter);
        let next = update(&system, &w_s);
        let moved = (&next - &x).norm() / next.norm().max(f64::MIN_POSITIVE);
        x = next;
        if moved < iteration.tolerance {
            break;
        }
    }
    Ok(system.full.identified(&x))
}
