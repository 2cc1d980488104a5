//! Simulating a population: its shards in parallel (rayon), within a shard its arms in parallel
//! blocks written in arm order, resuming where an earlier generation stopped (at the shards not
//! yet complete).

use std::ops::Range;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::dataset::DatasetError;
use crate::dataset::population::{
    ARMS_PER_ROW_GROUP, Description, LAYOUT, ShardWriter, check_no_other_layout,
    remove_own_partial, remove_stale, shard_complete, write_description,
};
use crate::scenario::population::Shard;
use crate::scenario::{Scenario, ScenarioError};

/// Arms of a shard simulated in parallel before they are written (in arm order): enough to
/// keep both cores busy while one writes, few enough to hold in memory.
const SIMULATED_TOGETHER: usize = 32;

/// What a generation did.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// Arms simulated and written.
    pub written: usize,
    /// Arms of this process's complete shards already in the output (kept).
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

/// Simulates the shards of the scenario's population that `share` gives this process into
/// `out` ([`crate::dataset::population`] layout). Shards already complete are kept unless
/// `force`. Shards run in parallel, and within a shard its arms, a row group's worth at a time,
/// each written in arm order: the files are the same whatever the thread count.
pub fn generate(
    scenario: &Scenario,
    out: &Path,
    share: Shard,
    force: bool,
    progress: Option<&ProgressBar>,
) -> Result<Generated, BatchError> {
    let p = scenario.population()?;
    let layout = p.layout();
    check_no_other_layout(out)?;
    remove_stale(out);
    write_description(
        out,
        &Description {
            scenario: scenario.source.clone(),
            scenario_path: scenario.path.as_ref().map(|p| p.display().to_string()),
            arms: p.arms,
            arms_per_shard: layout.arms_per_shard,
            seed: p.seed.unwrap_or(scenario.file.seed),
            layout: LAYOUT.into(),
        },
    )?;
    let shards: Vec<usize> = (0..layout.shards())
        .filter(|&s| share.contains(s))
        .collect();
    let todo: Vec<usize> = shards
        .iter()
        .copied()
        .filter(|&s| force || !shard_complete(out, layout, s))
        .collect();
    let arms = |list: &[usize]| list.iter().map(|&s| layout.arms_of(s).len()).sum::<usize>();
    if let Some(pb) = progress {
        pb.set_length(arms(&todo) as u64);
    }
    let outcomes: Result<Vec<_>, _> = todo
        .par_iter()
        .map(|&s| generate_shard(scenario, out, s, layout.arms_of(s), progress))
        .collect();
    remove_own_partial(out);
    let invalid: Vec<_> = outcomes?.into_iter().flatten().collect();
    Ok(Generated {
        written: arms(&todo) - invalid.len(),
        kept: arms(&shards) - arms(&todo),
        invalid,
    })
}

/// Simulates and writes shard `shard` (arms `arms`); its arms that failed a validity gate.
fn generate_shard(
    scenario: &Scenario,
    out: &Path,
    shard: usize,
    arms: Range<usize>,
    progress: Option<&ProgressBar>,
) -> Result<Vec<(usize, crate::validity::Invalid)>, BatchError> {
    let mut writer = ShardWriter::create(out, shard, arms.clone())?;
    let mut invalid = Vec::new();
    let arms: Vec<usize> = arms.collect();
    let commanded = scenario.population_commands();
    for block in arms.chunks(ARMS_PER_ROW_GROUP.max(SIMULATED_TOGETHER)) {
        let runs = block
            .par_iter()
            .map(|&k| -> Result<_, BatchError> {
                let run = crate::simulate(&scenario.population_arm(k)?, None);
                if let Some(pb) = progress {
                    pb.inc(1);
                }
                Ok(run)
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (&k, mut run) in block.iter().zip(runs) {
            run.recording.commanded |= commanded;
            match run.manifest.invalid {
                Some(i) => invalid.push((k, i)),
                None => writer.push(k, &run.recording, &run.manifest)?,
            }
        }
    }
    writer.finish()?;
    Ok(invalid)
}
