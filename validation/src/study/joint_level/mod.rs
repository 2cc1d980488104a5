//! Joint-level identification across a population of robots (issue 28): held-out arms of a
//! population sensed as real arms log (joint angles and drive currents, each arm at its own
//! drawn noise level, `noise_scale`), each identified from its own run by the whole-arm
//! estimators and by the joint-level NIM trained on the training arms ([`train`],
//! [`crate::estimate::nim::joint`]; method `nim` with the study's models), beside the answer
//! that needs no data at all: the mean of the training arms' true base parameters (the
//! population's spread — what a prior-carrying learned identifier must beat before it can claim
//! to have read anything), and the simplest identifier that carries that prior: IDIM-OLS shrunk
//! toward the population mean parameter by parameter ([`shrunk`]).
//!
//! **Paper sensing.** The same study on a population read by force/torque sensors at every
//! joint ([`Sensing::Paper`]): MIM-GLS beside the paper-sensing NIM, the parameters MIM's six
//! per body, the score over the central moments `j11..j33` that the run determines (those
//! MIM-GLS identifies on it; the per-axis masses are near exact for every method).
//!
//! **Score.** Per arm and method, the median over the arm's base parameters (`base.k`,
//! [`crate::param::arm_truth`]; those with `|truth| ≥` [`COUNTED`] of the largest) of
//! `|estimate − truth| / |truth|`; per noise band (the arm's drawn factor on the file's σ) the
//! median and 90th percentile over the arms, and for a method that states standard deviations
//! (IDIM-OLS) the share of the counted parameters whose truth lies within ±2σ of its estimate
//! (its calibration; 95 % for a calibrated σ). The base parameters are combinations fixed by the
//! kinematics' structure: where the training arms share it (a scaled family) the population's
//! answer is the mean of their base parameters; where they do not (random arms) it is their
//! links put on each held-out arm's own kinematics ([`LinkPopulation`]).
//!
//! Computation only; [`crate::report::joint_level`] renders the result.

use serde::{Deserialize, Serialize};

use rayon::prelude::*;

mod training;

pub use training::{
    CALIBRATION_SHARE, HIDDEN, MEMBERS, Recipe, STEPS, Training, examples, train, train_config,
};

use crate::estimate::engine::NoEstimate;
use crate::estimate::nim::joint::sensing::{body_parameters, encode_bodies, read};
use crate::estimate::nim::joint::{LinkPopulation, Prior, Sensing};
use crate::estimate::{Estimator, EstimatorId, Experiment, Options, Role, by_id};
use crate::param::{ParamId, arm_truth, truth_table};
use sim::reading::Run;

/// Parameters counted: `|truth|` at least this share of the arm's largest base parameter.
pub const COUNTED: f64 = 1e-6;

/// The method name of the population-mean answer.
pub const POPULATION_MEAN: &str = "population_mean";

/// The noise bands (factors on the file's σ), as lower bounds; the last is open.
pub(crate) const BANDS: [f64; 4] = [0.0, 0.3, 1.0, 3.0];

/// One method in one noise band.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BandRow {
    /// The band's lowest factor on the file's σ.
    pub low: f64,
    /// Its highest, excluded (`None`: open).
    pub high: Option<f64>,
    /// The estimator (or [`POPULATION_MEAN`]).
    pub method: String,
    /// Arms scored.
    pub arms: usize,
    /// Median over the arms of each arm's median relative error.
    pub median: f64,
    /// Their 90th percentile.
    pub p90: f64,
    /// For a method that states standard deviations: the share of the counted parameters
    /// (over the band's arms) whose truth lies within ±2σ of the estimate.
    pub coverage: Option<f64>,
}

/// The study's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLevelStudy {
    /// What the arms' runs read (absent in results written before paper sensing: joint level).
    #[serde(default)]
    pub sensing: Sensing,
    /// The population scenario's name.
    pub population: String,
    /// Arms whose truths make the population mean.
    pub training_arms: usize,
    /// Held-out arms scored.
    pub held_out_arms: usize,
    /// Base parameters per arm (0: each arm its own number, a population of many structures).
    pub base_parameters: usize,
    /// Per noise band and method.
    pub rows: Vec<BandRow>,
    /// Arms a method could not identify, with the reason: `(method, arm, reason)`.
    pub failures: Vec<(String, usize, String)>,
    /// How the joint-level NIM scored here (method `nim`) was trained, where one was.
    #[serde(default)]
    pub training: Option<Training>,
    /// The same methods on other arms (another motion family, another population), where
    /// scored.
    #[serde(default)]
    pub others: Vec<OtherArms>,
    /// The study's NIM beside its encoder in a noise sweep on fixed runs, where one was run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<crate::study::level_summary::LevelSummary>,
}

