//! The `armid` Python package's native module `armid._armid` (pyo3, the stable ABI): scenarios
//! simulated into Arrow tables handed to pyarrow without copies (the Arrow C data interface),
//! run directories written, the registry's estimators run on a run. The Python side
//! (`python/armid/`) wraps these into its documented API; errors are `armid.ArmidError`
//! (a `ValueError`) whose message names the file and the field, as the command line's do.

use pyo3::prelude::*;

mod callable;
mod datasets;
mod estimate;
mod run;
mod sweep;

pyo3::create_exception!(
    _armid,
    ArmidError,
    pyo3::exceptions::PyValueError,
    "A scenario, run directory or estimator request the project refuses; the message names the file and the field."
);

/// `error` as an [`ArmidError`] with its message.
pub(crate) fn refused(error: impl std::fmt::Display) -> PyErr {
    ArmidError::new_err(error.to_string())
}

/// The module.
#[pymodule]
fn _armid(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ArmidError", m.py().get_type::<ArmidError>())?;
    m.add_class::<run::Run>()?;
    m.add_class::<callable::Measurement>()?;
    m.add_function(wrap_pyfunction!(run::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate::estimate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate::estimators, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(estimate::score, m)?)?;
    m.add_function(wrap_pyfunction!(estimate::score_manifest, m)?)?;
    m.add_function(wrap_pyfunction!(datasets::check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(datasets::population, m)?)?;
    m.add_function(wrap_pyfunction!(datasets::check_run, m)?)?;
    m.add_function(wrap_pyfunction!(datasets::import_recording, m)?)?;
    m.add_function(wrap_pyfunction!(datasets::report, m)?)?;
    Ok(())
}
