//! Training the joint-level NIM of a study ([`crate::estimate::nim::joint`]) on its training
//! arms: their least squares as the examples, the training length chosen and σ calibrated on
//! arms kept out of the network's training.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{identify, one_structure, truth};
use crate::estimate::Experiment;
use crate::estimate::Options;
use crate::estimate::nim::dense::Dense;
use crate::estimate::nim::joint::sensing::encode_bodies;
use crate::estimate::nim::joint::{Example, JointNim, Labeled, LinkPopulation, Prior, Sensing};
use crate::estimate::nim::mlp::BurnMlp;
use crate::estimate::nim::{Loss, TrainConfig};
use sim::reading::Run;

/// How the joint-level NIM of a study was trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Training {
    /// Arms the network was trained on.
    pub arms: usize,
    /// Training arms kept out to choose the training length and calibrate σ.
    pub calibration_arms: usize,
    /// Training arms IDIM-OLS could not identify (left out).
    pub skipped: usize,
    /// Layer widths.
    pub widths: Vec<usize>,
    /// Networks in the ensemble (absent in results written before ensembles: one).
    #[serde(default = "one")]
    pub members: usize,
    /// Optimizer steps of the network kept.
    pub steps: usize,
    /// Each candidate length with its calibration arms' likelihood ([`JointNim::nll`]).
    pub candidates: Vec<(usize, f64)>,
    /// The factor on the network's σ fitted on the calibration arms.
    pub sigma_scale: f64,
    /// Seconds spent computing the training arms' least squares (wall clock).
    pub encode_seconds: f64,
    /// Threads that computed them.
    #[serde(default)]
    pub threads: usize,
    /// Seconds spent training the candidate networks.
    pub train_seconds: f64,
    /// The saved network's inference, microseconds per arm (one batch of the kept-out arms).
    #[serde(default)]
    pub inference_micros: f64,
    /// Where the model was saved.
    pub saved: String,
}

/// The training examples of `training`'s arms, each with its arm's index: the arm's encoding
/// ([`Sensing`]: IDIM-OLS's base parameters, MIM-GLS's body parameters) with their standard
/// deviations, beside its truth (the only read of the truth: the labels). Arms the encoder
/// cannot identify are left out; their count is returned.
pub fn examples(
    sensing: Sensing,
    training: &[Run],
) -> crate::Result<(Vec<(usize, Example)>, usize)> {
    let options = Options::default();
    let solved: Vec<crate::Result<Option<(usize, Example)>>> = (training.par_iter().enumerate())
        .map(|(arm, run)| {
            let (ids, truth) = truth(sensing, run);
            let encoded = match sensing {
                Sensing::JointLevel => identify(run, sensing.encoder(), &ids, &options).ok(),
                Sensing::Paper => (encode_bodies(&Experiment::single(&run.measurements)))
                    .ok()
                    .map(|e| e.1),
            };
            Ok(encoded.map(|ols| (arm, Example { ols, truth })))
        })
        .collect();
    let mut examples = Vec::with_capacity(training.len());
    for e in solved {
        examples.extend(e?);
    }
    let skipped = training.len() - examples.len();
    Ok((examples, skipped))
}

fn one() -> usize {
    1
}

/// The joint-level NIM's network: hidden layer widths. Small on purpose: trained on a thousand
/// arms, wider networks (256 × 256) fit the training arms' noise and state σ that cover 30–80 %
/// of held-out arms' errors where this one covers about 95 % (measured while choosing).
pub const HIDDEN: [usize; 2] = [64, 64];

/// Networks in the ensemble, each from its own seed ([`crate::estimate::nim::joint`]'s
/// docs): five average out most of one network's errors where the estimate it reads is already
/// as good as it gets (measured on paper sensing: one network 0.2–1.6 % worse than MIM-GLS at
/// 1e-3 on arm6_fourier over 100 seeds, five and the longer grid 1.3 % better).
pub const MEMBERS: usize = 5;

/// The candidate training lengths (optimizer steps), chosen among by the calibration arms'
/// likelihood ([`JointNim::nll`]): early stopping on arms the network does not train on.
pub const STEPS: [usize; 7] = [250, 500, 1000, 2000, 4000, 8000, 16000];

/// How a study's NIM is trained: the ensemble's size and the candidate training lengths.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// Networks in the ensemble.
    pub members: usize,
    /// Candidate lengths (optimizer steps), each trained, the best kept.
    pub steps: Vec<usize>,
}

impl Default for Recipe {
    /// The studies' recipe: [`MEMBERS`] networks, lengths [`STEPS`].
    fn default() -> Self {
        Recipe {
            members: MEMBERS,
            steps: STEPS.to_vec(),
        }
    }
}

/// The share of the training arms kept out of the network's training to choose its length and
/// calibrate its σ ([`JointNim::calibrate`]).
pub const CALIBRATION_SHARE: f64 = 0.2;

