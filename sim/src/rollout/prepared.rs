//! A run directory's log and the model it is rolled out with, made ready: what `sim rollout` and
//! a fit by simulation start from.

use std::path::{Path, PathBuf};

use super::Model;
use super::driven::{logged, with_drives};
use super::window::{Logged, RolloutError};
use crate::drive_train::DriveTrain;
use crate::reading::Measurements;

/// A run's log with the model to roll out on it.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The log (offsets of the drive train taken off its torques).
    pub log: Logged,
    /// The model: the file's arm and its position servos (MJCF `<position>`), the drive train's
    /// terms and servos in place of the file's where one is given or the file states one.
    pub model: Model,
    /// The model file.
    pub model_path: PathBuf,
}

/// The run in `run` (recorded or simulated) with `model` (default: the file a recorded run was
/// imported with) and the drive train `drives` (`drives.toml`; default: the MJCF file's own).
pub fn prepare(
    run: &Path,
    model: Option<&Path>,
    drives: Option<&Path>,
) -> Result<Prepared, crate::Error> {
    let (measurements, imported_with, locks) = read(run)?;
    let model_path = match (model, imported_with) {
        (Some(m), _) => m.to_path_buf(),
        (None, Some(u)) => PathBuf::from(u),
        (None, None) => return Err(option("--model", "a model file for a simulated run").into()),
    };
    let mut log = logged(&measurements);
    let (chain, stated, servos) = if crate::mjcf::is_mjcf(&model_path.display().to_string()) {
        let read = crate::mjcf::read(&model_path, &locks)?;
        (read.chain, read.drives, read.servos)
    } else {
        (
            crate::urdf::read_named(&model_path, &locks)?.0,
            None,
            Vec::new(),
        )
    };
    let mut rolled = Model {
        servos,
        ..Model::from(chain)
    };
    let drives = match drives {
        Some(p) => Some(DriveTrain::read(p, log.q.len())?),
        None => stated,
    };
    if let Some(d) = &drives {
        with_drives(&mut rolled, &mut log, d);
    }
    Ok(Prepared {
        log,
        model: rolled,
        model_path,
    })
}

/// An unusable command-line option.
pub(super) fn option(option: &str, expected: &str) -> RolloutError {
    RolloutError::Option {
        option: option.into(),
        expected: expected.into(),
    }
}

/// The run's measurements (a recorded run's settled samples), the model it was imported with
/// and its locks.
fn read(dir: &Path) -> Result<(Measurements, Option<String>, crate::urdf::Locks), crate::Error> {
    if crate::reading::recorded::is_recorded(dir)? {
        let run = crate::reading::recorded::read_recorded(dir)?;
        let locks = run.manifest.config.lock.clone();
        Ok((run.measurements, Some(run.manifest.urdf.path), locks))
    } else {
        let run = crate::reading::read_run(dir)?;
        Ok((run.measurements, None, Default::default()))
    }
}
