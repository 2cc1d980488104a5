//! `validation report PATH --html OUT.html`: the page of a run directory or of a study's output.

use std::path::Path;

use crate::estimate::Estimator;
use crate::estimate::engine::Loaded;

/// Writes the page of `path` (a study's output directory where it holds `sweep.json`, else a
/// run directory, run through `estimators`) to `out`, atomically.
pub fn write(
    path: &Path,
    out: &Path,
    estimators: impl FnOnce() -> crate::Result<Vec<Box<dyn Estimator>>>,
) -> crate::Result<()> {
    let sweep = path.join("sweep.json");
    let page = if sweep.is_file() {
        let text = std::fs::read_to_string(&sweep).map_err(crate::Error::io(&sweep))?;
        let result: crate::study::sweep::SweepResult =
            serde_json::from_str(&text).map_err(|e| crate::Error::Format {
                path: sweep.clone(),
                message: e.to_string(),
            })?;
        crate::report::html::sweep_page(&result)
    } else {
        let run = Loaded::read(path)?;
        let estimators = estimators()?;
        let chosen: Vec<&dyn Estimator> = estimators.iter().map(|e| e.as_ref()).collect();
        crate::report::html::run_page(&crate::study::run_view::view(&run, &chosen))
    };
    crate::report::write_atomic(out, &page).map_err(crate::Error::io(out))?;
    Ok(())
}
