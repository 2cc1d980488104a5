//! The `estimate` command's computation: every applicable estimator on each experiment, scored.

use std::collections::BTreeMap;

use super::stats::Summary;
use crate::dataset::Run;
use crate::estimate::{Estimator, Experiment, ParamId, Role};
use crate::score::Row;

/// What `estimate` found for one experiment.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Scored parameters.
    pub rows: Vec<Row>,
    /// `(method, reason)` of the estimators that do not apply.
    pub skipped: Vec<(String, String)>,
    /// `(method, error)` of the estimators that applied and failed.
    pub failed: Vec<(String, String)>,
    /// `(method, model)`: the identified models of the methods that give one.
    pub models: Vec<(String, sim::model::Chain)>,
    /// `(method, link, why)`: physically inconsistent links of standard-parameter estimates.
    pub inconsistent: Vec<(String, usize, String)>,
}

/// Runs `estimators` on the experiment of `runs` (roles given), scored against the truth of
/// the excitation run's arm (else the first run's).
pub fn run_all(estimators: &[&dyn Estimator], runs: &[(Role, &Run)]) -> Outcome {
    let experiment = Experiment::new(
        runs.iter()
            .map(|(r, run)| (*r, &run.measurements))
            .collect(),
    );
    let truth_run = runs
        .iter()
        .find(|(r, _)| *r == Role::Excitation)
        .or(runs.first())
        .map(|(_, run)| *run)
        .expect("at least one run");
    score_all(
        estimators,
        &experiment,
        &crate::param::truth_table(&truth_run.manifest.model),
    )
}

/// Every applicable estimator on one experiment, scored against `truth`
/// ([`crate::param::truth_table`]); the others with their reasons, and those that fail with
/// their errors.
pub fn score_all(
    estimators: &[&dyn Estimator],
    experiment: &Experiment,
    truth: &BTreeMap<ParamId, f64>,
) -> Outcome {
    let id = experiment.id();
    let mut out = Outcome::default();
    for e in estimators {
        if let Err(reason) = e.applies(experiment) {
            out.skipped.push((e.name().into(), reason.0));
            continue;
        }
        match e.estimate(experiment) {
            Ok(est) => {
                out.rows
                    .extend(crate::score::rows(&id, e.name(), &est, truth));
                for (k, p) in est.standard.iter().flatten().enumerate() {
                    if let Err(why) = sim::physical::check(p) {
                        out.inconsistent
                            .push((e.name().into(), k + 1, why.to_string()));
                    }
                }
                if let Some(model) = est.model {
                    out.models.push((e.name().into(), model));
                }
            }
            Err(err) => out.failed.push((e.name().into(), err.message)),
        }
    }
    out
}

/// Per `(method, parameter)` over the rows with a truth and an estimate.
pub fn summarize(rows: &[Row]) -> BTreeMap<(String, String), Summary> {
    let mut pairs: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let (Some(t), Some(e)) = (r.truth, r.estimate) {
            pairs
                .entry((r.method.clone(), r.parameter.clone()))
                .or_default()
                .push((t, e));
        }
    }
    pairs
        .into_iter()
        .filter_map(|(k, p)| Summary::of(&p).map(|s| (k, s)))
        .collect()
}
