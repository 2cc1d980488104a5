//! What the studies that train networks share: a joint-level or paper-sensing NIM trained on a
//! population's arms (cached: [`crate::study::cache`]), and a sweep file run with those models.

use std::path::{Path, PathBuf};

use super::Context;
use crate::estimate::EstimatorId;
use crate::estimate::nim::joint::Sensing;
use crate::study::cache;
use crate::study::file::Study;
use crate::study::joint_level::{self, Recipe, Training};
use crate::study::sweep::SweepResult;
use sim::reading::Run;

/// The NIM of `sensing` trained on `training` (arms of the population `population` whose cache
/// key is `key`), cached as `models/<label>-<hash>`; its report (`saved`: `models/<label>`, the
/// link to it, as a user types it) and its directory.
pub(crate) fn joint_nim(
    ctx: &Context,
    label: &str,
    sensing: Sensing,
    population: &str,
    key: &str,
    training: &[Run],
) -> crate::Result<(Training, PathBuf)> {
    let recipe = Recipe::default();
    let parts = [
        key,
        &format!("{sensing:?}"),
        &training.len().to_string(),
        &format!("{recipe:?}"),
    ];
    let (trained, dir) = cache::trained(&ctx.models(), label, &parts, |dir| {
        joint_level::train(sensing, population, training, &recipe, dir)
    })?;
    // Reports name the link to the last run's models, the path a user types.
    let saved = ctx.shown(&ctx.models().join(label));
    Ok((Training { saved, ..trained }, dir))
}

/// The sweep file `path` with its `nim` reading `models` and its estimators `estimators` (all
/// where `None`), run from scratch into `ctx`'s `studies/<dir_name>` (a sweep resumes from its
/// directory, and models trained since would make its rows stale).
pub(crate) fn sweep_with_models(
    ctx: &Context,
    study: &Study,
    models: &Path,
    estimators: Option<Vec<EstimatorId>>,
    dir_name: &str,
) -> crate::Result<SweepResult> {
    let mut study = Study {
        nim_models: Some(models.to_path_buf()),
        ..study.clone()
    };
    if let Some(estimators) = estimators {
        let estimators: Vec<String> = estimators.iter().map(|e| e.name().into()).collect();
        for s in &mut study.sweeps {
            s.estimators = estimators.clone();
        }
        study.estimators = estimators;
    }
    let dir = ctx.part_dir(dir_name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(crate::Error::io(&dir))?;
    }
    crate::study::run_into(&study, &dir, None, &crate::report::sweep::write)
}
