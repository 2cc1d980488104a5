//! The crate's error: what reaches a caller of the command line or of a whole operation
//! (simulate and write, a population, a replay, a model export). The module errors it gathers
//! name the file, field, joint or sample themselves; they convert into it with `?`.

/// A failure, with where and why.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scenario file ([`crate::scenario::ScenarioError`]).
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
    /// A robot description ([`crate::urdf::UrdfError`]).
    #[error(transparent)]
    Urdf(#[from] crate::urdf::UrdfError),
    /// A model ([`crate::model::ModelError`]).
    #[error(transparent)]
    Model(#[from] crate::model::ModelError),
    /// A run or population directory ([`crate::dataset::DatasetError`]).
    #[error(transparent)]
    Dataset(#[from] crate::dataset::DatasetError),
    /// A rollout ([`crate::rollout::RolloutError`]).
    #[error(transparent)]
    Rollout(#[from] crate::rollout::RolloutError),
    /// A population run ([`crate::batch::BatchError`]).
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
    /// Verifying a population ([`crate::dataset::verify::VerifyError`]).
    #[error(transparent)]
    Verify(#[from] crate::dataset::verify::VerifyError),
    /// A drive-train file ([`crate::drive_train::DriveTrainError`]).
    #[error(transparent)]
    DriveTrain(#[from] crate::drive_train::DriveTrainError),
    /// A replay ([`crate::replay::ReplayError`]).
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    /// A run that failed a validity gate ([`crate::invalid::Invalid`]).
    #[error(transparent)]
    Invalid(#[from] Box<crate::invalid::Invalid>),
    /// A file that cannot be read or written.
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A command-line request that cannot be carried out, and why.
    #[error("{0}")]
    Command(String),
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
