//! Fitting by simulation: a model's drive terms chosen so that, driven as the robot was, it moves
//! as the robot moved. What a servo arm needs (its log has no torque, so no regressor applies),
//! and what a model to be simulated needs anyway.
//!
//! **What is minimized.** Multiple shooting over short windows of one or more logs (windows never
//! span two logs): from the recorded state at each window's start the model is rolled out
//! (`sim::rollout`: servos driven by the logged commands, other joints by the logged torque), and
//! the residuals are `q_sim − q_rec` at every sample of every window and joint (rad or m). The
//! cost is half their sum of squares.
//!
//! **Over what** ([`Term`]): per joint, a position servo's stiffness `k_p`, damping `k_d` and
//! command delay `δ`, and the joint's viscous damping, Coulomb level (smoothed as a URDF's,
//! `sim::urdf::URDF_FRICTION_SMOOTHING`) and armature. Positive terms are fitted in log space
//! (they stay positive); the delay in seconds, held at or above 0.
//!
//! **How** (`lm`): Levenberg–Marquardt with a forward-difference Jacobian, every (parameter,
//! window) rollout of an iteration run in parallel (rayon; results in a fixed order, so the same
//! data give the same fit whatever the thread count). A step changes a positive term by at most a
//! factor e² and a delay by at most 50 ms; a trial whose rollouts blow up, or whose terms leave
//! their domain, counts as a cost increase. `armid fit-servos` ([`command`]) runs it on run
//! directories and writes the fitted servos as a drive train. Within an iteration every rollout
//! takes one integrator step, the step rule's finest over the windows for the model at the
//! iteration's start (`sim::rollout::steps_per_sample`): the cost is then a smooth function of
//! the terms (a step that changed with them would make it jump), and a trial that stiffens a term
//! beyond what that step resolves blows up and is refused instead of fitted to the integrator.
//!
//! **Prior** ([`Prior`], optional): each term kept near its start unless the logs demand
//! otherwise, a Gaussian in the fit's coordinates weighted as one observation per window (its
//! module docs). `armid fit-servos` applies one by default.
//!
//! **σ.** A window's residuals are correlated in time (an error in its start state, or in a term,
//! moves the whole window), so the textbook `s² (JᵀJ)⁻¹`, which takes them independent, states
//! a σ many times too small (measured: 12 of them off on a simulated arm). The covariance is
//! the cluster-robust (sandwich) one, windows as clusters, independent of each other:
//! `(JᵀJ)⁻¹ [Σ_w (J_wᵀ r_w)(J_wᵀ r_w)ᵀ] (JᵀJ)⁻¹ · G/(G − 1)` over the `G` windows, mapped through
//! the log for positive terms. It needs windows well beyond the terms fitted. It does not hold
//! the integrator's bias: the rollouts' step against the robot's continuous time (measured on a
//! simulated `link2` servo arm logged at 0.1 ms, fitted at 1 ms: stiffness 0.13 % off, 6 σ).

pub mod command;
mod lm;
mod prior;
mod terms;

pub use lm::{FitError, Options, fit};
pub use prior::Prior;
pub use terms::{Term, TermKind};

use serde::{Deserialize, Serialize};

/// What a fit found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationFit {
    /// The terms fitted, in order.
    pub terms: Vec<Term>,
    /// Their values (units of [`TermKind`]).
    pub values: Vec<f64>,
    /// Their σ (same units).
    pub std: Vec<f64>,
    /// The cost (½ Σ r² over the windows' residuals, rad²) at the start.
    pub cost_start: f64,
    /// The cost at the end (the windows' residuals; without the prior's rows).
    pub cost: f64,
    /// The RMS residual at the start (rad or m).
    pub rms_start: f64,
    /// The RMS residual at the end (rad or m).
    pub rms: f64,
    /// Levenberg–Marquardt iterations taken.
    pub iterations: usize,
    /// Windows over all logs.
    pub windows: usize,
    /// The integrator steps per sample interval of every rollout of the fit.
    pub steps_per_sample: usize,
}

impl From<FitError> for crate::Error {
    /// A rollout's error as the crate states it; a term the model lacks or a log without a
    /// window as a numerical one.
    fn from(e: FitError) -> Self {
        match e {
            FitError::Rollout(r) => crate::Error::from(r),
            other => crate::Error::Numerical(other.to_string()),
        }
    }
}
