//! A sweep's error-against-noise curves, per (scenario, swept sensor): the rendering's summary
//! of `sweep.json` (medians over parameters of what the study computed per parameter).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::study::sweep::{SweepResult, SweepRow};

/// One method's curve: a value per level (`None` where it has no scored parameter).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// The estimator.
    pub method: String,
    /// Median over its parameters of RMSE / |truth|.
    pub relative_rmse: Vec<Option<f64>>,
    /// Median over its parameters that have a bound of RMSE / Cramér–Rao bound (1: efficient).
    pub efficiency: Vec<Option<f64>>,
}

/// The curves of one scenario under one swept sensor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Panel {
    /// Scenario (run id).
    pub scenario: String,
    /// The swept sensor's name.
    pub sensor: String,
    /// Its levels, increasing.
    pub levels: Vec<f64>,
    /// Per method.
    pub series: Vec<Series>,
    /// Median over the parameters with a bound of bound / |truth|, per level.
    pub bound: Vec<Option<f64>>,
}

/// The median of the finite values, `None` for none.
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    (!v.is_empty()).then(|| crate::study::stats::median(&v))
}

fn relative(r: &SweepRow) -> Option<f64> {
    (r.summary.truth.abs() > crate::estimate::score::ZERO)
        .then(|| r.summary.rmse / r.summary.truth.abs())
}

/// One panel from its rows.
fn panel(scenario: &str, sensor: &str, rows: &[&SweepRow]) -> Panel {
    let mut levels: Vec<f64> = rows.iter().map(|r| r.level).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let methods: BTreeSet<&str> = rows.iter().map(|r| r.method.as_str()).collect();
    let at = |method: &str, level: f64| -> Vec<&SweepRow> {
        (rows.iter().copied())
            .filter(|r| r.method == method && r.level == level)
            .collect()
    };
    let series = methods
        .into_iter()
        .map(|method| Series {
            method: method.into(),
            relative_rmse: (levels.iter())
                .map(|&l| median(at(method, l).into_iter().filter_map(relative).collect()))
                .collect(),
            efficiency: (levels.iter())
                .map(|&l| {
                    median(
                        at(method, l)
                            .iter()
                            .filter_map(|r| Some(r.summary.rmse / r.crb?))
                            .collect(),
                    )
                })
                .collect(),
        })
        .collect();
    let bound = (levels.iter())
        .map(|&l| {
            let per_parameter: BTreeMap<&str, f64> = (rows.iter())
                .filter(|r| r.level == l && r.summary.truth.abs() > crate::estimate::score::ZERO)
                .filter_map(|r| Some((r.parameter.as_str(), r.crb? / r.summary.truth.abs())))
                .collect();
            median(per_parameter.into_values().collect())
        })
        .collect();
    Panel {
        scenario: scenario.into(),
        sensor: sensor.into(),
        levels,
        series,
        bound,
    }
}

/// Every (scenario, sensor) panel of `result`, in order of first appearance.
pub fn panels(result: &SweepResult) -> Vec<Panel> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in &result.rows {
        let key = (r.scenario.as_str(), r.sensor.name());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.into_iter()
        .map(|(scenario, sensor)| {
            let rows: Vec<&SweepRow> = (result.rows.iter())
                .filter(|r| r.scenario == scenario && r.sensor.name() == sensor)
                .collect();
            panel(scenario, sensor, &rows)
        })
        .collect()
}
