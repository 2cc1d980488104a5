//! Output files written whole or not at all: a temporary sibling renamed into place, so an
//! interrupted or failed write leaves the old file (or nothing), never a partial one.

use crate::Error;

/// Writes `text` to `path` whole or not at all (a temporary sibling renamed into place).
pub fn write_atomic(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("partial-{}", std::process::id()));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Writes the directory `dir` whole or not at all through `write`, which fills the temporary
/// sibling directory it is given; that replaces `dir` when `write` succeeds and is removed when
/// it fails.
pub fn write_dir_atomic(
    dir: &std::path::Path,
    write: impl FnOnce(&std::path::Path) -> crate::Result<()>,
) -> crate::Result<()> {
    let name = dir
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let work = dir.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let made = std::fs::create_dir_all(&work).map_err(Error::io(&work));
    let result = made.and_then(|()| write(&work)).and_then(|()| {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(Error::io(dir))?;
        }
        std::fs::rename(&work, dir).map_err(Error::io(dir))
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&work);
    }
    result
}

/// Writes `path` whole or not at all through `draw`, which renders into the temporary sibling
/// path it is given (same extension, so image backends pick the same format); renamed into place
/// when `draw` succeeds, removed when it fails.
pub fn write_atomic_with(
    path: &std::path::Path,
    draw: impl FnOnce(&std::path::Path) -> crate::Result<()>,
) -> crate::Result<()> {
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{}.partial-{name}", std::process::id()));
    let result = draw(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(Error::io(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_or_interrupted_write_leaves_the_old_file_or_nothing() {
        let dir = std::env::temp_dir().join(format!("files-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plot.png");
        write_atomic_with(&path, |tmp| {
            assert_eq!(tmp.extension().unwrap(), "png");
            std::fs::write(tmp, "first").map_err(Error::io(tmp))
        })
        .unwrap();
        // A render that fails after writing part of its file: the old file stays, no debris.
        let e = write_atomic_with(&path, |tmp| {
            std::fs::write(tmp, "half").unwrap();
            Err(Error::Numerical("the renderer failed".into()))
        });
        assert_eq!(e.unwrap_err().to_string(), "the renderer failed");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["plot.png"]);
        write_atomic(&dir.join("a.md"), "text").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a.md")).unwrap(), "text");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