/// A study's methods scored on other held-out arms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OtherArms {
    /// A heading for the report.
    pub title: String,
    /// What the arms are, and what the methods were trained on.
    pub description: String,
    /// Arms scored.
    pub arms: usize,
    /// Base parameters per arm (0: each arm its own number).
    pub base_parameters: usize,
    /// Per noise band and method, as [`JointLevelStudy::rows`].
    pub rows: Vec<BandRow>,
    /// Arms a method could not identify: `(method, arm, reason)`.
    pub failures: Vec<(String, usize, String)>,
}

impl From<JointLevelStudy> for OtherArms {
    /// A study's rows as other arms' (title and description empty).
    fn from(s: JointLevelStudy) -> Self {
        OtherArms {
            title: String::new(),
            description: String::new(),
            arms: s.held_out_arms,
            base_parameters: s.base_parameters,
            rows: s.rows,
            failures: s.failures,
        }
    }
}

/// One held-out arm's errors: its noise factor and, per method, its score.
struct ArmScore {
    factor: f64,
    errors: Vec<(String, Score)>,
}

/// A method's score on one arm.
struct Score {
    /// The median relative error over the counted parameters.
    median: f64,
    /// `(within ±2σ, with a σ)` among them, where the method states σ.
    covered: Option<(usize, usize)>,
}

impl Score {
    /// The score of `estimate` against `truth` over the `counted` parameters, each estimate's σ
    /// in `std` where stated.
    fn of(estimate: &[f64], std: Option<&[f64]>, truth: &[f64], counted: &[usize]) -> Score {
        let covered = std.map(|std| {
            let stated: Vec<usize> = (counted.iter().copied())
                .filter(|&k| std[k].is_finite())
                .collect();
            let within = (stated.iter())
                .filter(|&&k| (estimate[k] - truth[k]).abs() <= 2.0 * std[k])
                .count();
            (within, stated.len())
        });
        let errors: Vec<f64> = (counted.iter())
            .map(|&k| {
                let r = ((estimate[k] - truth[k]) / truth[k]).abs();
                if r.is_finite() { r } else { f64::INFINITY }
            })
            .collect();
        Score {
            median: crate::study::stats::median(&errors),
            covered: covered.filter(|c| c.1 > 0),
        }
    }
}

/// The parameters scored on `run` (their ids and truths [`truth`]): those with `|truth|` at
/// least [`COUNTED`] of the largest, and with paper sensing only the central moments the run
/// determines (those its MIM encoding identifies, [`encode_bodies`]).
fn counted(sensing: Sensing, run: &Run, ids: &[ParamId], truth: &[f64]) -> Vec<usize> {
    let largest = truth.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
    let large = (0..truth.len()).filter(|&k| truth[k].abs() >= COUNTED * largest);
    match sensing {
        Sensing::JointLevel => large.collect(),
        Sensing::Paper => {
            let encoded = encode_bodies(&Experiment::single(&run.measurements))
                .map(|e| e.1)
                .unwrap_or_default();
            large
                .filter(|&k| ids[k].is_moment() && encoded.get(k).is_some_and(|e| e.0.is_finite()))
                .collect()
        }
    }
}

/// Scores `methods` (registry names, built with `options`: `nim` reads its models from
/// `options.nim_models`) on the `held_out` arms against the truths of `sensing`'s parameters,
/// beside the mean of the `training` arms' and, where `methods` has the sensing's encoder, its
/// estimates shrunk toward that mean ([`shrunk`]; module docs). The arms are identified in
/// parallel; the result does not depend on the thread count.
pub fn evaluate(
    sensing: Sensing,
    population: &str,
    training: &[Run],
    held_out: &[Run],
    methods: &[EstimatorId],
    options: &Options,
) -> crate::Result<JointLevelStudy> {
    let built: Vec<_> = (methods.iter()).map(|&id| by_id(options, id)).collect();
    let methods: Vec<&dyn Estimator> = built.iter().map(|e| e.as_ref()).collect();
    evaluate_with(sensing, population, training, held_out, &methods)
}

