//! Simulating a population: its arms in parallel (rayon, one arm per task), a shard at a time,
//! resuming where an earlier generation stopped.

use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::dataset::DatasetError;
use crate::dataset::population::{
    arm_complete, remove_own_partial, remove_stale, write_arm, write_description,
};
use crate::scenario::population::Shard;
use crate::scenario::{Scenario, ScenarioError};

/// What a generation did.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// Arms simulated and written.
    pub written: usize,
    /// Arms of the shard already complete in the output (kept).
    pub kept: usize,
    /// Arms that failed a validity gate ([`crate::validity`]), by index: simulated, not written
    /// (the dataset never holds them; `sim population verify` lists them as missing).
    pub invalid: Vec<(usize, crate::validity::Invalid)>,
}

/// A generation that failed.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// An arm's scenario is unusable.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// Writing failed.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
}

/// Simulates the arms of `shard` of the scenario's population into `out`
/// ([`crate::dataset::population`] layout). Arms already complete are kept unless `force`.
pub fn generate(
    scenario: &Scenario,
    out: &Path,
    shard: Shard,
    force: bool,
    progress: Option<&ProgressBar>,
) -> Result<Generated, BatchError> {
    let p = scenario.population()?;
    remove_stale(out);
    write_description(
        out,
        &serde_json::json!({
            "scenario": scenario.source,
            "scenario_path": scenario.path.as_ref().map(|p| p.display().to_string()),
            "arms": p.arms,
            "seed": p.seed.unwrap_or(scenario.file.seed),
            "layout": "bodies|joints|truth/arm=NNNNN/part-0.parquet, checksums/arm=NNNNN.sha256, manifests/arm=NNNNN.json (sim::dataset::population)",
        }),
    )?;
    let arms: Vec<usize> = (0..p.arms).filter(|&k| shard.contains(k)).collect();
    let todo: Vec<usize> = arms
        .iter()
        .copied()
        .filter(|&k| force || !arm_complete(out, k))
        .collect();
    if let Some(pb) = progress {
        pb.set_length(todo.len() as u64);
    }
    let outcomes: Result<Vec<Option<crate::validity::Invalid>>, _> = todo
        .par_iter()
        .map(|&k| -> Result<_, BatchError> {
            let s = scenario.population_arm(k)?;
            let run = crate::simulate(&s, None);
            let invalid = run.manifest.invalid.clone();
            if invalid.is_none() {
                write_arm(out, k, &run.recording, &run.manifest)?;
            }
            if let Some(pb) = progress {
                pb.inc(1);
            }
            Ok(invalid)
        })
        .collect::<Result<_, _>>();
    remove_own_partial(out);
    let outcomes = outcomes?;
    let invalid: Vec<_> = todo
        .iter()
        .zip(outcomes)
        .filter_map(|(&k, i)| i.map(|i| (k, i)))
        .collect();
    Ok(Generated {
        written: todo.len() - invalid.len(),
        kept: arms.len() - todo.len(),
        invalid,
    })
}
