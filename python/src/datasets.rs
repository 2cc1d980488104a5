//! Scenarios checked, populations written, run directories verified and recordings imported:
//! `sim check`, `sim population`, the readers' checks and `validation import` from Python.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::refused;

/// Reads and checks the scenario file `path` without simulating it (`sim check`): a dict of
/// `name`, `model`, `samples`, `steps_per_sample`, `arms` (its population's, or `None`).
#[pyfunction]
pub fn check_scenario<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let s = sim::scenario::Scenario::from_path(&path).map_err(refused)?;
    let out = PyDict::new(py);
    out.set_item("name", &s.file.name)?;
    out.set_item("model", &s.chain.name)?;
    out.set_item("samples", s.samples)?;
    out.set_item("steps_per_sample", s.steps_per_sample)?;
    out.set_item("arms", s.file.population.as_ref().map(|p| p.arms))?;
    Ok(out)
}

/// Simulates the arms of the scenario's `[population]` into the population directory `out`
/// (`sim population`: arms complete in `out` are kept unless `force`; `shard` is `"K/N"`).
/// Returns `(written, kept)`; arms that fail a validity gate raise, naming them.
#[pyfunction]
#[pyo3(signature = (scenario, out, shard = "0/1", force = false))]
pub fn population(
    py: Python<'_>,
    scenario: PathBuf,
    out: PathBuf,
    shard: &str,
    force: bool,
) -> PyResult<(usize, usize)> {
    let s = sim::scenario::Scenario::from_path(&scenario).map_err(refused)?;
    let shard: sim::scenario::population::Shard = shard
        .parse()
        .map_err(|e| refused(format!("shard `{shard}`: {e}")))?;
    let g = py
        .detach(|| sim::batch::generate(&s, &out, shard, force, None))
        .map_err(refused)?;
    if let Some((k, why)) = g.invalid.first() {
        return Err(refused(format!(
            "{}: {} arms failed a validity gate and were not written (arm {k}: {why})",
            scenario.display(),
            g.invalid.len()
        )));
    }
    Ok((g.written, g.kept))
}

/// Checks the run directory `dir` as the estimators' reader does (files, checksums, columns,
/// a run marked invalid refused); returns its kind, `simulated` or `recorded`.
#[pyfunction]
pub fn check_run(py: Python<'_>, dir: PathBuf) -> PyResult<&'static str> {
    py.detach(|| {
        let recorded = sim::reading::recorded::is_recorded(&dir)?;
        validation::estimate::engine::Loaded::read(&dir)?;
        Ok::<_, sim::dataset::DatasetError>(if recorded { "recorded" } else { "simulated" })
    })
    .map_err(refused)
}

/// Imports a robot's recording as a recorded run directory (`validation import`); returns its
/// manifest's JSON text.
#[pyfunction]
#[pyo3(signature = (recording, urdf, out, config = None, rate = None, lowpass = "auto", topic = None, run_id = None, force = false))]
#[allow(clippy::too_many_arguments)]
pub fn import_recording(
    py: Python<'_>,
    recording: PathBuf,
    urdf: PathBuf,
    out: PathBuf,
    config: Option<PathBuf>,
    rate: Option<f64>,
    lowpass: &str,
    topic: Option<Vec<String>>,
    run_id: Option<String>,
    force: bool,
) -> PyResult<String> {
    let options = validation::import::Options {
        recording,
        urdf,
        reading: validation::import::Reading {
            config,
            rate,
            lowpass: (lowpass.parse::<sim::dataset::recorded::Lowpass>())
                .map_err(|e| refused(e.to_string()))?,
            topics: topic.unwrap_or_default(),
        },
        episode: None,
        run_id,
        out,
        force,
    };
    let manifest = py
        .detach(|| validation::import::import(&options))
        .map_err(refused)?;
    Ok(serde_json::to_string_pretty(&manifest).expect("a manifest serializes"))
}

/// Writes the HTML page of a run directory or of a noise study's output directory
/// (`validation report PATH --html OUT`): for a run, the estimators `only` names (every one
/// where `None`) with the NIM models `nim_models`.
#[pyfunction]
#[pyo3(signature = (path, html, only = None, nim_models = None))]
pub fn report(
    py: Python<'_>,
    path: PathBuf,
    html: PathBuf,
    only: Option<Vec<String>>,
    nim_models: Option<PathBuf>,
) -> PyResult<()> {
    let options = validation::estimate::Options {
        nim_models,
        ..Default::default()
    };
    let estimators = || validation::estimate::chosen(&options, only.as_deref());
    py.detach(|| validation::cli::html::write(&path, &html, estimators).map_err(|e| e.to_string()))
        .map_err(refused)
}
