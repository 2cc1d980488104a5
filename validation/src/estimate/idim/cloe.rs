//! CLOE: closed-loop output error on the joint angles (Landau and Karimi, "An output error
//! recursive algorithm for unbiased identification in closed loop", Automatica 33(5), 1997;
//! for robots Gautier, Janot and Vandanjon, IEEE TCST 21(2), 2013, §II, and BIRDy's `CLOE`).
//!
//! The parameters minimize `Σ_k Σ_{j free} (q_j(t_k) − q_{s,j}(t_k; x))²`, `q` the measured
//! angles (raw, as the encoders give them: no derivative is taken) and `q_s` those of the
//! identified model simulated in the loop of the run's design ([`super::closed_loop`]) from the
//! run's start. Gauss–Newton: the step solves `S δ ≈ q − q_s`, `S = ∂q_s/∂x` the output
//! sensitivities of the loop ([`super::closed_loop::ClosedLoop::sensitivities`]), restricted to
//! the directions the angles determine ([`crate::lsq::truncated_step`], threshold
//! [`TOLERANCE`]), and halved until the cost falls; from the IDIM-OLS estimate until the
//! parameters settle. What the angles do not see keeps its OLS value.
//!
//! What the angles see depends on the loop. Under computed torque with the identified model
//! in the law (as [`super::closed_loop`] simulates it) the rigid-body model cancels from the
//! tracking error except through `M̂ (q̈ − a)`: gravity parameters do not move the simulated
//! angles at all, inertias only through the small tracking acceleration, and friction drives
//! the error. A PD loop lets gravity and inertia through. This is why DIDIM fits torques
//! (Gautier et al. 2013): positions of a stiff loop say little about the arm.

use nalgebra::{DMatrix, DVector};

use super::Identifier;
use super::base::{FullRegressor, Idim};
use super::closed_loop::{ClosedLoop, Iteration, LoopFailure};
use super::{Estimates, Prepared, Samples, raw_angles};
use crate::estimate::EstimateError;
use crate::estimate::NotApplicable;
use crate::lsq::{least_squares, truncated_step};
use sim::reading::Measurements;

/// Singular values of the column-scaled sensitivities below this fraction of the largest are
/// directions the angles do not determine: no step is taken along them.
pub const TOLERANCE: f64 = 1e-3;

/// Halvings of a step that does not lower the cost before the iteration stops.
const HALVINGS: usize = 6;

/// The CLOE identifier.
#[derive(Clone, Debug, Default)]
pub struct Cloe {
    /// How the simulation is iterated.
    pub iteration: Iteration,
}

/// The measured angles the output error is taken on.
struct Output {
    /// Times from the run's start to the last sample used (s).
    times: Vec<f64>,
    /// Index in `times` of the first sample used.
    first: usize,
    /// Joints whose angles depend on the parameters (not prescribed).
    free: Vec<usize>,
    /// Measured angles per sample used, per free joint (rad).
    measured: Vec<Vec<f64>>,
    /// The excitation's period (s).
    period: f64,
}

/// The model's simulated loop beside the measured angles.
struct Fit {
    simulated: Samples,
    residual: DVector<f64>,
    cost: f64,
}

