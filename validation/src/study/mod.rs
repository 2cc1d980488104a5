//! Studies: estimators run over experiments and noise levels, with their statistics. Reports
//! render study results; they compute nothing themselves.

pub mod cache;
pub mod effect;
pub mod effect_sweep;
pub mod estimators;
pub mod file;
pub mod identify;
pub mod industrial;
pub mod joint_level;
pub mod level_summary;
pub mod mim;
pub mod monte_carlo;
pub mod multisine;
pub mod nim;
pub mod nim_motion;
pub mod paper_sensing;
pub mod plan;
pub mod recorded;
pub mod run_view;
pub mod servo_fit;
pub mod stats;
pub mod survival;
pub mod sweep;
pub mod teaching;

use std::path::{Path, PathBuf};

use crate::estimate::EstimatorId;

/// The whole-arm identifiers the industrial and recorded-run studies compare (API names):
/// IDIM OLS, WLS, TLS on base parameters, and on standard parameters with a prior,
/// unconstrained and physically consistent.
pub(crate) const IDIM_FAMILY: [EstimatorId; 5] = [
    EstimatorId::IdimOls,
    EstimatorId::IdimWls,
    EstimatorId::IdimTls,
    EstimatorId::IdimPrior,
    EstimatorId::IdimConsistent,
];

/// One scenario's part of a study: its sensor sweeps and its effect sweeps.
fn scenario_block(
    study: &file::Study,
    scenario: &Path,
    validation: Option<&Path>,
    extra: &[&dyn crate::estimate::Estimator],
    tick: &(dyn Fn() + Sync),
) -> crate::Result<sweep::SweepResult> {
    let mut block = if study.sweeps.is_empty() {
        sweep::SweepResult::default()
    } else {
        sweep::scenario_block(study, scenario, extra, tick)?
    };
    if !study.effects.is_empty() {
        let (rows, skipped) =
            effect_sweep::scenario_block(study, scenario, validation, extra, tick)?;
        block.effects = rows;
        block.skipped.extend(skipped);
    }
    Ok(block)
}

/// Runs a study into the directory `out`: every scenario's block is computed (or, after an
/// interruption, read back from the work directory `.<out>.partial`), then the whole result is
/// written (`sweep.json`, and the report files `render` writes) and the work directory renamed
/// to `out`, replacing it: `out` is complete or absent.
pub fn run_into(
    study: &file::Study,
    out: &Path,
    progress: Option<&indicatif::ProgressBar>,
    render: &dyn Fn(&sweep::SweepResult, &Path) -> crate::Result<()>,
) -> crate::Result<sweep::SweepResult> {
    run_with(study, &[], out, progress, render)
}

/// [`run_into`] with `extra` estimators available beside the registry's and the study's
/// externals (the study's lists name them). Their code is not part of the study's
/// fingerprint, so a study with extras never reuses the blocks of an interrupted run.
pub fn run_with(
    study: &file::Study,
    extra: &[&dyn crate::estimate::Estimator],
    out: &Path,
    progress: Option<&indicatif::ProgressBar>,
    render: &dyn Fn(&sweep::SweepResult, &Path) -> crate::Result<()>,
) -> crate::Result<sweep::SweepResult> {
    let name = out
        .file_name()
        .map_or("sweep".into(), |n| n.to_string_lossy().into_owned());
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or(PathBuf::from("."), Path::to_owned);
    let work = parent.join(format!(".{name}.partial"));
    // Blocks are reused only by the same study (its settings, fingerprinted); a work directory
    // left by another is discarded.
    let fingerprint = format!("{study:?}");
    let stamp = work.join("study.txt");
    if work.exists()
        && (!extra.is_empty()
            || std::fs::read_to_string(&stamp).ok().as_deref() != Some(fingerprint.as_str()))
    {
        std::fs::remove_dir_all(&work).map_err(crate::Error::io(&work))?;
    }
    std::fs::create_dir_all(&work).map_err(crate::Error::io(&work))?;
    std::fs::write(&stamp, &fingerprint).map_err(crate::Error::io(&stamp))?;
    let mut result = sweep::SweepResult {
        study: study.name.clone(),
        seeds: study.seeds,
        ..Default::default()
    };
    let tick = || {
        if let Some(pb) = progress {
            pb.inc(1);
        }
    };
    for (k, scenario) in study.scenarios.iter().enumerate() {
        let block_path = work.join(format!("block-{k}.json"));
        let block: sweep::SweepResult = match std::fs::read_to_string(&block_path) {
            Ok(text) => {
                let levels = study.sweeps.iter().map(|s| s.levels.len());
                let severities = study.effects.iter().map(|e| e.levels.len());
                let per_block: usize = levels.chain(severities).sum::<usize>() * study.seeds;
                if let Some(pb) = progress {
                    pb.inc(per_block as u64);
                }
                serde_json::from_str(&text).map_err(|e| crate::Error::Format {
                    path: block_path.clone(),
                    message: e.to_string(),
                })?
            }
            Err(_) => {
                let validation = study.validation.get(k).map(PathBuf::as_path);
                let block = scenario_block(study, scenario, validation, extra, &tick)?;
                let tmp = block_path.with_extension("tmp");
                std::fs::write(&tmp, serde_json::to_string(&block).expect("serializes"))
                    .map_err(crate::Error::io(&tmp))?;
                std::fs::rename(&tmp, &block_path).map_err(crate::Error::io(&block_path))?;
                block
            }
        };
        result.rows.extend(block.rows);
        result.effects.extend(block.effects);
        result.skipped.extend(block.skipped);
    }
    if !study.effects.is_empty() {
        let sweeps = result.rows.iter().map(|r| {
            let key = (
                r.scenario.clone(),
                r.sensor.name().into(),
                r.level,
                r.method.clone(),
            );
            (key, (r.parameter.clone(), r.summary))
        });
        let effects = result.effects.iter().map(|r| {
            let key = (
                r.scenario.clone(),
                r.effect.name().into(),
                r.level,
                r.method.clone(),
            );
            (key, (r.parameter.clone(), r.summary))
        });
        result.survival = survival::table(sweeps.chain(effects));
    }
    let json = work.join("sweep.json");
    std::fs::write(
        &json,
        serde_json::to_string_pretty(&result).expect("serializes"),
    )
    .map_err(crate::Error::io(&json))?;
    render(&result, &work)?;
    for k in 0..study.scenarios.len() {
        let _ = std::fs::remove_file(work.join(format!("block-{k}.json")));
    }
    let _ = std::fs::remove_file(&stamp);
    if out.exists() {
        std::fs::remove_dir_all(out).map_err(crate::Error::io(out))?;
    }
    std::fs::rename(&work, out).map_err(crate::Error::io(out))?;
    Ok(result)
}
