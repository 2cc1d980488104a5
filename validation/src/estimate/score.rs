//! Scores estimates against the ground truth: the only place that reads [`Truth`].

use crate::param::{Inertial, ParamId, Values};
use sim::reading::Truth;

/// One scored parameter.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Scored {
    /// Estimator name.
    pub method: String,
    /// Body (1-based).
    pub body: u8,
    /// Parameter.
    pub parameter: ParamId,
    /// True value.
    pub truth: f64,
    /// Estimate (`None`: not identifiable from the data).
    pub estimate: Option<f64>,
}

impl Scored {
    /// `estimate − truth` (the sign convention of the MIM paper's Table 3).
    pub fn abs_error(&self) -> Option<f64> {
        self.estimate.map(|e| e - self.truth)
    }

    /// `(estimate − truth) / truth`.
    pub fn rel_error(&self) -> Option<f64> {
        self.abs_error().map(|e| e / self.truth)
    }
}

/// The true value of a per-body parameter in the run's truth table (`truth.parquet`): masses,
/// central principal moments and joint damping; `None` for other parameters.
pub(crate) fn body_truth(id: ParamId, truth: &Truth) -> Option<f64> {
    let body = truth.bodies.iter().find(|b| Some(b.body) == id.body())?;
    match id {
        ParamId::Body { quantity, .. } => match quantity {
            Inertial::Mass | Inertial::MassAxis(_) => Some(body.mass),
            Inertial::Moment(k) => Some(body.j[k as usize - 1]),
            Inertial::FirstMoment(_) => None,
        },
        ParamId::Damping { .. } => Some(body.joint_damping),
        _ => None,
    }
}

/// Scores the per-body estimates of one method against the run's truth table.
pub fn score(method: &str, estimates: &Values, truth: &Truth) -> Vec<Scored> {
    estimates
        .iter()
        .filter_map(|(&id, e)| {
            Some(Scored {
                method: method.to_string(),
                body: id.body()?,
                parameter: id,
                truth: body_truth(id, truth)?,
                estimate: e.value,
            })
        })
        .collect()
}

/// True values below this magnitude count as zero for relative errors (SI units; no parameter
/// of a physical arm is that small unless it vanishes by symmetry).
pub const ZERO: f64 = 1e-10;

/// One scored parameter of the estimation API ([`crate::estimate`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// The experiment (run id, or ids joined with `+`).
    pub run: String,
    /// Estimator name.
    pub method: String,
    /// Qualified parameter name ([`crate::param::ParamId`]'s display).
    pub parameter: String,
    /// True value (`None`: the model has no such parameter, e.g. friction terms of an arm
    /// without the paper's friction).
    pub truth: Option<f64>,
    /// Estimate (`None`: not identifiable from the data).
    pub estimate: Option<f64>,
    /// Standard deviation of the estimate where the method gives one.
    pub std: Option<f64>,
}

impl Row {
    /// `estimate − truth`.
    pub fn abs_error(&self) -> Option<f64> {
        Some(self.estimate? - self.truth?)
    }

    /// `(estimate − truth) / truth` (`None` where the truth is zero: below
    /// [`ZERO`] in magnitude, e.g. a base parameter that vanishes by symmetry, computed as 1e-14).
    pub fn rel_error(&self) -> Option<f64> {
        let t = self.truth.filter(|t| t.abs() >= ZERO)?;
        Some(self.abs_error()? / t)
    }

    /// Whether the estimator determined the parameter.
    pub fn identifiable(&self) -> bool {
        self.estimate.is_some()
    }
}

/// Scores an estimator's output against the truth of the arm
/// ([`crate::param::truth_table`] of the run's manifest model), one row per estimated parameter.
pub fn rows(
    run: &str,
    method: &str,
    estimates: &crate::estimate::Estimates,
    truth: &std::collections::BTreeMap<crate::param::ParamId, f64>,
) -> Vec<Row> {
    estimates
        .values
        .iter()
        .map(|(id, e)| Row {
            run: run.to_string(),
            method: method.to_string(),
            parameter: id.to_string(),
            truth: truth.get(id).copied(),
            estimate: e.value,
            std: e.std,
        })
        .collect()
}

/// A number as the CSV files write it: the shortest exponent form, empty where absent.
fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(|x| format!("{x:e}"))
        .unwrap_or_default()
}

/// `rows` as CSV: `run,method,parameter,truth,estimate,std,abs_error,rel_error,identifiable`
/// (`estimate --out`, `identify`'s `estimates.csv`).
pub fn csv(rows: &[Row]) -> String {
    let mut text =
        String::from("run,method,parameter,truth,estimate,std,abs_error,rel_error,identifiable\n");
    for r in rows {
        text += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            r.run,
            r.method,
            r.parameter,
            num(r.truth),
            num(r.estimate),
            num(r.std),
            num(r.abs_error()),
            num(r.rel_error()),
            r.identifiable()
        );
    }
    text
}
