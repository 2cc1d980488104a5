//! Directories written whole or not at all.

use std::path::{Path, PathBuf};

use super::{DatasetError, io};

/// Writes the directory `out` whole or not at all: `fill` writes its files into a temporary
/// sibling (`.<name>.partial-<host>-<pid>`), which replaces `out` only when `fill` succeeds; on
/// error nothing is left behind. With `force`, an existing `out` is replaced.
pub fn write_dir(
    out: &Path,
    force: bool,
    fill: impl FnOnce(&Path) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    if out.exists() && !force {
        return Err(DatasetError::Exists(out.to_owned()));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    let prefix = format!(".{name}.partial-");
    super::temporary::remove_stale(&parent, &prefix);
    let tmp = parent.join(super::temporary::name(&prefix));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir(&tmp).map_err(io(&tmp))?;
    let result = (|| {
        fill(&tmp)?;
        if out.exists() {
            std::fs::remove_dir_all(out).map_err(io(out))?;
        }
        std::fs::rename(&tmp, out).map_err(io(out))
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}
