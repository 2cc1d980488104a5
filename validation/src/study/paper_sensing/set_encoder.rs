//! The learned set encoder of the paper-sensing study ([`crate::estimate::nim::set`]): trained
//! on the same training arms as the run-level NIM, its calibration arms the same share, its
//! σ scaled on them the same way, scored beside it on the same held-out arms.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::estimate::nim::ensemble::{TWO_SIGMA_COVERAGE, conformal_quantile};
use crate::estimate::nim::joint::{Prior, Sensing};
use crate::estimate::nim::set::network::{SetData, SetTraining, train};
use crate::estimate::nim::set::samples::{
    CONTEXT_PER_BODY, PER_BODY, SAMPLES, SampleSet, Standardization,
};
use crate::estimate::nim::set::{SetNim, target_scale};
use crate::study::joint_level::{CALIBRATION_SHARE, train_config, truth};
use sim::reading::Run;

/// `φ`'s widths (the last is the pooled width).
pub(crate) const PHI: [usize; 3] = [128, 128, 128];
/// `ρ`'s hidden widths.
pub(crate) const RHO: [usize; 2] = [128, 128];
/// Arms per batch.
pub(crate) const BATCH: usize = 32;

/// How the set encoder of a study was trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetTrainingReport {
    /// Arms it was trained on.
    pub arms: usize,
    /// Training arms kept out to choose the checkpoint and calibrate σ.
    pub calibration_arms: usize,
    /// Training arms it could not read (left out: fewer samples than it reads, or no stated
    /// force/torque noise).
    pub skipped: usize,
    /// `φ`'s widths, input first.
    pub phi: Vec<usize>,
    /// `ρ`'s widths, input first.
    pub rho: Vec<usize>,
    /// Optimizer steps run, and of the checkpoint kept.
    pub max_steps: usize,
    /// The checkpoint kept.
    pub steps: usize,
    /// Its mean NLL per target on the calibration arms (standardized targets).
    pub calibration_nll: f64,
    /// The factor on its σ fitted on the calibration arms.
    pub sigma_scale: f64,
    /// Seconds spent training.
    pub train_seconds: f64,
}

/// An arm read: its set and its parameters' truths (the labels).
type Read = (SampleSet, Vec<f64>);

/// Trains the set encoder on `training` for `steps` optimizer steps, checking the calibration
/// arms every `check_every` (the last [`CALIBRATION_SHARE`] of the arms it can read).
pub fn train_set_encoder(
    training: &[Run],
    steps: usize,
    check_every: usize,
) -> crate::Result<(SetNim, SetTrainingReport)> {
    let read: Vec<Option<Read>> = (training.par_iter())
        .map(|run| {
            let set = SampleSet::of(&run.measurements).ok()?;
            Some((set, truth(Sensing::Paper, run).1))
        })
        .collect();
    let skipped = read.iter().filter(|r| r.is_none()).count();
    let read: Vec<Read> = read.into_iter().flatten().collect();
    let kept_out = ((read.len() as f64 * CALIBRATION_SHARE).round() as usize).max(1);
    let (fit, calibration) = read.split_at(read.len().saturating_sub(kept_out));
    let data_error = |e: crate::Error| e.within("set encoder");
    let truths: Vec<Vec<f64>> = fit.iter().map(|r| r.1.clone()).collect();
    let prior = Prior::of(&truths).map_err(data_error)?;
    let bodies = prior.len() / 6;
    let row_width = PER_BODY * bodies;
    let context_width = CONTEXT_PER_BODY * bodies;
    let rows = Standardization::fit(fit.iter().map(|r| r.0.rows.as_slice()), row_width);
    let context = Standardization::fit(fit.iter().map(|r| r.0.context.as_slice()), context_width);
    let fit_data = data(&rows, &context, &prior, fit);
    let calibration_data = data(&rows, &context, &prior, calibration);
    let how = SetTraining {
        phi: PHI.to_vec(),
        rho: RHO.to_vec(),
        config: crate::estimate::nim::TrainConfig {
            batch: BATCH,
            ..train_config(steps)
        },
        check_every,
    };
    let trained = train(&fit_data, &calibration_data, &how).map_err(data_error)?;
    let mut model = SetNim {
        encoder: trained.encoder,
        rows,
        context,
        prior,
        sigma_scale: 1.0,
    };
    model.sigma_scale = sigma_scale(&model, &calibration_data, calibration);
    let mut phi = vec![row_width];
    phi.extend(PHI);
    let mut rho = vec![PHI[PHI.len() - 1] + context_width];
    rho.extend(RHO);
    rho.push(2 * model.prior.len());
    let report = SetTrainingReport {
        arms: fit.len(),
        calibration_arms: calibration.len(),
        skipped,
        phi,
        rho,
        max_steps: steps,
        steps: trained.steps,
        calibration_nll: trained.calibration_nll,
        sigma_scale: model.sigma_scale,
        train_seconds: trained.seconds,
    };
    Ok((model, report))
}

/// Arms `read` as the network reads them: `rows` and `context` standardized, the targets in
/// units of the `prior`'s spread about its mean.
fn data(
    rows: &Standardization,
    context: &Standardization,
    prior: &Prior,
    read: &[Read],
) -> SetData {
    let mut out = SetData {
        samples: SAMPLES,
        arms: read.len(),
        ..SetData::default()
    };
    for (set, truth) in read {
        let standardized = rows.apply(&set.rows);
        out.row_width = standardized.len() / SAMPLES;
        out.rows.extend(standardized);
        out.context.extend(context.apply(&set.context));
        out.targets.extend(
            (truth.iter().enumerate())
                .map(|(k, t)| ((t - prior.mean[k]) / target_scale(prior, k)) as f32),
        );
    }
    out
}

/// The factor that makes `model`'s ±2σ cover [`TWO_SIGMA_COVERAGE`] of the calibration arms'
/// errors (split-conformal, as the run-level NIM's), 1 if there are too few.
fn sigma_scale(model: &SetNim, data: &SetData, read: &[Read]) -> f64 {
    let out = model.encoder.outputs(&data.rows, &data.context);
    let width = out.len() / read.len().max(1);
    let mut ratios: Vec<f64> = (out.chunks_exact(width.max(1)).zip(read))
        .flat_map(|(o, (_, truth))| {
            let revised = model.decode(o);
            (truth.iter().zip(revised)).map(|(t, (v, s))| (t - v).abs() / s)
        })
        .filter(|r| r.is_finite())
        .collect();
    conformal_quantile(&mut ratios, TWO_SIGMA_COVERAGE).map_or(1.0, |q| q / 2.0)
}
