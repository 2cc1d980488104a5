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

use serde::{Deserialize, Serialize};

use crate::checks::{Checks, Residuals};
use crate::recording::Recording;
use crate::scenario::Scenario;
use crate::simulation::StepDifferences;

mod gates;

/// Largest relative inverse-dynamics residual of a valid run.
pub const RNEA_TOLERANCE: f64 = 1e-9;
/// Largest relative Newton–Euler residual of a body's recorded columns in a valid run.
pub const NEWTON_EULER_TOLERANCE: f64 = 1e-9;
/// Largest deviation of a prescribed joint from its profile in a valid run (rad or m).
pub const TRACKING_TOLERANCE: f64 = 1e-9;
/// Largest relative resolution of a world position in a valid run (see the module docs).
pub const PRECISION_TOLERANCE: f64 = 1e-9;
/// Largest relative difference between the engine's step and the recorded acceleration of a
/// joint that the engine integrates.
pub const INTEGRATION_TOLERANCE: f64 = 0.05;
/// Largest relative period-to-period difference of a run that must be at steady state.
pub const STEADY_TOLERANCE: f64 = 1e-6;

/// Which gate failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A NaN or infinite value.
    NonFinite,
    /// The recorded forces disagree with the inverse dynamics of the recorded motion.
    InverseDynamics,
    /// A prescribed joint left its profile.
    Tracking,
    /// World positions too far out for `f64` to resolve the model.
    Precision,
    /// The engine's step does not resolve the motion.
    Integration,
    /// A run that must end at steady state does not.
    SteadyState,
    /// The readings cannot be evaluated at the engine's state.
    Dynamics,
    /// A body's recorded wrenches and motion break the Newton–Euler equations.
    NewtonEuler,
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Gate::NonFinite => "non_finite",
            Gate::InverseDynamics => "inverse_dynamics",
            Gate::Tracking => "tracking",
            Gate::Precision => "precision",
            Gate::Integration => "integration",
            Gate::SteadyState => "steady_state",
            Gate::Dynamics => "dynamics",
            Gate::NewtonEuler => "newton_euler",
        })
    }
}

/// The first failed gate of a run: where, when, by how much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
pub struct Invalid {
    /// Run id.
    pub run: String,
    /// The gate.
    pub gate: Gate,
    /// The joint (`joint 2 (O2)`) or body column (`body 3 f`); for `dynamics`, why the
    /// readings cannot be evaluated.
    pub place: String,
    /// First bad sample.
    pub sample: usize,
    /// Its time (s).
    pub time: f64,
    /// The offending value (the residual, the error, or the non-finite value itself; JSON
    /// writes a non-finite one as the string `NaN`, `inf` or `-inf`).
    #[serde(with = "lossless")]
    pub value: f64,
    /// The gate's tolerance (0 for `non_finite`).
    pub tolerance: f64,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (run, gate, sample, time) = (&self.run, self.gate, self.sample, self.time);
        if gate == Gate::Dynamics {
            return write!(
                f,
                "run `{run}` is invalid: check `{gate}` failed at sample {sample} (t = {time} s): \
                 {}; the run stops there",
                self.place
            );
        }
        write!(
            f,
            "run `{run}` is invalid: check `{gate}` failed at {}, sample {sample} (t = {time} s): ",
            self.place
        )?;
        match gate {
            Gate::NonFinite => write!(f, "the value is {}", self.value),
            _ => write!(f, "{:e} > tolerance {:e}", self.value, self.tolerance),
        }
    }
}

/// A float in JSON whatever its value: finite ones as numbers, the others as strings.
mod lossless {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            Repr::Number(*v)
        } else {
            Repr::Text(v.to_string())
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

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
pub fn unevaluable(run: &str, u: crate::simulation::Unevaluable) -> Invalid {
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