impl Cloe {
    /// Identifies the arm from the experiment, from the IDIM-OLS estimate.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let system = Idim::ols().system(experiment, self.name())?;
        let start = least_squares(&system.a, &system.b);
        self.identify_from(experiment, &system.full, &system.samples, start)
    }

    /// Identifies the arm from the experiment starting at `x` (the regressor's parameters) on
    /// `samples`, the excitation's samples an IDIM system uses.
    pub fn identify_from(
        &self,
        experiment: &Prepared,
        full: &FullRegressor,
        samples: &Samples,
        mut x: DVector<f64>,
    ) -> Result<Estimates, EstimateError> {
        let name = self.name();
        let design = ClosedLoop::of_run(experiment.excitation).map_err(|e| e.into_error(name))?;
        let output = Output::of_run(experiment.excitation, samples, &design);
        let failed = |message: String| EstimateError {
            estimator: name.into(),
            message,
        };
        let mut fit = (output.fit(&design, full, &x)).map_err(|e| failed(e.to_string()))?;
        for _ in 0..self.iteration.iterations {
            let sensitivities = design.sensitivities(full, &x, &fit.simulated);
            let step = truncated_step(&output.jacobian(&sensitivities), &fit.residual, TOLERANCE);
            let Some((next, better)) = output.descend(&design, full, &x, &step, fit.cost) else {
                break;
            };
            let moved = (&next - &x).norm() / next.norm().max(f64::MIN_POSITIVE);
            (x, fit) = (next, better);
            if moved < self.iteration.tolerance {
                break;
            }
        }
        Ok(full.identified(&x))
    }
}

impl super::Identifier for Cloe {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::Cloe.name()
    }

    fn needs(&self) -> &'static str {
        "an excitation run with a servoed or torque-driven joint"
    }

    fn requires(&self, excitation: &Measurements) -> Result<(), NotApplicable> {
        let design = super::closed_loop::ClosedLoop::of_run(excitation)?;
        if design.free_joints().is_empty() {
            return Err(NotApplicable::new(
                "needs a joint whose motion depends on the arm (servoed or torque-driven): \
                 every joint follows a prescribed profile, so the simulated angles do not \
                 depend on the parameters",
            ));
        }
        Ok(())
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        Cloe::identify(self, experiment)
    }
}

impl Output {
    /// The measured angles (`q_meas`, else the clean `q`) of the free joints at `samples`'
    /// times.
    fn of_run(data: &Measurements, samples: &Samples, design: &ClosedLoop) -> Self {
        let (first, angles) = raw_angles(data, samples);
        let last = first + samples.t.len();
        let free = design.free_joints();
        let measured = (angles.iter())
            .map(|q| free.iter().map(|&j| q[j]).collect())
            .collect();
        Output {
            times: data.t[..last].to_vec(),
            first,
            free,
            measured,
            period: samples.period,
        }
    }

    /// The loop of `x` and its output error.
    fn fit(
        &self,
        design: &ClosedLoop,
        full: &FullRegressor,
        x: &DVector<f64>,
    ) -> Result<Fit, LoopFailure> {
        let simulated = design.simulate(full, x, &self.times, self.period)?;
        let nf = self.free.len();
        let residual = DVector::from_fn(self.measured.len() * nf, |row, _| {
            let (k, r) = (row / nf, row % nf);
            self.measured[k][r] - simulated.q[self.first + k][self.free[r]]
        });
        let cost = residual.norm_squared();
        Ok(Fit {
            simulated,
            residual,
            cost,
        })
    }

    /// The sensitivities of the samples used, stacked as the residual is.
    fn jacobian(&self, sensitivities: &[DMatrix<f64>]) -> DMatrix<f64> {
        let nf = self.free.len();
        let p = sensitivities.first().map_or(0, DMatrix::ncols);
        let mut j = DMatrix::zeros(self.measured.len() * nf, p);
        for k in 0..self.measured.len() {
            for (r, &joint) in self.free.iter().enumerate() {
                j.row_mut(k * nf + r)
                    .copy_from(&sensitivities[self.first + k].row(joint));
            }
        }
        j
    }

    /// The first of `x + step`, `x + step/2`, … whose loop has a lower cost than `cost`.
    fn descend(
        &self,
        design: &ClosedLoop,
        full: &FullRegressor,
        x: &DVector<f64>,
        step: &DVector<f64>,
        cost: f64,
    ) -> Option<(DVector<f64>, Fit)> {
        let mut scale = 1.0;
        for _ in 0..=HALVINGS {
            let trial = x + step * scale;
            if let Ok(fit) = self.fit(design, full, &trial)
                && fit.cost < cost
            {
                return Some((trial, fit));
            }
            scale /= 2.0;
        }
        None
    }
}
