//! The effect sweeps of a study file ([`super::effect`]): per scenario, effect and severity,
//! the edited scenario simulated once and measured by its own sensors once per Monte-Carlo
//! seed, every listed estimator run on every measured copy (as the excitation run and the
//! single run), and summarized per parameter against the unchanged model's truth.

use serde::{Deserialize, Serialize};

use super::effect::{EffectKind, scenario_at};
use super::file::Study;
use super::monte_carlo;
use super::stats::Summary;
use super::stats::summarize;
use crate::estimate::engine::{Loaded, Outcome, note_reasons, score_with};
use crate::estimate::{Estimator, Experiment, Role};
use sim::reading::Stated;

/// One line of `effects.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectRow {
    /// Scenario (run id of the unedited scenario).
    pub scenario: String,
    /// Estimator.
    pub method: String,
    /// The effect.
    pub effect: EffectKind,
    /// Its severity.
    pub level: f64,
    /// Parameter name.
    pub parameter: String,
    /// Statistics over the seeds.
    pub summary: Summary,
}

/// What the effect sweeps of one scenario give: rows, and `(scenario, method, reason)` of the
/// estimators that did not apply or failed.
pub type EffectBlock = (Vec<EffectRow>, Vec<(String, String, String)>);

/// Runs the effect sweeps of `study` on the scenario at `path`; `tick` is called after each
/// (severity, seed).
pub(crate) fn scenario_block(
    study: &Study,
    path: &std::path::Path,
    validation: Option<&std::path::Path>,
    extra: &[&dyn Estimator],
    tick: &(dyn Fn() + Sync),
) -> crate::Result<EffectBlock> {
    let base = sim::scenario::Scenario::from_path(path)?;
    let check = validation
        .map(sim::scenario::Scenario::from_path)
        .transpose()?;
    let available = super::estimators::Available::new(study, extra);
    let truth = crate::param::truth_table(&base.chain);
    let name = base.file.name.clone();
    let mut cases: Vec<Case> = Vec::new();
    for (k, effect) in study.effects.iter().enumerate() {
        let estimators = available.named(&effect.estimators);
        for &level in &effect.levels {
            let edited = |s: &sim::scenario::Scenario| {
                scenario_at(s, effect.kind, level).map_err(|e| {
                    crate::Error::Study(super::file::StudyError::Invalid {
                        path: path.to_owned(),
                        field: format!("effect[{k}] ({} = {level})", effect.kind.name()),
                        expected: e.to_string(),
                    })
                })
            };
            let scenario = edited(&base)?;
            let validation = check.as_ref().map(edited).transpose()?;
            cases.push(Case {
                kind: effect.kind,
                level,
                estimators: estimators.clone(),
                scenario,
                validation,
            });
        }
    }
    // Each distinct arm simulated once (the engine's jobs, one seed each; the mismatch effects
    // and the levels that turn an effect off share theirs), then measured per seed.
    let mut distinct: Vec<&sim::scenario::Scenario> = Vec::new();
    let arm: Vec<(usize, Option<usize>)> = (cases.iter())
        .map(|c| {
            let a = distinct_index(&mut distinct, &c.scenario);
            let v = c
                .validation
                .as_ref()
                .map(|v| distinct_index(&mut distinct, v));
            (a, v)
        })
        .collect();
    let simulated: Vec<sim::Run> = monte_carlo::run(
        &distinct,
        |_| 1,
        |scenario, _| sim::simulate(scenario, None),
        &monte_carlo::quiet,
    )
    .into_iter()
    .map(|mut runs| runs.remove(0))
    .collect();
    for (&(a, v), case) in arm.iter().zip(&cases) {
        for run in std::iter::once(a).chain(v) {
            if let Some(invalid) = &simulated[run].manifest.invalid {
                return Err(crate::Error::Format {
                    path: path.to_owned(),
                    message: format!(
                        "{} = {}: the simulation failed its physics checks: {invalid:?}",
                        case.kind.name(),
                        case.level
                    ),
                });
            }
        }
    }
    let jobs: Vec<usize> = (0..cases.len()).collect();
    let outcomes = monte_carlo::run(
        &jobs,
        |_| study.seeds,
        |&c, seed| {
            let case = &cases[c];
            let measured = |run: usize, s: &sim::scenario::Scenario| {
                monte_carlo::remeasure_simulated(&simulated[run], &stated(s), seed).map(|mut r| {
                    case.kind.tell(&mut r.measurements, case.level);
                    r
                })
            };
            let run = measured(arm[c].0, &case.scenario)?;
            let check = match (arm[c].1, &case.validation) {
                (Some(v), Some(s)) => Some(Loaded::from(measured(v, s)?)),
                _ => None,
            };
            let m = &run.measurements;
            let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
            Ok(score_with(
                &case.estimators,
                &experiment,
                &truth,
                check.as_ref(),
            ))
        },
        tick,
    );
    let mut block: EffectBlock = (Vec::new(), Vec::new());
    for (case, outcomes) in cases.iter().zip(outcomes) {
        let outcomes: Vec<Outcome> = outcomes.into_iter().collect::<crate::Result<_>>()?;
        let at = format!("{} = {}", case.kind.name(), case.level);
        note_reasons(&mut block.1, &name, &outcomes, &at);
        let rows: Vec<crate::estimate::score::Row> = (outcomes.into_iter())
            .flat_map(|o| o.rows)
            .filter_map(scored)
            .collect();
        for ((method, parameter), summary) in summarize(&rows) {
            block.0.push(EffectRow {
                scenario: name.clone(),
                method,
                effect: case.kind,
                level: case.level,
                parameter,
                summary,
            });
        }
    }
    Ok(block)
}

/// One severity of one effect: the edited scenario, its validation run's, and who runs on it.
struct Case<'a> {
    kind: EffectKind,
    level: f64,
    estimators: Vec<&'a dyn Estimator>,
    scenario: sim::scenario::Scenario,
    validation: Option<sim::scenario::Scenario>,
}

/// Where `s` is among the `distinct` arms (by source), added if new.
fn distinct_index<'a>(
    distinct: &mut Vec<&'a sim::scenario::Scenario>,
    s: &'a sim::scenario::Scenario,
) -> usize {
    match distinct.iter().position(|d| d.source == s.source) {
        Some(i) => i,
        None => {
            distinct.push(s);
            distinct.len() - 1
        }
    }
}

/// What a scenario's own sensors state.
fn stated(s: &sim::scenario::Scenario) -> Stated {
    Stated {
        sensors: s.file.sensor.clone(),
        noise: s.file.noise.clone(),
        ..Default::default()
    }
}

/// The rows summarized: the parameters, and the validation run's pooled [`TORQUE_NRMS`] and
/// [`TORQUE_NRMS_MOVING`] with a target of 0 (their "truth", so that their summary's mean is
/// the mean NRMS over the seeds); per-joint NRMS left out.
fn scored(mut row: crate::estimate::score::Row) -> Option<crate::estimate::score::Row> {
    if row.truth.is_some() {
        return Some(row);
    }
    [TORQUE_NRMS, TORQUE_NRMS_MOVING]
        .contains(&row.parameter.as_str())
        .then(|| {
            row.truth = Some(0.0);
            row
        })
}

/// The pooled validation torque NRMS row ([`crate::estimate::engine::prediction_rows`]).
pub const TORQUE_NRMS: &str = "torque_nrms";

/// The validation torque NRMS over the moving joints' samples.
pub(crate) const TORQUE_NRMS_MOVING: &str = "torque_nrms.moving";
