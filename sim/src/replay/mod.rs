//! `sim replay`: Rapier plays a recorded run's joint trajectory on a model, and the torque the
//! model needs is compared with the torque the robot measured — the sim-to-real gap of that
//! model, the same figure `validation estimate` reports as `torque_nrms` for an estimate.
//!
//! The replay is an ordinary scenario ([`scenario`]): the model (the maker's URDF or one
//! `validation estimate --urdf-out` wrote), the run's locked joints held, every joint
//! prescribed by [`crate::profile::RecordedMotion`] (the signal chain's filtered `q, q̇, q̈`),
//! sampled on the recording's grid. Its run directory is written like any other, with the
//! scenario text and the residual ([`crate::dataset::manifest::Replayed`]) in its manifest.
//!
//! **Friction.** Without a drive-train file the model's own joint friction applies (a URDF's
//! `<dynamics>`). With one ([`DriveTrain`]), the drive terms it states (Coulomb, viscous,
//! offset, armature, through a coupled transmission) stand for the friction: the joints'
//! URDF friction is switched off (each joint states zero `coulomb_viscous` friction in the
//! scenario), the run's `tau` holds the links' torque, and the terms are added to it where
//! it is compared with the recording. They are not simulated as forces because every joint is
//! prescribed: a prescribed joint's torque is read, not integrated, so adding them after the
//! readout is the same and keeps the run's `RNEA = tau + tau_friction` contract to rounding.
//!
//! **Residual** ([`residual`]): over the recording's settled samples (those its zero-phase
//! filter has settled on, as the estimators read them), or their last part with `--holdout F`
//! (the cut at the same time as `validation estimate --holdout F`).

pub mod residual;
mod scenario;

use std::path::{Path, PathBuf};

pub use crate::drive_train::{DriveTerms, DriveTrain, DriveTrainError};
pub use scenario::scenario;

use crate::dataset::DatasetError;
use crate::dataset::manifest::Replayed;
use crate::scenario::ScenarioError;

/// What to replay, on what, and where (also the `sim replay` command's arguments).
#[derive(Clone, Debug, clap::Args)]
pub struct Options {
    /// The recorded run directory (`validation import` output).
    pub run: PathBuf,
    /// The model's URDF (default: the one the run was imported with, as its manifest names it).
    #[arg(long)]
    pub urdf: Option<PathBuf>,
    /// Drive terms added to the model's torque (`DRIVES.toml`, [`DriveTrain`]); the model's
    /// own joint friction is then switched off.
    #[arg(long)]
    pub drives: Option<PathBuf>,
    /// Compare on the last FRACTION of the settled samples only (as `validation estimate
    /// --holdout FRACTION` validates).
    #[arg(long)]
    pub holdout: Option<f64>,
    /// The run directory to write (atomically).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// A replay that cannot be made, with where and why.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The recorded run, or the output, could not be read or written.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The replay's scenario is refused (the model, the recording's span or limits).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The drive-train file is refused.
    #[error(transparent)]
    DriveTrain(#[from] DriveTrainError),
    /// The replay failed a validity gate: nothing is written.
    #[error("replay of `{run}`: {why}; nothing written")]
    Invalid {
        /// The recorded run.
        run: PathBuf,
        /// The gate's message.
        why: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    Option(String),
}

/// Replays `options.run`, writes the run directory and returns the residual.
pub fn replay(
    options: &Options,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Replayed, ReplayError> {
    if options.out.exists() && !options.force {
        return Err(DatasetError::Exists(options.out.clone()).into());
    }
    let (header, recorded) = crate::recorded::read(&options.run)?;
    let urdf = options
        .urdf
        .clone()
        .unwrap_or_else(|| PathBuf::from(&header.urdf.path));
    let drives = match &options.drives {
        Some(p) => Some(DriveTrain::read(p, header.joints.len())?),
        None => None,
    };
    let scenario = scenario(&options.run, &header, &urdf, drives.is_some())?;
    let mut run = crate::simulate(&scenario, progress);
    if let Some(invalid) = &run.manifest.invalid {
        return Err(ReplayError::Invalid {
            run: options.run.clone(),
            why: invalid.to_string(),
        });
    }
    let window = residual::window(&recorded.t, header.signal.settling, options.holdout)?;
    let mut replayed =
        residual::compare(&recorded, &header, &run.recording, drives.as_ref(), window);
    replayed.recording = absolute(&options.run).display().to_string();
    replayed.recording_joints_sha256 =
        crate::dataset::checksum::digest(&options.run.join(crate::dataset::columns::JOINTS_FILE))?;
    replayed.drive_train = options.drives.as_ref().map(|p| p.display().to_string());
    run.manifest.replay = Some(replayed.clone());
    crate::dataset::write_run(&options.out, &run.recording, &run.manifest, options.force)?;
    Ok(replayed)
}

/// `p` made absolute against the current directory (the scenario text names paths so).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_owned())
}
