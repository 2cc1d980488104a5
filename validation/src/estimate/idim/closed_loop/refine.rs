//! The iteration of the output-error identifiers on the simulated loop.

use nalgebra::{DMatrix, DVector};

use super::ClosedLoop;

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

impl ClosedLoop {
    /// Refines `x` (the OLS estimate to start) by simulating the loop of the current estimate
    /// and solving `update(W_s, τ_s)` for the next, `W_s` the simulated run's regressor row for
    /// row beside the measured system and `τ_s` its torques, until the parameters settle.
    pub fn refine(
        &self,
        system: &crate::estimate::idim::base::System,
        experiment: &crate::estimate::idim::Prepared,
        min_speed: f64,
        iteration: Iteration,
        update: impl Fn(&DMatrix<f64>, &DVector<f64>) -> DVector<f64>,
        name: &str,
    ) -> Result<DVector<f64>, crate::estimate::EstimateError> {
        let samples = &system.samples;
        let mut x = crate::lsq::least_squares(&system.a, &system.b);
        for _ in 0..iteration.iterations {
            let simulated = self
                .simulate(&system.full, &x, &samples.t, samples.period)
                .map_err(|message| crate::estimate::EstimateError {
                    estimator: name.into(),
                    message,
                })?;
            let (w_s, tau_s) =
                (system.full).system_beside(&simulated, samples, min_speed, experiment.filter);
            let next = update(&w_s, &tau_s);
            let moved = (&next - &x).norm() / next.norm().max(f64::MIN_POSITIVE);
            x = next;
            if moved < iteration.tolerance {
                break;
            }
        }
        Ok(x)
    }
}

/// Identifies the arm of the experiment by an output-error method: IDIM's system of the
/// excitation run (OLS settings), the run's design as the loop, and `update(system, W_s)` for the
/// next estimate from the simulated regressor, from the OLS estimate until it settles.
pub fn identify(
    experiment: &crate::estimate::idim::Prepared,
    iteration: Iteration,
    name: &str,
    update: impl Fn(&crate::estimate::idim::base::System, &DMatrix<f64>) -> DVector<f64>,
) -> Result<crate::estimate::idim::Identified, crate::estimate::EstimateError> {
    let idim = crate::estimate::idim::base::Idim::ols();
    let system = idim.system(experiment, name)?;
    let design = ClosedLoop::of_run(experiment.excitation).map_err(|e| e.into_error(name))?;
    let x = design.refine(
        &system,
        experiment,
        idim.min_speed,
        iteration,
        |w_s, _| update(&system, w_s),
        name,
    )?;
    Ok(system.full.identified(&x))
}
