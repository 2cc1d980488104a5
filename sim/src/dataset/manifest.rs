//! `manifest.json`: what produced a run, with which settings, and the run's own checks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::provenance::{Checks, Integrator, RapierConsistency, SteadyState};
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
    /// `[[population.motion]]` ([`crate::scenario::population::motion`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motion_family: Option<super::motion_family::FamilyId>,
    /// The factor on every white noise of the run's readings, for an arm of a population with
    /// `noise_scale` ([`crate::measurement::scale_white_noise`]; `noise` and the arm's
    /// scenario text state the scaled levels); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_scale: Option<f64>,
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
