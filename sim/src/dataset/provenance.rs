//! What a run's manifest records of how it was made and checked: the integrator's settings,
//! Rapier's consistency with the readings, and the checks against the inverse dynamics. The
//! simulation and the checks fill them ([`crate::simulation`], [`crate::checks`]); they are
//! here, with the manifest, so that the run directory sits below what writes it.

use serde::{Deserialize, Serialize};

/// Integrator settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Integrator {
    /// How Rapier integrates the motion ([`crate::simulation`]).
    pub method: String,
    /// Step (s).
    pub dt: f64,
    /// Rapier substeps per step.
    pub num_solver_iterations: usize,
    /// PGS iterations per substep (for velocity constraints; the shipped models have none).
    pub num_internal_pgs_iterations: usize,
    /// Integrator steps per output sample.
    pub steps_per_sample: usize,
}

/// Rapier's discrete world against the recorded continuous-time readings
/// ([`crate::readout`]), maxima over the run's samples: what the readings would have been had
/// they been read from the engine's discrete velocity changes, and how far its bodies drift off
/// the joint coordinates.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RapierConsistency {
    /// Largest distance between a centroid as Rapier holds it and as the forward kinematics of
    /// the recorded `q` places it (m): the joint constraints' drift.
    pub max_centroid_drift: f64,
    /// Largest rotation angle between a body's orientation in Rapier and by the forward
    /// kinematics of `q` (rad).
    pub max_rotation_drift: f64,
    /// Largest `|(q̇_{n+1} − q̇_n)/dt − q̈|` over samples and joints, divided by the largest
    /// `|q̈|` of the same joint kind: the discrete accelerations agree to first order in `dt`.
    pub qdd_rel_difference: f64,
    /// Largest difference between the joint wrenches recovered from Rapier's velocity changes
    /// ([`crate::wrench::recover`]) and the recorded ones, divided by the largest recorded force
    /// (forces) or moment (moments), the larger of the two: first order in `dt`.
    pub wrench_rel_difference: f64,
}

/// Checks of a run against the continuous-time inverse dynamics ([`crate::dynamics`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    /// Per joint (dataset order): `max_t |RNEA(q, q̇, q̈) − (tau + tau_friction)|` divided by
    /// `max_t |tau + tau_friction|` (or by the largest joint's peak of the same kind where the
    /// joint's own peak is below 1e-6 of it).
    pub rnea_rel_residual: Vec<f64>,
    /// The largest of them.
    pub rnea_max_rel_residual: f64,
    /// Largest deviation of a prescribed joint from its profile (rad or m).
    pub max_tracking_error: f64,
    /// Largest deviation of a servo joint from its reference (rad or m): the controllers'
    /// tracking error; absent without servo joints.
    #[serde(default)]
    pub max_servo_tracking_error: Option<f64>,
    /// For periodic excitation: how far the last period repeats the one before.
    pub steady_state: Option<SteadyState>,
    /// How far Rapier's discrete world is from the recorded readings (absent in runs written
    /// before the readings were evaluated from the dynamics).
    #[serde(default)]
    pub rapier: Option<RapierConsistency>,
}

/// Steady-state check of a periodically excited run: the last period against the one before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteadyState {
    /// Excitation period (s).
    pub period: f64,
    /// `max_t |q(t) − q(t − period)|` over the last period and all joints (rad or m).
    pub max_period_difference: f64,
    /// The same divided by the largest `|q − mean(q)|` of the last period.
    pub relative: f64,
    /// Whether `relative ≤ 1e-6`.
    pub steady: bool,
}
