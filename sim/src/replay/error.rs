//! What can keep a replay from being made.

use std::path::PathBuf;

use crate::dataset::DatasetError;
use crate::drive_train::DriveTrainError;
use crate::scenario::ScenarioError;

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
