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
    /// A model rolled out on a log ([`sim::rollout`]).
    #[error(transparent)]
    Rollout(#[from] sim::rollout::RolloutError),
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
    /// A failure of the simulator's library (a run, a model, a rollout).
    #[error(transparent)]
    Sim(#[from] sim::Error),
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
    /// A parameter name that is not one of the project's ([`crate::param::ParamId`]).
    #[error("{at}: {source}")]
    Parameter {
        /// Where it was read (a file and its row).
        at: String,
        /// The name and the expected form.
        source: crate::param::ParseParamError,
    },
    /// A failure while working on one named thing (a population, a run directory, a part of a
    /// study): that thing, then the failure.
    #[error("{what}: {source}")]
    In {
        /// The population, run or part, as a user finds it (its path or its name).
        what: String,
        /// The failure.
        source: Box<Error>,
    },
    /// An estimator whose result lacks what its caller needs.
    #[error("{estimator} gave no {missing}")]
    Missing {
        /// The estimator.
        estimator: String,
        /// What it did not give (`torque model`, `identified model`).
        missing: &'static str,
    },
    /// No estimator gave what a command needs, each with its reason; nothing was written.
    #[error("{what}: no estimator {wanted}, nothing written ({})", reasons_text(.reasons))]
    NoEstimator {
        /// The experiment or log.
        what: String,
        /// What was needed of one (`applies`, `gave an estimate`, …).
        wanted: String,
        /// `(estimator, why not)`.
        reasons: Vec<(String, String)>,
    },
    /// A numerical method that cannot give an answer on these data (a singular system, too few
    /// samples, no convergence).
    #[error("{0}")]
    Numerical(String),
}

fn reasons_text(reasons: &[(String, String)]) -> String {
    let text: Vec<String> = (reasons.iter())
        .map(|(method, why)| format!("{method}: {why}"))
        .collect();
    text.join("; ")
}

impl Error {
    /// This failure, while working on `what` ([`Error::In`]).
    pub fn within(self, what: impl Into<String>) -> Error {
        Error::In {
            what: what.into(),
            source: Box::new(self),
        }
    }

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
