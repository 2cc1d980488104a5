//! Joint-level identification across a population of robots (issue 28's yardstick, before any
//! learned identifier joins it): held-out arms of a population sensed as real arms log (joint
//! angles and drive currents, each arm at its own drawn noise level, `noise_scale`), each
//! identified from its own run by the whole-arm estimators, beside the answer that needs no data
//! at all: the mean of the training arms' true base parameters (the population's spread — what a
//! prior-carrying learned identifier must beat before it can claim to have read anything).
//!
//! **Score.** Per arm and method, the median over the arm's base parameters (`base.k`,
//! [`crate::param::arm_truth`]; those with `|truth| ≥` [`COUNTED`] of the largest) of
//! `|estimate − truth| / |truth|`; per noise band (the arm's drawn factor on the file's σ) the
//! median and 90th percentile over the arms. The base parameters are combinations fixed by the
//! kinematics' structure, so the population's arms must share it (a scaled family: the same
//! joints, axes and base count; `Err` otherwise).
//!
//! Computation only; [`crate::report::joint_level`] renders the result.

use serde::{Deserialize, Serialize};

use crate::dataset::Run;
use crate::estimate::{Experiment, Options, Role, by_name};
use crate::param::{ParamId, arm_truth};

/// Parameters counted: `|truth|` at least this share of the arm's largest base parameter.
pub const COUNTED: f64 = 1e-6;

/// The method name of the population-mean answer.
pub const POPULATION_MEAN: &str = "population_mean";

/// The noise bands (factors on the file's σ), as lower bounds; the last is open.
pub const BANDS: [f64; 4] = [0.0, 0.3, 1.0, 3.0];

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
}

/// The study's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLevelStudy {
    /// The population scenario's name.
    pub population: String,
    /// Arms whose truths make the population mean.
    pub training_arms: usize,
    /// Held-out arms scored.
    pub held_out_arms: usize,
    /// Base parameters per arm.
    pub base_parameters: usize,
    /// Per noise band and method.
    pub rows: Vec<BandRow>,
    /// Arms a method could not identify, with the reason: `(method, arm, reason)`.
    pub failures: Vec<(String, usize, String)>,
}

/// One held-out arm's errors: its noise factor and, per method, its median relative error.
struct ArmScore {
    factor: f64,
    errors: Vec<(String, f64)>,
}

/// Scores `methods` on the `held_out` arms against the truths, beside the mean of the
/// `training` arms' base parameters (module docs).
pub fn evaluate(
    population: &str,
    training: &[Run],
    held_out: &[Run],
    methods: &[&str],
) -> crate::Result<JointLevelStudy> {
    let mean = population_mean(training)?;
    let mut failures = Vec::new();
    let mut scores = Vec::with_capacity(held_out.len());
    for (arm, run) in held_out.iter().enumerate() {
        let truth = base_truth(run);
        if truth.len() != mean.len() {
            return Err(structure_error(run, truth.len(), mean.len()));
        }
        let mut errors = vec![(POPULATION_MEAN.to_string(), median_error(&mean, &truth))];
        let m = &run.measurements;
        let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
        for &name in methods {
            let estimator =
                by_name(&Options::default(), name).ok_or_else(|| crate::Error::Invalid {
                    what: format!("joint-level study: estimator `{name}`"),
                    expected: "a name of the registry (`validation::estimate::registry`)".into(),
                })?;
            let estimate = (estimator.applies(&experiment).map_err(|e| e.to_string()))
                .and_then(|()| estimator.estimate(&experiment).map_err(|e| e.to_string()));
            match estimate {
                Ok(e) => {
                    let values: Vec<f64> = (1..=truth.len())
                        .map(|k| e.values.get(&ParamId::Base(k)).and_then(|v| v.value))
                        .map(|v| v.unwrap_or(f64::NAN))
                        .collect();
                    errors.push((name.to_string(), median_error(&values, &truth)));
                }
                Err(reason) => failures.push((name.to_string(), arm, reason)),
            }
        }
        scores.push(ArmScore {
            factor: run.manifest.noise_scale.unwrap_or(1.0),
            errors,
        });
    }
    let names: Vec<String> = std::iter::once(POPULATION_MEAN.to_string())
        .chain(methods.iter().map(|m| m.to_string()))
        .collect();
    Ok(JointLevelStudy {
        population: population.into(),
        training_arms: training.len(),
        held_out_arms: held_out.len(),
        base_parameters: mean.len(),
        rows: bands(&scores, &names),
        failures,
    })
}

/// The arm's true base parameters `base.1 …` (the scorer's only read of the truth).
fn base_truth(run: &Run) -> Vec<f64> {
    let truth = arm_truth(&run.manifest.model);
    (1..)
        .map_while(|k| truth.get(&ParamId::Base(k)).copied())
        .collect()
}

/// The mean of the training arms' base parameters; `Err` if their structures differ.
fn population_mean(training: &[Run]) -> crate::Result<Vec<f64>> {
    let first = training
        .first()
        .ok_or_else(|| crate::Error::Data("joint-level study: no training arms".into()))?;
    let mut sum = vec![0.0; base_truth(first).len()];
    for run in training {
        let truth = base_truth(run);
        if truth.len() != sum.len() {
            return Err(structure_error(run, truth.len(), sum.len()));
        }
        sum.iter_mut().zip(&truth).for_each(|(s, t)| *s += t);
    }
    Ok(sum.into_iter().map(|s| s / training.len() as f64).collect())
}

fn structure_error(run: &Run, got: usize, expected: usize) -> crate::Error {
    crate::Error::Data(format!(
        "joint-level study: {} has {got} base parameters, the population's first arm {expected}: \
         expected arms of one kinematic structure (a scaled family, not random arms)",
        run.dir.display()
    ))
}

/// The median over the counted parameters of `|estimate − truth| / |truth|` (a missing or
/// non-finite estimate counts as infinitely wrong).
fn median_error(estimate: &[f64], truth: &[f64]) -> f64 {
    let largest = truth.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
    let errors: Vec<f64> = (estimate.iter().zip(truth))
        .filter(|(_, t)| t.abs() >= COUNTED * largest)
        .map(|(e, t)| {
            let r = ((e - t) / t).abs();
            if r.is_finite() { r } else { f64::INFINITY }
        })
        .collect();
    crate::study::stats::median(&errors)
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
            let errors: Vec<f64> = (within.iter())
                .filter_map(|s| s.errors.iter().find(|(n, _)| n == name).map(|e| e.1))
                .collect();
            if errors.is_empty() {
                continue;
            }
            rows.push(BandRow {
                low,
                high,
                method: name.clone(),
                arms: errors.len(),
                median: crate::study::stats::median(&errors),
                p90: crate::study::stats::quantile(&errors, 0.9),
            });
        }
    }
    rows
}
