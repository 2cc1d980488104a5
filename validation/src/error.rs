//! The crate's error: every failure of an estimator, a study, a report or an import reaches the
//! caller as [`Error`], naming the file, the field or the quantity and what was expected.
//! The module errors it gathers ([`crate::import::ImportError`], [`crate::estimate::EstimateError`],
//! [`crate::study::file::StudyError`], the simulator's
//! dataset, scenario and replay errors) convert into it with `?`.

use std::path::PathBuf;

/// A failure, with where and why.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a run or population directory.
    #[error(transparent)]
    Dataset(#[from] sim::dataset::DatasetError),
    /// A scenario file.
    #[error(transparent)]
    Scenario(#[from] sim::scenario::ScenarioError),
    /// A population could not be generated.
    #[error(transparent)]
    Batch(#[from] sim::batch::BatchError),
    /// A replay of a recording.
    #[error(transparent)]
    Replay(#[from] sim::replay::ReplayError),
    /// A model that cannot be built or written (URDF export, identified parameters).
    #[error(transparent)]
    Model(#[from] sim::model::ModelError),
    /// A robot description that cannot be read or written.
    #[error(transparent)]
    Urdf(#[from] sim::urdf::UrdfError),
    /// Importing a recording.
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    /// An estimator that failed.
    #[error(transparent)]
    Estimate(#[from] crate::estimate::EstimateError),
    /// A study file.
    #[error(transparent)]
    Study(#[from] crate::study::file::StudyError),
    /// A file that cannot be read or written.
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file whose content is not what was expected (a saved network, a JSON result).
    #[error("`{path}`: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what was expected.
        message: String,
    },
    /// A figure that could not be drawn.
    #[error("figure `{path}`: {message}")]
    Plot {
        /// The image file.
        path: PathBuf,
        /// The drawing backend's message.
        message: String,
    },
    /// An argument or input out of its domain.
    #[error("{what}: expected {expected}")]
    Invalid {
        /// The argument, option or quantity.
        what: String,
        /// What was expected (and what was found).
        expected: String,
    },
    /// An estimator name the registry does not hold.
    #[error(
        "no estimator `{name}`; expected one of {known:?} (`armid estimators` lists them with \
         what each needs)"
    )]
    UnknownEstimator {
        /// The name asked for.
        name: String,
        /// The registry's names.
        known: Vec<String>,
    },
    /// Data or a model that a method cannot use, and why (a missing excitation, too short a
    /// record, a prior of another arm): the reason an estimator does not apply.
    #[error("{0}")]
    Data(String),
    /// A numerical method that cannot give an answer on these data (a singular system, too few
    /// samples, no convergence).
    #[error("{0}")]
    Numerical(String),
}

impl Error {
    /// An [`Error::Io`] on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// An [`Error::Plot`] on `path`.
    pub fn plot(path: impl Into<PathBuf>) -> impl FnOnce(String) -> Error {
        let path = path.into();
        move |message| Error::Plot { path, message }
    }

    /// An [`Error::Invalid`].
    pub fn invalid(what: impl Into<String>, expected: impl Into<String>) -> Error {
        Error::Invalid {
            what: what.into(),
            expected: expected.into(),
        }
    }
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
