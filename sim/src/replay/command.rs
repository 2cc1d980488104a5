//! `sim replay`'s options and the replay itself: the recording read, its scenario simulated,
//! the residual computed and the run directory written.

use std::path::PathBuf;

use super::scenario::{absolute, scenario};
use super::{DriveTrain, ReplayError, residual};
use crate::dataset::DatasetError;
use crate::dataset::manifest::Replayed;

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

/// Replays `options.run`, writes the run directory and returns the residual.
pub fn replay(
    options: &Options,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Replayed, ReplayError> {
    if options.out.exists() && !options.force {
        return Err(DatasetError::Exists(options.out.clone()).into());
    }
    let (header, recorded) = crate::dataset::recorded::read(&options.run)?;
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