/// [`evaluate`] with estimators built by the caller (one outside the registry, e.g. a model
/// trained by the study itself), each named by its [`Estimator::name`].
pub fn evaluate_with(
    sensing: Sensing,
    population: &str,
    training: &[Run],
    held_out: &[Run],
    methods: &[&dyn Estimator],
) -> crate::Result<JointLevelStudy> {
    let prior = PopulationPrior::of(sensing, training)?;
    let arms: Vec<crate::Result<(ArmScore, Vec<Failure>)>> = (held_out.par_iter().enumerate())
        .map(|(arm, run)| score_arm(sensing, run, arm, &prior, methods))
        .collect();
    let mut failures = Vec::new();
    let mut scores = Vec::with_capacity(held_out.len());
    for arm in arms {
        let (score, failed) = arm?;
        scores.push(score);
        failures.extend(failed);
    }
    let mut names: Vec<String> = std::iter::once(POPULATION_MEAN.to_string())
        .chain(methods.iter().map(|m| m.name().to_string()))
        .collect();
    if methods.iter().any(|m| m.name() == sensing.encoder().name()) {
        names.push(shrunk(sensing));
    }
    Ok(JointLevelStudy {
        sensing,
        population: population.into(),
        training_arms: training.len(),
        held_out_arms: held_out.len(),
        base_parameters: match &prior {
            PopulationPrior::Shared(p) => p.len(),
            PopulationPrior::Links(_) => 0,
        },
        rows: bands(&scores, &names),
        failures,
        training: None,
        others: Vec::new(),
        sweep: None,
    })
}

/// A method that could not identify a held-out arm: `(method, arm, reason)`.
type Failure = (String, usize, String);

/// Held-out arm `arm`'s scores (and the methods that failed on it).
fn score_arm(
    sensing: Sensing,
    run: &Run,
    arm: usize,
    prior: &PopulationPrior,
    methods: &[&dyn Estimator],
) -> crate::Result<(ArmScore, Vec<Failure>)> {
    let (ids, truth) = self::truth(sensing, run);
    let counted = counted(sensing, run, &ids, &truth);
    let own;
    let prior = match prior {
        PopulationPrior::Shared(p) if truth.len() != p.len() => {
            return Err(structure_error(run, truth.len(), p.len()));
        }
        PopulationPrior::Shared(p) => p,
        PopulationPrior::Links(links) => {
            own = (links.prior_for(&run.manifest.model))
                .map_err(|e| e.within(format!("joint-level study, run `{}`", run.dir.display())))?;
            &own
        }
    };
    let mut errors = vec![(
        POPULATION_MEAN.to_string(),
        Score::of(&prior.mean, None, &truth, &counted),
    )];
    let mut failures = Vec::new();
    for &method in methods {
        let name = method.name();
        match identify_with(run, method, &ids) {
            Ok(estimates) => {
                let values: Vec<f64> = estimates.iter().map(|e| e.0).collect();
                let std: Vec<f64> = estimates.iter().map(|e| e.1).collect();
                let stated = std.iter().any(|s| s.is_finite()).then_some(std.as_slice());
                let score = Score::of(&values, stated, &truth, &counted);
                errors.push((name.to_string(), score));
                if name == sensing.encoder() {
                    let revised: Vec<f64> = (estimates.iter().enumerate())
                        .map(|(k, &(x, s))| prior.anchor(k, x, s).centre)
                        .collect();
                    let score = Score::of(&revised, None, &truth, &counted);
                    errors.push((shrunk(sensing), score));
                }
            }
            Err(reason) => failures.push((name.to_string(), arm, reason.to_string())),
        }
    }
    let factor = run.manifest.noise_scale.unwrap_or(1.0);
    Ok((ArmScore { factor, errors }, failures))
}

/// What the training arms say about a held-out arm's base parameters.
enum PopulationPrior {
    /// Arms of one kinematic structure: the mean and spread of their true base parameters.
    Shared(Prior),
    /// Arms of many structures: their links, put on each held-out arm's kinematics
    /// ([`LinkPopulation`]).
    Links(LinkPopulation),
}

/// Whether arms `(model, base parameters)` share one kinematic structure: the first's joint
/// count and number of base parameters (the structures the studies' populations draw differ in
/// at least one).
pub(crate) fn one_structure<'a>(
    arms: impl IntoIterator<Item = (&'a sim::model::Chain, usize)>,
) -> bool {
    let mut arms = arms.into_iter();
    let Some((first, n)) = arms.next() else {
        return true;
    };
    arms.all(|(m, k)| m.len() == first.len() && k == n)
}

impl PopulationPrior {
    /// `Shared` if every training arm has the first's joints and base parameters, else `Links`;
    /// `Err` with fewer than two training arms.
    fn of(sensing: Sensing, training: &[Run]) -> crate::Result<PopulationPrior> {
        let truths: Vec<Vec<f64>> = training.iter().map(|r| truth(sensing, r).1).collect();
        let arms = training.iter().map(|r| &r.manifest.model).zip(&truths);
        if !one_structure(arms.map(|(m, t)| (m, t.len()))) && training.len() >= 2 {
            let models: Vec<&sim::model::Chain> =
                training.iter().map(|r| &r.manifest.model).collect();
            return Ok(PopulationPrior::Links(LinkPopulation::of(&models)));
        }
        Prior::of(&truths)
            .map(PopulationPrior::Shared)
            .map_err(|e| e.within("joint-level study"))
    }
}

