//! Estimators from outside this crate: a command of any language
//! ([`command::ExternalCommand`], the subprocess protocol) and, through the `armid` Python
//! package, a Python callable. Both are given a run as its sensors saw it — the measurement
//! directory ([`sim::reading::measurement_dir`]), never its truth — and answer estimates
//! keyed by [`ParamId`] names; a sweep runs them beside the registry's on the same re-noised
//! runs, with the same statistics and Cramér–Rao columns.
//!
//! ## The answer
//!
//! A CSV file with a header naming the columns `parameter` and `estimate`, and optionally
//! `std`; one row per parameter, in any order:
//!
//! ```text
//! parameter,estimate,std
//! B1.m_e1,1.503,0.012
//! B2.j11,0.0218,
//! ```
//!
//! `parameter` is a parameter name of the project (`B<i>.m`, `B<i>.m_e1`, `B<i>.j11`, `base.<k>`,
//! `O2.coulomb`, …: [`ParamId`]); `estimate` a number, or empty where the data do not determine
//! it; `std` its standard deviation in the parameter's unit, or empty. A parameter named
//! twice, an unknown name or a malformed number is an error naming the row.

pub mod command;

pub use command::ExternalCommand;

use crate::param::{Estimate, ParamId, Values};

/// One answered row: a parameter name, its estimate and standard deviation.
pub type AnswerRow = (String, Option<f64>, Option<f64>);

/// The estimates of answered `rows` (`where_` names the answer in errors, e.g. the CSV file).
pub fn values(rows: Vec<AnswerRow>, where_: &str) -> crate::Result<Values> {
    let mut values = Values::new();
    for (k, (name, value, std)) in rows.into_iter().enumerate() {
        let id: ParamId = (name.trim().parse()).map_err(|e: crate::param::ParseParamError| {
            crate::Error::Parameter {
                at: format!("{where_}, row {}", k + 1),
                source: e,
            }
        })?;
        let finite = |x: Option<f64>, what: &str| match x {
            Some(v) if !v.is_finite() => Err(crate::Error::invalid(
                format!("{where_}, row {} ({name}), column `{what}`", k + 1),
                format!("a finite number or nothing, got {v}"),
            )),
            _ => Ok(x),
        };
        let estimate = Estimate {
            value: finite(value, "estimate")?,
            std: finite(std, "std")?,
        };
        if values.insert(id, estimate).is_some() {
            return Err(crate::Error::invalid(
                format!("{where_}, row {}, column `parameter`", k + 1),
                format!("each parameter once, got `{name}` again"),
            ));
        }
    }
    Ok(values)
}
