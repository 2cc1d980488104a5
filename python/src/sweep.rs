//! A study file's noise sweeps run with the caller's Python estimators beside the registry's:
//! the same re-noised runs, statistics, Cramér–Rao columns and report (`validation study`).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_pyarrow::ToPyArrow;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use validation::estimate::Estimator;
use validation::study::file::Study;
use validation::study::sweep::{SweepResult, SweepRow};

use crate::callable::Callable;
use crate::refused;

/// The callables of `estimators` (name → callable), checked: callable, names not the
/// registry's.
fn callables(estimators: Option<&Bound<'_, PyDict>>, known: &[String]) -> PyResult<Vec<Callable>> {
    let mut out = Vec::new();
    for (name, function) in estimators.into_iter().flat_map(|d| d.iter()) {
        let name: String = name.extract()?;
        if known.contains(&name) {
            return Err(refused(format!(
                "estimators: `{name}` is a registry estimator's name; give yours another"
            )));
        }
        if !function.is_callable() {
            return Err(refused(format!("estimators: `{name}` is not callable")));
        }
        out.push(Callable::new(name, function.unbind()));
    }
    Ok(out)
}

/// Runs the sweeps of the study file `study` into `out` (`sweep.json`, `.csv`, `.md`, `.png`,
/// as `validation study STUDY --out OUT` writes them; a temporary directory removed after where
/// `out` is `None`), with `estimators` (name → callable) available beside the registry's: the
/// study's `estimators` lists name them. Returns the rows of `sweep.csv`. A callable that raised
/// or answered badly raises `ArmidError` with its message.
#[pyfunction]
#[pyo3(signature = (study, estimators = None, out = None))]
pub fn sweep<'py>(
    py: Python<'py>,
    study: PathBuf,
    estimators: Option<&Bound<'py, PyDict>>,
    out: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let registry = validation::estimate::registry_names();
    let callables = callables(estimators, &registry)?;
    let mut known = registry;
    known.extend(callables.iter().map(|c| c.name().to_owned()));
    let study = Study::from_path(&study, &known).map_err(refused)?;
    let scratch =
        std::env::temp_dir().join(format!("armid-sweep-{}", sim::dataset::temporary::name("")));
    let target = out.clone().unwrap_or_else(|| scratch.join(&study.name));
    let result = py.detach(|| {
        let extra: Vec<&dyn Estimator> = callables.iter().map(|c| c as &dyn Estimator).collect();
        validation::study::run_with(
            &study,
            &extra,
            &target,
            None,
            &validation::report::sweep::write,
        )
    });
    if out.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    let result = result.map_err(refused)?;
    let failed = result.skipped.iter().find(|(_, method, reason)| {
        callables.iter().any(|c| c.name() == method) && reason.starts_with("failed")
    });
    if let Some((scenario, method, reason)) = failed {
        return Err(refused(format!("{method} on {scenario}: {reason}")));
    }
    rows(&result).to_pyarrow(py)
}

/// `sweep.csv`'s rows as a record batch.
fn rows(result: &SweepResult) -> RecordBatch {
    let rows = &result.rows;
    let text = |f: &dyn Fn(&SweepRow) -> String| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let number = |f: &dyn Fn(&SweepRow) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    RecordBatch::try_from_iter([
        ("scenario", text(&|r| r.scenario.clone())),
        ("method", text(&|r| r.method.clone())),
        ("sensor", text(&|r| r.sensor.name().to_owned())),
        ("level", number(&|r| Some(r.level))),
        ("parameter", text(&|r| r.parameter.clone())),
        ("truth", number(&|r| Some(r.summary.truth))),
        ("mean", number(&|r| Some(r.summary.mean))),
        ("bias", number(&|r| Some(r.summary.bias))),
        ("std", number(&|r| Some(r.summary.std))),
        ("rmse", number(&|r| Some(r.summary.rmse))),
        ("crb", number(&|r| r.crb)),
        (
            "runs",
            Arc::new(UInt64Array::from(
                rows.iter()
                    .map(|r| r.summary.runs as u64)
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .expect("columns of one length")
}
