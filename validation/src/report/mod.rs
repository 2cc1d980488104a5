//! Reproduction reports: Markdown for readers, CSV for tools. Every number in them is computed
//! by `cargo xtask reproduce` from a run directory.

pub mod industrial;
pub mod mim;
pub mod multisine;
pub mod nim;
pub mod nim_motion;
pub(crate) mod plot;
pub mod recorded;
pub mod sweep;
pub mod teaching;

/// Formats an optional number, `–` where absent (the paper's mark for "not identifiable").
pub(crate) fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    match v {
        Some(x) if x.is_finite() => f(x),
        _ => "–".to_string(),
    }
}

/// Formats an optional number for CSV (empty where absent).
pub(crate) fn csv_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:e}"),
        _ => String::new(),
    }
}

/// Registers the committed DejaVu Sans (its licence beside it in `validation/assets/`) as
/// plotters' `sans-serif`: no system font library is needed.
pub(crate) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
        plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, bytes)
            .unwrap_or_else(|_| panic!("the committed DejaVu Sans is a valid font"));
    });
}

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
    write: impl FnOnce(&std::path::Path) -> Result<(), String>,
) -> Result<(), String> {
    let name = dir
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let work = dir.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let made = std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()));
    let result = made.and_then(|()| write(&work)).and_then(|()| {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::rename(&work, dir).map_err(|e| format!("{}: {e}", dir.display()))
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
    draw: impl FnOnce(&std::path::Path) -> Result<(), String>,
) -> Result<(), String> {
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{}.partial-{name}", std::process::id()));
    let result = draw(&tmp)
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display())));
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
        let dir = std::env::temp_dir().join(format!("report-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plot.png");
        write_atomic_with(&path, |tmp| {
            assert_eq!(tmp.extension().unwrap(), "png");
            std::fs::write(tmp, "first").map_err(|e| e.to_string())
        })
        .unwrap();
        // A render that fails after writing part of its file: the old file stays, no debris.
        let e = write_atomic_with(&path, |tmp| {
            std::fs::write(tmp, "half").unwrap();
            Err("the renderer failed".into())
        });
        assert_eq!(e.unwrap_err(), "the renderer failed");
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
