//! `manifest.json`: what produced a run, with which settings, and the run's own checks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Chain;

/// Version of the run-directory layout.
pub const FORMAT_VERSION: u32 = 1;

/// The manifest of a run directory.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Layout version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Run identifier (the scenario name).
    pub run_id: String,
    /// The scenario file's path as given, if any.
    pub scenario_path: Option<String>,
    /// The scenario file's text, verbatim.
    pub scenario: String,
    /// The model, in the zero-configuration description of [`crate::model`].
    pub model: Chain,
    /// Seed.
    pub seed: u64,
    /// Drive gain `K` of every joint (dataset order), N·m/A or N/A: `tau = K · i`.
    #[serde(default)]
    pub motor_gains: Vec<f64>,
    /// Integrator settings.
    pub integrator: Integrator,
    /// Output sample period (s).
    pub sample_period: f64,
    /// Number of samples.
    pub samples: usize,
    /// Engine and format crate versions.
    pub engine: BTreeMap<String, String>,
    /// Noise model of the measured columns (`null`: no measured columns).
    pub noise: Option<serde_json::Value>,
    /// How each recorded column is obtained (column group → method), see [`crate::readout`].
    #[serde(default)]
    pub columns: BTreeMap<String, String>,
    /// The motion family the run's arm drew, for an arm of a population with
    /// `[[population.motion]]` ([`crate::population::motion`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motion_family: Option<crate::population::motion::FamilyId>,
    /// Consistency checks computed when the run was written.
    pub checks: Checks,
    /// The first validity gate the run failed ([`crate::validity`]); absent for a valid run (the
    /// writers refuse an invalid one unless asked to keep it, which also writes `valid: false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<crate::validity::Invalid>,
    /// `false` for a run kept although invalid; absent (true) otherwise.
    #[serde(default = "valid_default", skip_serializing_if = "is_valid")]
    pub valid: bool,
    /// For a run made by `sim replay`: the recording it plays and the torque residual against
    /// it ([`crate::replay`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Replayed>,
}

/// A replay's comparison with the recording it plays ([`crate::replay`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replayed {
    /// The recorded run directory.
    pub recording: String,
    /// The SHA-256 of its `joints.parquet`.
    pub recording_joints_sha256: String,
    /// The drive-train file whose terms were added to the simulated torque, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive_train: Option<String>,
    /// The samples `[from, to)` the residual covers (the recording's settled samples, or the
    /// last part of them with `--holdout`).
    pub window: [usize; 2],
    /// `sqrt(Σ(τ̂ − τ)² / Σ τ²)` over every joint and sample of the window: `τ` the torque as
    /// recorded, `τ̂` the replay's (plus the drive terms).
    pub torque_nrms: f64,
    /// The same over the (sample, joint) pairs whose joint moves at 0.05 rad/s (m/s) or faster.
    pub torque_nrms_moving: f64,
    /// Per joint, in chain order: its URDF name and NRMS.
    pub torque_nrms_joints: Vec<(String, f64)>,
}

fn valid_default() -> bool {
    true
}

fn is_valid(v: &bool) -> bool {
    *v
}

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

/// The engine and format versions compiled into this binary.
pub fn engine_versions() -> BTreeMap<String, String> {
    [
        ("sim", env!("CARGO_PKG_VERSION")),
        ("rapier3d-f64", env!("SIM_RAPIER_VERSION")),
        ("parquet", env!("SIM_PARQUET_VERSION")),
        ("arrow-array", env!("SIM_ARROW_VERSION")),
        ("nalgebra", env!("SIM_NALGEBRA_VERSION")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}
