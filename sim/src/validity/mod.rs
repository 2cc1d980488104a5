//! Validity gates of a run: a dataset that fails its own physics checks must not look like a good
//! one. Every run is checked after simulation ([`validate`]); the first failure is recorded in
//! the manifest ([`crate::dataset::Manifest::invalid`]) and the writers refuse such a run unless
//! asked to keep it ([`crate::dataset::write_run_keeping_invalid`], `sim run --keep-invalid`).
//!
//! The gates, in order, each naming the first bad sample, its time and the joint, body or
//! column; which apply depends on how each joint is driven:
//!
//! | check | applies to | fails when | tolerance |
//! |---|---|---|---|
//! | `dynamics` | every run | the readings cannot be evaluated at the engine's state (its joint-space inertia is not positive definite: a non-finite state, a free joint carrying no mass); the run stops at that sample | — |
//! | `non_finite` | every run | a recorded joint, body or noisy value is NaN or infinite | — |
//! | `precision` | every run | a world position is so far from the origin that `f64` no longer resolves the model: `ε·|p| / L` with `L` the largest joint-point-to-centroid distance of the model (1 m if all are 0) | [`PRECISION_TOLERANCE`] |
//! | `inverse_dynamics` | every run | `|RNEA(q, q̇, q̈) − (tau + tau_friction)|` of a joint, relative to its peak as [`crate::checks::rnea_residual`] normalizes it | [`RNEA_TOLERANCE`] |
//! | `newton_euler` | every run | a body's recorded `f`, `n` (world, at `O_i`), centroid acceleration, `ω`, `ω̇` (body frame) and pose break `m (a − g) = f_i − f_{i+1}` or, about the centroid in the body frame, `I ω̇ + ω × I ω = Rᵀ(n_i − n_{i+1} + (O_i − c) × f_i − (O_{i+1} − c) × f_{i+1})`, relative to the body's largest term | [`NEWTON_EULER_TOLERANCE`] |
//! | `tracking` | prescribed joints | the joint leaves its profile (rad or m) | [`TRACKING_TOLERANCE`] |
//! | `integration` | torque, servo and free joints | the engine's velocity change over a step, `(q̇_{n+1} − q̇_n)/dt`, differs from the continuous-time `q̈_n` at the recorded state by more than this fraction of the largest `|q̈|` of the joint's kind: the step does not resolve the motion | [`INTEGRATION_TOLERANCE`] |
//! | `steady_state` | scenarios with `time.steady_state = true` | the last excitation period differs from the one before, relative to the last period's amplitude ([`crate::checks::steady_state`]) | [`STEADY_TOLERANCE`] |
//!
//! The recorded columns are evaluated from the dynamics at the recorded state, so a healthy run
//! sits at rounding (residuals 1e-16 … 1e-13 relative, tracking 1e-19); those tolerances leave
//! six orders of magnitude and catch what the engine cannot represent: a state driven to huge
//! velocities by unbounded torques (where the explicit integration of the gyroscopic terms
//! diverges), or a prescribed joint the kinematic update can no longer follow. The integration
//! difference is first order in the step (1e-12 … 1e-2 in the shipped scenarios): above 5 % the
//! trajectory is no longer a solution of the equations of motion the readings satisfy, and
//! estimators that differentiate or integrate the record would read a different system.
//!
//! Engine limits: Rapier caps body speeds at 400 m/s by default (raised to `f64::MAX` in
//! [`crate::simulation`]) and the angular speed of rigid bodies at π/4 per step unless fast
//! rotation is allowed (allowed on every link; the multibody links are integrated in joint
//! coordinates, where no cap applies). Neither can bind, so no gate tests for them; what the
//! engine cannot integrate shows in the `integration` and `non_finite` gates.

use crate::checks::{Checks, Residuals};
use crate::recording::Recording;
use crate::scenario::Scenario;
use crate::simulation::StepDifferences;

mod gates;
mod tolerance;

pub use crate::checks::STEADY_TOLERANCE;
pub use crate::invalid::{Gate, Invalid};
pub use tolerance::{INTEGRATION_TOLERANCE, NEWTON_EULER_TOLERANCE, TRACKING_TOLERANCE};
pub(crate) use tolerance::{PRECISION_TOLERANCE, RNEA_TOLERANCE};

/// What the gates read besides the recording: the inverse-dynamics residuals and the manifest's
/// checks (as computed once for the manifest), and the engine's step differences.
pub struct Evidence<'a> {
    /// [`crate::checks::recording_residuals`].
    pub residuals: &'a Residuals,
    /// [`crate::simulation::Simulated::steps`].
    pub steps: &'a StepDifferences,
    /// [`crate::checks::checks`].
    pub checks: &'a Checks,
}

/// The failure of a run stopped at a sample whose readings could not be evaluated.
pub(crate) fn unevaluable(run: &str, u: crate::simulation::Unevaluable) -> Invalid {
    Invalid {
        run: run.to_string(),
        gate: Gate::Dynamics,
        place: u.reason,
        sample: u.sample,
        time: u.time,
        value: f64::NAN,
        tolerance: 0.0,
    }
}

/// Runs the gates on a recording of `scenario`; the first failure, if any.
pub fn validate(scenario: &Scenario, rec: &Recording, evidence: &Evidence) -> Result<(), Invalid> {
    gates::non_finite(rec)?;
    gates::precision(rec)?;
    gates::inverse_dynamics(rec, evidence.residuals)?;
    gates::newton_euler(scenario, rec)?;
    gates::tracking(scenario, rec)?;
    gates::integration(scenario, rec, evidence.steps)?;
    gates::steady_state(scenario, rec, evidence.checks)
}
