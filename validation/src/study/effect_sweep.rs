//! The effect sweeps of a study file ([`super::effect`]): per scenario, effect and severity,
//! the edited scenario simulated once and measured by its own sensors once per Monte-Carlo
//! seed, every listed estimator run on every measured copy (as the excitation run and the
//! single run), and summarized per parameter against the unchanged model's truth.

use serde::{Deserialize, Serialize};

use super::effect::{EffectKind, scenario_at};
use super::estimate::{Outcome, note_reasons, score_all, summarize};
use super::file::Study;
use super::monte_carlo;
use super::stats::Summary;
use crate::dataset::Stated;
use crate::estimate::{Estimator, Experiment, Options, Role, registry};

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
pub fn scenario_block(
    study: &Study,
    path: &std::path::Path,
    tick: &(dyn Fn() + Sync),
) -> crate::Result<EffectBlock> {
    let base = sim::scenario::Scenario::from_path(path)?;
    let registered = registry(&Options {
        nim_models: study.nim_models.clone(),
        ..Default::default()
    });
    let truth = crate::param::truth_table(&base.chain);
    let name = base.file.name.clone();
    let mut cases = Vec::new();
    for (k, effect) in study.effects.iter().enumerate() {
        let estimators: Vec<&dyn Estimator> = registered
            .iter()
            .filter(|e| effect.estimators.iter().any(|n| n == e.name()))
            .map(|e| e.as_ref())
            .collect();
        for &level in &effect.levels {
            let scenario = scenario_at(&base, effect.kind, level).map_err(|e| {
                crate::Error::Study(super::file::StudyError::Invalid {
                    path: path.to_owned(),
                    field: format!("effect[{k}] ({} = {level})", effect.kind.name()),
                    expected: e,
                })
            })?;
            cases.push((effect.kind, level, estimators.clone(), scenario));
        }
    }
    // Each distinct arm simulated once (the engine's jobs, one seed each; the mismatch effects
    // and the levels that turn an effect off share theirs), then measured per seed.
    let mut distinct: Vec<&sim::scenario::Scenario> = Vec::new();
    let arm: Vec<usize> = (cases.iter())
        .map(
            |(_, _, _, s)| match distinct.iter().position(|d| d.source == s.source) {
                Some(i) => i,
                None => {
                    distinct.push(s);
                    distinct.len() - 1
                }
            },
        )
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
    for (&a, (kind, level, _, _)) in arm.iter().zip(&cases) {
        if let Some(invalid) = &simulated[a].manifest.invalid {
            return Err(crate::Error::Format {
                path: path.to_owned(),
                message: format!(
                    "{} = {level}: the simulation failed its physics checks: {invalid:?}",
                    kind.name()
                ),
            });
        }
    }
    let jobs: Vec<(usize, Stated)> = cases
        .iter()
        .enumerate()
        .map(|(c, (_, _, _, s))| {
            let stated = Stated {
                sensors: s.file.sensor.clone(),
                noise: s.file.noise.clone(),
                ..Default::default()
            };
            (c, stated)
        })
        .collect();
    let outcomes = monte_carlo::run(
        &jobs,
        |_| study.seeds,
        |(c, stated), seed| {
            monte_carlo::remeasure_simulated(&simulated[arm[*c]], stated, seed).map(|mut run| {
                let (kind, level, ..) = &cases[*c];
                kind.tell(&mut run.measurements, *level);
                let m = &run.measurements;
                let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
                score_all(&cases[*c].2, &experiment, &truth)
            })
        },
        tick,
    );
    let mut block: EffectBlock = (Vec::new(), Vec::new());
    for ((kind, level, _, _), outcomes) in cases.iter().zip(outcomes) {
        let outcomes: Vec<Outcome> = outcomes.into_iter().collect::<Result<_, _>>()?;
        let at = format!("{} = {level}", kind.name());
        note_reasons(&mut block.1, &name, &outcomes, &at);
        let rows: Vec<crate::score::Row> = outcomes.into_iter().flat_map(|o| o.rows).collect();
        for ((method, parameter), summary) in summarize(&rows) {
            block.0.push(EffectRow {
                scenario: name.clone(),
                method,
                effect: *kind,
                level: *level,
                parameter,
                summary,
            });
        }
    }
    Ok(block)
}
