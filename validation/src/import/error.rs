//! What can be wrong with a recording, named where it is.

use std::path::PathBuf;

/// A recording, its URDF or its configuration that cannot be imported. Every variant names the
/// file, and the column, row or field where that applies.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file cannot be read.
    #[error("`{file}`: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a readable table or configuration.
    #[error("`{file}`: {message}")]
    Format {
        /// The file.
        file: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A column is missing, unknown, or unusable as a whole.
    #[error("`{file}`: column `{column}`: {problem}")]
    Column {
        /// The recording.
        file: PathBuf,
        /// The column.
        column: String,
        /// What is wrong and what is expected.
        problem: String,
    },
    /// A value at one row.
    #[error("`{file}`: column `{column}`, row {row}: {problem}")]
    Row {
        /// The recording.
        file: PathBuf,
        /// The column.
        column: String,
        /// Data row, 1-based (a CSV's line is one more: its header is line 1).
        row: usize,
        /// What is wrong and what is expected.
        problem: String,
    },
    /// A field of the configuration (TOML) or a command-line option.
    #[error("`{file}`: field `{field}`: {problem}")]
    Field {
        /// The configuration file, or `command line`.
        file: PathBuf,
        /// The field.
        field: String,
        /// What is wrong and what is expected.
        problem: String,
    },
    /// The recording's configuration.
    #[error(transparent)]
    Config(#[from] sim::dataset::recorded::ConfigError),
    /// The robot description.
    #[error(transparent)]
    Urdf(#[from] sim::urdf::UrdfError),
    /// Writing the run directory.
    #[error(transparent)]
    Dataset(#[from] sim::dataset::DatasetError),
}

impl ImportError {
    /// A command-line option's problem.
    pub(crate) fn command_line(field: &str, problem: String) -> Self {
        ImportError::Field {
            file: PathBuf::from("command line"),
            field: field.into(),
            problem,
        }
    }
}
