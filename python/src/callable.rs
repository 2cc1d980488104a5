//! A Python callable as an estimator of the project: called with a [`Measurement`] (the run as
//! its sensors saw it, the measurement directory's tables; no truth), it answers a mapping of
//! parameter names to estimates.

use arrow_pyarrow::ToPyArrow;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sim::reading::measurement_dir::{MeasurementTables, tables};
use validation::estimate::external::{AnswerRow, values};
use validation::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable, Role};

/// A run as its sensors saw it: the measurement directory's tables and description
/// (`sim::reading::measurement_dir`), in memory.
#[pyclass(frozen, module = "armid._armid")]
pub struct Measurement {
    tables: MeasurementTables,
}

#[pymethods]
impl Measurement {
    /// The run id.
    #[getter]
    fn run_id(&self) -> String {
        self.tables.description.run_id.clone()
    }

    /// `joints.parquet` of the measurement directory, as a pyarrow record batch.
    #[getter]
    fn joints<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tables.joints.to_pyarrow(py)
    }

    /// `bodies.parquet` of the measurement directory, as a pyarrow record batch.
    #[getter]
    fn bodies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tables.bodies.to_pyarrow(py)
    }

    /// `measurement.json`'s text.
    #[getter]
    fn description_json(&self) -> String {
        serde_json::to_string_pretty(&self.tables.description).expect("serializes")
    }
}

/// A Python callable under a name.
pub struct Callable {
    name: String,
    function: Py<PyAny>,
}

impl Callable {
    /// `function` under `name`.
    pub fn new(name: String, function: Py<PyAny>) -> Self {
        Callable { name, function }
    }

    fn fail(&self, message: String) -> EstimateError {
        EstimateError {
            estimator: self.name.clone(),
            message,
        }
    }

    /// The callable's answer on `tables`, as rows.
    fn answer(&self, py: Python<'_>, tables: MeasurementTables) -> PyResult<Vec<AnswerRow>> {
        let measurement = Py::new(py, Measurement { tables })?;
        let answer = self.function.call1(py, (measurement,))?;
        answer_rows(answer.bind(py))
    }
}

/// The rows of an answer given as a mapping: parameter name → estimate (a number or `None`)
/// or an `(estimate, std)` pair.
pub fn answer_rows(answer: &Bound<'_, PyAny>) -> PyResult<Vec<AnswerRow>> {
    let mut rows = Vec::new();
    for item in answer.call_method0("items")?.try_iter()? {
        let (name, value): (String, Bound<'_, PyAny>) = item?.extract()?;
        let (estimate, std) = if let Ok(pair) = value.downcast::<PyTuple>() {
            pair.extract::<(Option<f64>, Option<f64>)>()?
        } else {
            (value.extract::<Option<f64>>()?, None)
        };
        rows.push((name, estimate, std));
    }
    Ok(rows)
}

impl Estimator for Callable {
    fn name(&self) -> &str {
        &self.name
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        match experiment.with_role(Role::Single).as_slice() {
            [_] => Ok(()),
            _ => Err(NotApplicable::new("needs exactly one run of role `single`")),
        }
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let single = experiment.with_role(Role::Single);
        let [m] = single.as_slice() else {
            return Err(self.fail("needs exactly one run of role `single`".into()));
        };
        let tables = tables(m);
        let rows = Python::attach(|py| self.answer(py, tables)).map_err(|e| {
            self.fail(format!(
                "the callable raised {e} (it takes an armid.Measurement and returns a mapping \
                 of parameter names to an estimate or an (estimate, std) pair)"
            ))
        })?;
        let values = values(rows, &format!("answer of `{}`", self.name))
            .map_err(|e| self.fail(e.to_string()))?;
        Ok(Estimates {
            values,
            ..Default::default()
        })
    }
}
