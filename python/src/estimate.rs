//! The registry's estimators on a run: the rows of `validation estimate`'s CSV as an Arrow
//! record batch.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, RecordBatch, StringArray};
use arrow_pyarrow::ToPyArrow;
use pyo3::prelude::*;
use validation::estimate::engine::{Loaded, run_all};
use validation::estimate::score::Row;
use validation::estimate::{Estimator, Options, Role};

use crate::refused;
use crate::run::Run;

/// The registry's estimator names.
#[pyfunction]
pub fn estimators() -> Vec<String> {
    validation::estimate::registry_names()
}

/// A run given from Python: a simulated [`Run`] or a run directory.
#[derive(FromPyObject)]
pub enum RunOrDir<'py> {
    /// A run simulated in this process.
    Run(Bound<'py, Run>),
    /// A run directory (simulated or recorded).
    Dir(PathBuf),
}

/// The estimators `only` names (every one where `None`) on the run, each on it as
/// `validation estimate RUN` runs them; rows `run, method, parameter, truth, estimate, std,
/// abs_error, rel_error, identifiable`.
#[pyfunction]
#[pyo3(signature = (run, only = None, nim_models = None, prior = None))]
pub fn estimate<'py>(
    py: Python<'py>,
    run: RunOrDir<'py>,
    only: Option<Vec<String>>,
    nim_models: Option<PathBuf>,
    prior: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let loaded = load(&run)?;
    let chosen = validation::estimate::chosen(&Options { nim_models, prior }, only.as_deref())
        .map_err(|e| refused(format!("only: {e}")))?;
    let rows = py.detach(|| {
        let chosen: Vec<&dyn Estimator> = chosen.iter().map(|e| e.as_ref()).collect();
        run_all(&chosen, &[(Role::Single, &loaded)]).rows
    });
    batch(&rows).to_pyarrow(py)
}

/// The run as the estimators and the scorer read it.
fn load(run: &RunOrDir<'_>) -> PyResult<Loaded> {
    Ok(match run {
        RunOrDir::Run(r) => {
            let sim = &r.get().run;
            let dir = PathBuf::from(&sim.manifest.run_id);
            sim::reading::from_simulated(sim, &dir)
                .map_err(refused)?
                .into()
        }
        RunOrDir::Dir(dir) => Loaded::read(dir).map_err(refused)?,
    })
}

/// Scores `answer` (parameter name → estimate, or an `(estimate, std)` pair) against the
/// run's truth as the project's scorer scores its own estimators: the rows of `validation
/// estimate`'s CSV under the method name `method` (no truth for a recorded run).
#[pyfunction]
#[pyo3(signature = (run, answer, method = "mine"))]
pub fn score<'py>(
    py: Python<'py>,
    run: RunOrDir<'py>,
    answer: &Bound<'py, PyAny>,
    method: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let loaded = load(&run)?;
    scored(py, &loaded.id, loaded.truth.as_ref(), answer, method)
}

/// [`score`] against the truth of a manifest given as JSON text: a population arm's
/// (its row of `manifests/shard=NNNNN/part-0.parquet`) or a run's.
#[pyfunction]
#[pyo3(signature = (manifest_json, answer, method = "mine"))]
pub fn score_manifest<'py>(
    py: Python<'py>,
    manifest_json: &str,
    answer: &Bound<'py, PyAny>,
    method: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let manifest: sim::dataset::Manifest = serde_json::from_str(manifest_json).map_err(|e| {
        refused(format!(
            "manifest: {e}; expected a simulated run's or arm's"
        ))
    })?;
    scored(py, &manifest.run_id, Some(&manifest.model), answer, method)
}

/// The rows of `answer` scored against `truth` (none: unscored).
fn scored<'py>(
    py: Python<'py>,
    id: &str,
    truth: Option<&sim::model::Chain>,
    answer: &Bound<'py, PyAny>,
    method: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = crate::callable::answer_rows(answer)?;
    let values = validation::estimate::external::values(rows, "answer").map_err(refused)?;
    let truth = truth
        .map(validation::param::truth_table)
        .unwrap_or_default();
    let estimates = validation::estimate::Estimates {
        values,
        ..Default::default()
    };
    batch(&validation::estimate::score::rows(
        id, method, &estimates, &truth,
    ))
    .to_pyarrow(py)
}

/// The rows as a record batch with the CSV's columns.
fn batch(rows: &[Row]) -> RecordBatch {
    let text = |f: &dyn Fn(&Row) -> String| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let number = |f: &dyn Fn(&Row) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    RecordBatch::try_from_iter([
        ("run", text(&|r| r.run.clone())),
        ("method", text(&|r| r.method.clone())),
        ("parameter", text(&|r| r.parameter.clone())),
        ("truth", number(&|r| r.truth)),
        ("estimate", number(&|r| r.estimate)),
        ("std", number(&|r| r.std)),
        ("abs_error", number(&|r| r.abs_error())),
        ("rel_error", number(&|r| r.rel_error())),
        (
            "identifiable",
            Arc::new(BooleanArray::from(
                rows.iter().map(|r| r.identifiable()).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .expect("columns of one length")
}