/// The method name of the sensing's encoder (IDIM-OLS, MIM-GLS) shrunk toward the population:
/// per parameter, the precision-weighted mean of the estimate `x̂` (its stated std `s`) and the
/// training arms' mean `μ` (their variance `v`): `(x̂/s² + μ/v) / (1/s² + 1/v)`, each parameter
/// on its own (the estimates' correlations ignored). The answer of the simplest prior-carrying
/// identifier: where the run determines a parameter (`s² ≪ v`) it is the estimator's, where it
/// says little the population's.
pub fn shrunk(sensing: Sensing) -> String {
    format!("{}_shrunk", sensing.encoder())
}

/// `name`'s estimates `(value, std)` of the parameters `ids` from `run`'s own measurements
/// (`Ok(Err)`: the estimator does not apply or failed, with the reason; `Err`: no such
/// estimator). A missing value or std is NaN.
pub(crate) fn identify(
    run: &Run,
    id: EstimatorId,
    ids: &[ParamId],
    options: &Options,
) -> Result<Vec<(f64, f64)>, NoEstimate> {
    identify_with(run, by_id(options, id).as_ref(), ids)
}

/// `estimator`'s estimates `(value, std)` of the parameters `ids` from `run`'s own
/// measurements, or why it does not apply or failed. A missing value or std is NaN.
fn identify_with(
    run: &Run,
    estimator: &dyn Estimator,
    ids: &[ParamId],
) -> Result<Vec<(f64, f64)>, NoEstimate> {
    let m = &run.measurements;
    let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
    Ok(read(
        &crate::estimate::engine::run(estimator, &experiment)?,
        ids,
    ))
}

/// The parameters `sensing` scores on `run` — the arm's base parameters `base.1 …`, or MIM's six
/// per body — and their truths (the scorer's only read of the truth).
pub(crate) fn truth(sensing: Sensing, run: &Run) -> (Vec<ParamId>, Vec<f64>) {
    let model = &run.manifest.model;
    match sensing {
        Sensing::JointLevel => {
            let truth = arm_truth(model);
            (1..)
                .map_while(|k| truth.get(&ParamId::Base(k)).map(|&t| (ParamId::Base(k), t)))
                .unzip()
        }
        Sensing::Paper => {
            let truth = truth_table(model);
            let ids = body_parameters(run.measurements.bodies.len());
            let values = (ids.iter())
                .map(|id| truth.get(id).copied().unwrap_or(f64::NAN))
                .collect();
            (ids, values)
        }
    }
}

fn structure_error(run: &Run, got: usize, expected: usize) -> crate::Error {
    crate::Error::invalid(
        format!(
            "joint-level study, run `{}` ({got} base parameters)",
            run.dir.display()
        ),
        format!(
            "arms of one kinematic structure (a scaled family, not random arms): the population's \
             first arm's {expected}"
        ),
    )
}

/// Per band and method, the median and 90th percentile of the arms' errors.
fn bands(scores: &[ArmScore], names: &[String]) -> Vec<BandRow> {
    let mut rows = Vec::new();
    for (b, &low) in BANDS.iter().enumerate() {
        let high = BANDS.get(b + 1).copied();
        let within: Vec<&ArmScore> = (scores.iter())
            .filter(|s| s.factor >= low && high.is_none_or(|h| s.factor < h))
            .collect();
        if within.is_empty() {
            continue;
        }
        for name in names {
            let scores: Vec<&Score> = (within.iter())
                .filter_map(|s| s.errors.iter().find(|(n, _)| n == name).map(|e| &e.1))
                .collect();
            if scores.is_empty() {
                continue;
            }
            let errors: Vec<f64> = scores.iter().map(|s| s.median).collect();
            let covered: Vec<(usize, usize)> = scores.iter().filter_map(|s| s.covered).collect();
            let (within, stated) = (covered.iter()).fold((0, 0), |(a, b), c| (a + c.0, b + c.1));
            rows.push(BandRow {
                low,
                high,
                method: name.clone(),
                arms: errors.len(),
                median: crate::study::stats::median(&errors),
                p90: crate::study::stats::quantile(&errors, 0.9),
                coverage: (stated > 0).then(|| within as f64 / stated as f64),
            });
        }
    }
    rows
}