/// The joint-level NIM's training settings for `steps` optimizer steps: Adam from 1e-3 down to
/// 1e-5 (cosine), β-NLL with β = 0.5, batches of 64 arms.
pub fn train_config(steps: usize) -> TrainConfig {
    TrainConfig {
        learning_rate: 1e-3,
        final_learning_rate: Some(1e-5),
        target_mse: 0.0,
        max_steps: steps,
        batch: 64,
        seed: 28,
        loss: Loss::GaussianNll { beta: 0.5 },
    }
}

/// Trains the run-level NIM of `sensing` ([`crate::estimate::nim::joint`]) on the `training`
/// arms of `population` and saves it into `dir`: the last [`CALIBRATION_SHARE`] of the arms are kept
/// out; the network is trained on the others for each length of the `recipe`, the one whose
/// estimates fit the kept-out arms best ([`JointNim::nll`]) is kept, and its σ is calibrated on
/// them ([`JointNim::calibrate`]). Arms of one kinematic structure get a model of their base
/// parameter vector; arms of many (random arms) a model that reads one parameter at a time,
/// each arm's prior from the fitted arms' links ([`LinkPopulation`]; joint-level sensing
/// only).
pub fn train(
    sensing: Sensing,
    population: &str,
    training: &[Run],
    recipe: &Recipe,
    dir: &std::path::Path,
) -> crate::Result<Training> {
    let t0 = std::time::Instant::now();
    let (examples, skipped) = examples(sensing, training)?;
    let encode_seconds = t0.elapsed().as_secs_f64();
    let kept_out = ((examples.len() as f64 * CALIBRATION_SHARE).round() as usize).max(1);
    let (fit, calibration) = examples.split_at(examples.len().saturating_sub(kept_out));
    let model_of = |&(arm, _): &(usize, Example)| &training[arm].manifest.model;
    let shared = one_structure((examples.iter()).map(|f| (model_of(f), f.1.truth.len())));
    if !shared && sensing == Sensing::Paper {
        return Err(crate::Error::invalid(
            format!("paper-sensing NIM on {population}: the arms"),
            "arms of one kinematic structure",
        ));
    }
    let links =
        (!shared).then(|| LinkPopulation::of(&fit.iter().map(model_of).collect::<Vec<_>>()));
    let priors: Vec<Prior> = match &links {
        None => {
            let truths: Vec<Vec<f64>> = fit.iter().map(|f| f.1.truth.clone()).collect();
            let prior = Prior::of(&truths)
                .map_err(|e| e.within(format!("joint-level NIM on {population}")))?;
            vec![prior; examples.len()]
        }
        Some(links) => (examples.iter())
            .map(|f| links.prior_for(model_of(f)))
            .collect::<Result<_, _>>()
            .map_err(|e| e.within(format!("joint-level NIM on {population}")))?,
    };
    let labeled: Vec<Labeled> = priors.iter().zip(examples.iter().map(|f| &f.1)).collect();
    let (labeled_fit, labeled_calibration) = labeled.split_at(fit.len());
    let t1 = std::time::Instant::now();
    let mut candidates = Vec::with_capacity(recipe.steps.len());
    let mut best: Option<(f64, JointNim<BurnMlp>)> = None;
    for &steps in &recipe.steps {
        let config = train_config(steps);
        let model = match &links {
            None => {
                let fit: Vec<Example> = fit.iter().map(|f| f.1.clone()).collect();
                JointNim::<BurnMlp>::train(
                    sensing,
                    population,
                    &fit,
                    &HIDDEN,
                    recipe.members,
                    &config,
                )?
                .0
            }
            Some(links) => {
                let (model, _) = JointNim::<BurnMlp>::train_per_parameter(
                    population,
                    links.clone(),
                    labeled_fit,
                    &HIDDEN,
                    recipe.members,
                    &config,
                );
                model
            }
        };
        let nll = model.nll(labeled_calibration);
        candidates.push((steps, nll));
        if best.as_ref().is_none_or(|(b, _)| nll < *b) {
            best = Some((nll, model));
        }
    }
    let (_, mut model) = best.expect("at least one candidate");
    model.calibrate(labeled_calibration);
    model.save(dir)?;
    // Inference as `nim` runs it: the saved model through the nalgebra forward pass, the
    // kept-out arms in one batch.
    let saved = JointNim::<Dense>::load(dir)?;
    let batch: Vec<(&Prior, &[(f64, f64)])> = (labeled_calibration.iter())
        .map(|(p, e)| (*p, e.ols.as_slice()))
        .collect();
    let t2 = std::time::Instant::now();
    let predicted = saved.predict(&batch);
    let inference_micros = 1e6 * t2.elapsed().as_secs_f64() / predicted.len().max(1) as f64;
    let steps = (candidates.iter())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |c| c.0);
    Ok(Training {
        arms: fit.len(),
        calibration_arms: calibration.len(),
        skipped,
        widths: model.card.widths.clone(),
        members: model.card.members,
        steps,
        candidates,
        sigma_scale: model.card.sigma_scale,
        encode_seconds,
        threads: rayon::current_num_threads(),
        train_seconds: t1.elapsed().as_secs_f64(),
        inference_micros,
        saved: dir.display().to_string(),
    })
}
