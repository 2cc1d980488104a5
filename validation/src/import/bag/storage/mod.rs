//! A ROS 2 bag's storage: where its messages are, and each message's topic, type, log time and
//! serialized bytes, whatever the storage plugin wrote.
//!
//! A bag is a file, `.mcap` ([`mcap`]: `ros2 bag record -s mcap`, the default from Iron on) or
//! `.db3` ([`sqlite3`]: rosbag2's sqlite3 plugin, the default of Humble), or the directory
//! `ros2 bag record` writes: its `metadata.yaml` and one or more storage files of one plugin
//! (`<name>_0.db3`, `<name>_1.db3`, … where the recording was split by size or duration), read in
//! the order of that index. A directory is a bag where it holds storage files; `metadata.yaml`
//! itself is not needed (a recording cut short never wrote it, and its storage files still
//! hold the messages). Files compressed whole (`.db3.zstd`, `.mcap.zstd`: rosbag2's `file`
//! compression mode) are refused with the command that decompresses them.

pub mod mcap;
pub mod sqlite3;
mod topic;

pub use topic::{Topic, Visitor};

use std::path::{Path, PathBuf};

use super::super::ImportError;

/// The extensions of the storage files read.
const EXTENSIONS: [&str; 2] = ["mcap", "db3"];

/// Whether `path` is a bag: a storage file by its extension, or a directory holding some.
pub fn is_bag(path: &Path) -> bool {
    if path.is_dir() {
        return files(path).is_ok_and(|f| !f.is_empty());
    }
    extension(path).is_some() || compressed(path)
}

/// The storage files of the bag at `path`, in reading order.
pub fn files(path: &Path) -> Result<Vec<PathBuf>, ImportError> {
    if !path.is_dir() {
        if compressed(path) {
            return Err(decompress_first(path));
        }
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|source| ImportError::Io {
        file: path.to_owned(),
        source,
    })?;
    let mut found = Vec::new();
    for entry in entries {
        let file = entry
            .map_err(|source| ImportError::Io {
                file: path.to_owned(),
                source,
            })?
            .path();
        if compressed(&file) {
            return Err(decompress_first(&file));
        }
        if let Some(ext) = extension(&file) {
            found.push((split_index(&file), ext, file));
        }
    }
    found.sort();
    if let Some((_, _, other)) = found.iter().find(|(_, ext, _)| *ext != found[0].1) {
        return Err(ImportError::Format {
            file: path.to_owned(),
            message: format!(
                "storage files of two plugins (`{}` and `{}`): expected the files of one \
                 recording",
                found[0].2.display(),
                other.display()
            ),
        });
    }
    Ok(found.into_iter().map(|(_, _, file)| file).collect())
}

/// Hands every message of the storage file `file` to `visit`.
pub fn visit(file: &Path, visit: &mut Visitor<'_>) -> Result<(), ImportError> {
    match extension(file) {
        Some("db3") => sqlite3::visit(file, visit),
        _ => mcap::visit(file, visit),
    }
}

/// The storage extension of `path`, if it has one of [`EXTENSIONS`].
fn extension(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?;
    EXTENSIONS.into_iter().find(|e| ext == *e)
}

/// Whether `path` is a storage file compressed whole (`.db3.zstd`, `.mcap.zstd`).
fn compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zstd")
        && path
            .file_stem()
            .is_some_and(|s| extension(Path::new(s)).is_some())
}

/// The refusal of a storage file compressed whole.
fn decompress_first(file: &Path) -> ImportError {
    ImportError::Format {
        file: file.to_owned(),
        message: "a storage file compressed whole (rosbag2's `file` compression mode): \
                  decompress the bag first (`ros2 bag decompress`, or `zstd -d` on each file)"
            .into(),
    }
}

/// The split index of a storage file (`rec_12.db3` → 12; none: 0), so that `_10` follows `_9`.
fn split_index(file: &Path) -> u64 {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem.rsplit_once('_')
        .and_then(|(_, k)| k.parse().ok())
        .unwrap_or(0)
}
