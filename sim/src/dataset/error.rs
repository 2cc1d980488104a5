//! What can go wrong reading or writing a run directory.

use std::path::{Path, PathBuf};

/// A run directory that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The output exists and replacing it was not asked for.
    #[error("output directory `{0}` already exists (pass --force to replace it)")]
    Exists(PathBuf),
    /// The run failed a validity gate; nothing was written.
    #[error("{0}; nothing written to `{1}` (pass --keep-invalid to write it marked invalid)")]
    Invalid(Box<crate::invalid::Invalid>, PathBuf),
    /// A run marked invalid (written with `--keep-invalid`) was given to a reader that needs a
    /// valid one.
    #[error("`{1}`: {0}; runs marked invalid (written with --keep-invalid) are not read as data")]
    MarkedInvalid(Box<crate::invalid::Invalid>, PathBuf),
    /// A file's SHA-256 differs from its checksum list's ([`crate::dataset::checksum`]).
    #[error(
        "`{path}`: its SHA-256 differs from the one in `{list}`: the file is corrupted, \
         truncated or was changed after it was written"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The checksum list.
        list: PathBuf,
    },
    /// File-system failure.
    #[error("`{path}`: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Parquet/Arrow/JSON failure.
    #[error("`{path}`: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A column is missing, of the wrong type, or its content is inconsistent (reading).
    #[error("`{path}`: column `{column}`: expected {expected}")]
    Column {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What was expected.
        expected: String,
    },
}

/// Maps an I/O error on `path`.
pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_owned(),
        source,
    }
}
