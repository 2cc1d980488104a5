//! A simulated run: its tables as pyarrow record batches, its manifest, its directory.

use std::path::PathBuf;

use arrow_pyarrow::ToPyArrow;
use pyo3::prelude::*;

use crate::refused;

/// A run simulated from a scenario: what `sim run` would write, held in memory.
#[pyclass(frozen, module = "armid._armid")]
pub struct Run {
    pub(crate) run: sim::Run,
    tables: sim::dataset::writer::RunTables,
}

#[pymethods]
impl Run {
    /// The run id (the scenario's name).
    #[getter]
    fn id(&self) -> String {
        self.run.manifest.run_id.clone()
    }

    /// `joints.parquet`'s columns as a pyarrow record batch (no copy).
    #[getter]
    fn joints<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tables.joints.to_pyarrow(py)
    }

    /// `bodies.parquet`'s columns as a pyarrow record batch (no copy).
    #[getter]
    fn bodies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tables.bodies.to_pyarrow(py)
    }

    /// `truth.parquet`'s columns as a pyarrow record batch (no copy).
    #[getter]
    fn truth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tables.truth.to_pyarrow(py)
    }

    /// `manifest.json`'s text.
    #[getter]
    fn manifest_json(&self) -> String {
        serde_json::to_string_pretty(&self.run.manifest).expect("a manifest serializes")
    }

    /// Writes the run directory `dir` as `sim run --out DIR` does (atomically; `force`
    /// replaces an existing one).
    #[pyo3(signature = (dir, force = false))]
    fn write(&self, py: Python<'_>, dir: PathBuf, force: bool) -> PyResult<()> {
        let (rec, manifest) = (&self.run.recording, &self.run.manifest);
        py.detach(|| sim::dataset::write_run(&dir, rec, manifest, force))
            .map_err(refused)
    }
}

/// Simulates the scenario file at `path` as `sim run` does; a run that fails its physics
/// checks is refused, naming the check.
#[pyfunction]
pub fn simulate(py: Python<'_>, path: PathBuf) -> PyResult<Run> {
    let scenario = sim::scenario::Scenario::from_path(&path).map_err(refused)?;
    let run = py.detach(|| sim::simulate(&scenario, None));
    if let Some(invalid) = &run.manifest.invalid {
        return Err(refused(format!("{}: {invalid}", path.display())));
    }
    let tables = sim::dataset::writer::tables(&run.recording, &run.manifest);
    Ok(Run { run, tables })
}
