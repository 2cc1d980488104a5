//! The teaching paper's pipeline on `link2`, every identifier scored (rendered by
//! [`crate::report::teaching`]).
//!
//! Four clean runs (two sweeps, the excitation, the validation trajectory) are identified once
//! with ideal sensors (recorded `q̇, q̈`, no noise: level `none`) and then at two noise levels
//! over [`StudyConfig::seeds`] noise seeds each: `q` and `i` are measured again per seed by the
//! Monte-Carlo engine ([`crate::study::monte_carlo`]; the level stated, [`stated`]), never
//! re-simulated; with noise, `q̇, q̈` come from a Fourier
//! series of [`StudyConfig::harmonics`] harmonics and the regressor and torques are parallel-
//! filtered to [`StudyConfig::filter`] harmonics. The validation trajectory is processed the
//! same way and never used for identification. The result, [`TeachingStudy`], is serialized
//! (`teaching.json`) and the report is rendered from it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sim::noise::{ColumnNoise, Noise};

use crate::estimate::idim::{
    Adaptive, Identifier, IdimOls, IdimTls, IdimWls, Processed, Processing, SweepFit, TwoStep,
};
use crate::estimate::idim::{
    Derivatives, MIN_SPEED, Prepared, friction_gravity, friction_sweep, periodic_samples,
    torque_nrms,
};
use crate::estimate::{Estimator, EstimatorId, Experiment, Role, engine};
use crate::param::ParamId;
use crate::regressor::BaseParameters;
use crate::study::monte_carlo;
use sim::reading::{Measurements, Run, Stated};

/// A measurement noise level, as a study file states it (`studies/teaching.toml`,
/// `studies/industrial.toml`: [`crate::study::plan`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseLevel {
    /// Name in the report (`low`, `high`).
    pub name: String,
    /// Encoder resolution (rad): the angles are quantized to it first (0: no quantization).
    pub resolution: f64,
    /// Standard deviation of the angle noise (rad), after the quantization.
    pub sigma_q: f64,
    /// Standard deviation of the torque noise (N·m), applied to the current as `σ_τ / K`.
    pub sigma_tau: f64,
}

/// Encoder resolution: 20 bits per revolution (rad).
pub const ENCODER_RESOLUTION: f64 = std::f64::consts::TAU / 1_048_576.0;

/// Study settings (`studies/teaching.toml`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StudyConfig {
    /// The noise levels, each measuring every run again per seed.
    pub levels: Vec<NoiseLevel>,
    /// Noise seeds per level.
    pub seeds: usize,
    /// Harmonics of the Fourier series for `q̇, q̈` with noise.
    pub harmonics: usize,
    /// Harmonics kept by the parallel filter with noise.
    pub filter: usize,
}

/// The four runs of the study.
pub struct TeachingRuns {
    /// One friction sweep per joint.
    pub sweeps: Vec<Run>,
    /// The identification trajectory.
    pub excitation: Run,
    /// The validation trajectory.
    pub validation: Run,
}

/// Estimates of one parameter by one method at one noise level, over the seeds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Row {
    pub(crate) method: String,
    pub(crate) noise: String,
    pub(crate) parameter: String,
    pub(crate) truth: Option<f64>,
    pub(crate) values: Vec<f64>,
}

impl Row {
    pub(crate) fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }

    pub(crate) fn std(&self) -> f64 {
        let m = self.mean();
        let n = self.values.len();
        if n < 2 {
            return 0.0;
        }
        (self.values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    }

    /// `(mean − truth) / |truth|`, absent where the truth is zero (to 1e-12 of the scale).
    pub(crate) fn rel(&self) -> Option<f64> {
        let t = self.truth?;
        (t.abs() > 1e-12).then(|| (self.mean() - t) / t.abs())
    }
}

/// What one identification of one experiment gives: per method, its estimates, its validation
/// NRMS and, for online methods, the history.
type Outcome = Vec<(
    String,
    Vec<(ParamId, f64)>,
    f64,
    Vec<(f64, Vec<(ParamId, f64)>)>,
)>;

/// Whether a row's parameter (a [`ParamId`] name) is of the kind `kind` picks.
fn is(parameter: &str, kind: fn(&ParamId) -> bool) -> bool {
    parameter.parse::<ParamId>().is_ok_and(|p| kind(&p))
}

fn base(p: &ParamId) -> bool {
    matches!(p, ParamId::Base(_))
}

fn friction(p: &ParamId) -> bool {
    matches!(p, ParamId::Friction { .. })
}

/// The study's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TeachingStudy {
    pub(crate) config: StudyConfig,
    /// By [`ParamId`] name.
    pub(crate) truth: BTreeMap<String, f64>,
    pub(crate) rows: Vec<Row>,
    pub(crate) base_description: Vec<String>,
    /// `(run, RNEA residual)`.
    pub(crate) residuals: Vec<(String, f64)>,
    /// `(run, max |q̇ − v| / |v|, max |q̈|)` over the stretches the sweep analysis uses.
    pub(crate) constant_velocity: Vec<(String, f64, f64)>,
    /// cond(W_b) of the commanded excitation and of the recorded one.
    pub(crate) condition: (f64, f64),
    /// Friction samples and the fitted model per swept joint (noise-free), for the plot.
    pub(crate) friction: Vec<FrictionPanel>,
    /// Relative base-parameter error of the adaptive law over time, per noise level (seed 0).
    pub(crate) adaptive: Vec<(String, Vec<(f64, f64)>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FrictionPanel {
    pub(crate) joint: u8,
    pub(crate) samples: Vec<friction_sweep::FrictionSample>,
    pub(crate) fitted: friction_gravity::JointFriction,
    pub(crate) simulated: sim::friction::Friction,
}

/// A noise level as the measurement model a run states: on every joint, `q` quantized to the
/// encoder resolution (where it has one) then Gaussian, and the current Gaussian with
/// `σ_τ / K` (the joint's drive gain `K`).
pub fn stated(level: &NoiseLevel, data: &Measurements) -> Stated {
    let gaussian = |sigma| Noise::Gaussian { sigma };
    let mut q = vec![gaussian(level.sigma_q)];
    if level.resolution > 0.0 {
        q.insert(
            0,
            Noise::Quantize {
                resolution: level.resolution,
            },
        );
    }
    let column = |column: &str, joints: Option<Vec<u8>>, model| ColumnNoise {
        column: column.into(),
        joints,
        bodies: None,
        model,
    };
    let mut noise = vec![column("q", None, q)];
    noise.extend(data.joints.iter().map(|j| {
        let sigma = level.sigma_tau / j.gain;
        column("i", Some(vec![j.id]), vec![gaussian(sigma)])
    }));
    Stated {
        noise,
        ..Default::default()
    }
}

/// A run's measurements at a noise level with a seed (`None`: ideal sensors), drawn by the
/// Monte-Carlo engine ([`monte_carlo::remeasure`]).
pub fn measurements(
    data: &Measurements,
    noise: Option<(&NoiseLevel, u64)>,
) -> crate::Result<Measurements> {
    let stated = noise.map(|(level, seed)| (stated(level, data), seed));
    monte_carlo::remeasure(data, stated.as_ref().map(|(s, seed)| (s, *seed)))
}

/// The teaching paper's pipeline: the sweep analysis, IDIM OLS, WLS and TLS, the two-step
/// method and the adaptive law, measured angles processed by `processing`.
fn pipeline(processing: Processing) -> Vec<Box<dyn Estimator>> {
    fn processed<T: Identifier + 'static>(inner: T, processing: Processing) -> Box<dyn Estimator> {
        Box::new(Processed { inner, processing })
    }
    vec![
        processed(SweepFit, processing),
        processed(IdimOls, processing),
        processed(IdimWls, processing),
        processed(IdimTls, processing),
        processed(TwoStep, processing),
        processed(Adaptive::default(), processing),
    ]
}

/// Identifies with every estimator of the pipeline ([`pipeline`], measured angles
/// processed as `config` says) and scores the torque prediction on the validation run, its
/// `q̇, q̈` from `derivatives` and both torques filtered by `filter` as in identification.
fn identify_all(
    sweeps: &[Measurements],
    excitation: &Measurements,
    validation: &Measurements,
    (derivatives, filter): (Derivatives, Option<usize>),
    config: &StudyConfig,
) -> crate::Result<Outcome> {
    let mut runs: Vec<(Role, &Measurements)> = sweeps.iter().map(|s| (Role::Sweep, s)).collect();
    runs.push((Role::Excitation, excitation));
    let experiment = Experiment::new(runs);
    let check = periodic_samples(validation, derivatives, "validation")?;
    let processing = Processing {
        harmonics: config.harmonics,
        filter: config.filter,
    };
    pipeline(processing)
        .into_iter()
        .map(|estimator| {
            let est = engine::required(estimator.as_ref(), &experiment)?;
            let model = est
                .predictor
                .as_ref()
                .ok_or_else(|| crate::Error::Missing {
                    estimator: estimator.name().into(),
                    missing: "torque model",
                })?;
            let nrms = torque_nrms(model.as_ref(), &check, MIN_SPEED, filter);
            let values = (est.values.iter())
                .filter_map(|(p, e)| e.value.map(|v| (*p, v)))
                .collect();
            let history = (est.history.into_iter())
                .map(|(t, p)| (t, p.into_iter().collect()))
                .collect();
            Ok((estimator.name().to_string(), values, nrms, history))
        })
        .collect()
}

impl TeachingStudy {
    /// Runs the study on the four runs.
    pub fn new(runs: &TeachingRuns, config: StudyConfig) -> crate::Result<Self> {
        let truth: BTreeMap<String, f64> = crate::param::arm_truth(&runs.excitation.manifest.model)
            .into_iter()
            .map(|(p, v)| (p.to_string(), v))
            .collect();
        let clean = |r: &Run| measurements(&r.clean, None);
        let sweeps: Vec<Measurements> = runs.sweeps.iter().map(clean).collect::<Result<_, _>>()?;
        let (excitation, validation) = (clean(&runs.excitation)?, clean(&runs.validation)?);

        let mut rows: BTreeMap<(String, String, String), Row> = BTreeMap::new();
        let mut add = |noise: &str, outcome: &Outcome| {
            for (method, params, nrms, _) in outcome {
                let all = params
                    .iter()
                    .map(|(p, v)| (p.to_string(), *v))
                    .chain([("torque_nrms".to_string(), *nrms)]);
                for (p, v) in all {
                    rows.entry((method.clone(), noise.to_string(), p.clone()))
                        .or_insert_with(|| Row {
                            method: method.clone(),
                            noise: noise.to_string(),
                            truth: truth.get(&p).copied(),
                            parameter: p,
                            values: Vec::new(),
                        })
                        .values
                        .push(v);
                }
            }
        };
        let base = BaseParameters::of_chain(&excitation.geometry);
        let beta: Vec<(ParamId, f64)> = (1..=base.len())
            .map(ParamId::Base)
            .map(|p| (p, truth[&p.to_string()]))
            .collect();
        let base_error = |est: &[(ParamId, f64)]| {
            let (mut e, mut t) = (0.0, 0.0);
            for (n, v) in &beta {
                let x = est.iter().find(|(m, _)| m == n).map_or(0.0, |p| p.1);
                e += (x - v).powi(2);
                t += v * v;
            }
            (e / t).sqrt()
        };
        let history = |outcome: &Outcome| -> Vec<(f64, f64)> {
            outcome
                .iter()
                .find(|o| o.0 == EstimatorId::Adaptive)
                .map(|o| o.3.iter().map(|(t, p)| (*t, base_error(p))).collect())
                .unwrap_or_default()
        };

        let ideal = identify_all(
            &sweeps,
            &excitation,
            &validation,
            (Derivatives::Recorded, None),
            &config,
        )?;
        add("none", &ideal);
        let mut adaptive = vec![("none".to_string(), history(&ideal))];

        let derivatives = Derivatives::Fourier {
            harmonics: config.harmonics,
        };
        let levels: Vec<(u64, &NoiseLevel)> = (1..).zip(&config.levels).collect();
        let outcomes = monte_carlo::run(
            &levels,
            |_| config.seeds,
            |&(l, level): &(u64, &NoiseLevel), seed| {
                let seed = 1000 * l + seed;
                let noisy = |m: &Measurements| measurements(m, Some((level, seed)));
                let s: Vec<Measurements> = sweeps.iter().map(noisy).collect::<Result<_, _>>()?;
                identify_all(
                    &s,
                    &noisy(&excitation)?,
                    &noisy(&validation)?,
                    (derivatives, Some(config.filter)),
                    &config,
                )
            },
            &monte_carlo::quiet,
        );
        for ((_, level), outcomes) in levels.iter().zip(outcomes) {
            for (k, outcome) in outcomes.into_iter().enumerate() {
                let outcome = outcome?;
                if k == 0 {
                    adaptive.push((level.name.to_string(), history(&outcome)));
                }
                add(&level.name, &outcome);
            }
        }

        // Checks of the runs themselves.
        let mut all_runs: Vec<&Run> = runs.sweeps.iter().collect();
        all_runs.extend([&runs.excitation, &runs.validation]);
        let residuals = all_runs
            .iter()
            .map(|r| {
                (
                    r.measurements.run_id.clone(),
                    r.manifest.checks.rnea_max_rel_residual,
                )
            })
            .collect();
        let constant_velocity = runs
            .sweeps
            .iter()
            .filter_map(|r| {
                let (v, a) = constant_velocity_check(&r.measurements)?;
                Some((r.measurements.run_id.clone(), v, a))
            })
            .collect();
        let condition = (
            commanded_condition(&excitation, &base),
            recorded_condition(&excitation, &base)?,
        );
        let prepared = Prepared::new(
            sweeps.iter().collect(),
            &excitation,
            Derivatives::Recorded,
            None,
        );
        let fitted = friction_sweep::analysis(&prepared)?.clone();
        let friction = sweeps
            .iter()
            .filter_map(|s| {
                let (j, samples) = friction_sweep::friction_samples(s)?;
                Some(FrictionPanel {
                    joint: s.joints[j].id,
                    samples,
                    fitted: fitted.friction[j].clone()?,
                    simulated: runs.excitation.manifest.model.links[s.joints[j].id as usize - 1]
                        .joint
                        .friction
                        .clone()?,
                })
            })
            .collect();
        Ok(TeachingStudy {
            config,
            truth,
            rows: rows.into_values().collect(),
            base_description: base.describe(),
            residuals,
            constant_velocity,
            condition,
            friction,
            adaptive,
        })
    }

    pub(crate) fn row(&self, method: &str, noise: &str, parameter: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.method == method && r.noise == noise && r.parameter == parameter)
    }

    /// The validation NRMS of a method at a noise level (mean over seeds).
    pub fn nrms(&self, method: EstimatorId, noise: &str) -> Option<f64> {
        self.row(method.name(), noise, "torque_nrms").map(Row::mean)
    }

    /// Largest `|estimate − truth| / max|truth|` over the base parameters ([`ParamId::Base`]) of a method at
    /// a noise level (mean estimates).
    pub(crate) fn max_base_error(&self, method: EstimatorId, noise: &str) -> Option<f64> {
        let scale = self
            .truth
            .iter()
            .filter(|(k, _)| is(k, base))
            .map(|(_, v)| v.abs())
            .fold(0.0, f64::max);
        self.rows
            .iter()
            .filter(|r| r.method == method && r.noise == noise && is(&r.parameter, base))
            .map(|r| Some((r.mean() - r.truth?).abs() / scale))
            .try_fold(None, |m: Option<f64>, e| {
                Some(Some(m.unwrap_or(0.0).max(e?)))
            })?
    }

    /// Largest relative error of the sweep analysis's friction coefficients (noise-free).
    pub(crate) fn max_friction_error(&self) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| {
                r.method == EstimatorId::FrictionSweep
                    && r.noise == "none"
                    && is(&r.parameter, friction)
            })
            .map(Row::rel)
            .try_fold(0.0f64, |m, e| Some(m.max(e?.abs())))
    }
}

/// Over the stretches the sweep analysis uses: the largest relative deviation of the recorded
/// speed from the commanded one, and the largest |q̈| (clean recorded columns: a check of the
/// run, not an estimate).
pub fn constant_velocity_check(data: &Measurements) -> Option<(f64, f64)> {
    let (j, profile) = friction_sweep::swept_joint(data)?;
    let js = &data.joints[j];
    let dt = data.t[1] - data.t[0];
    let (mut dv, mut acc) = (0.0f64, 0.0f64);
    for s in profile.constant_velocity_stretches() {
        let a = ((s.start + friction_sweep::SETTLE) / dt).ceil() as usize;
        let b = (((s.end - friction_sweep::SETTLE) / dt).floor() as usize).min(data.t.len() - 1);
        for k in a..=b {
            dv = dv.max((js.qd[k] - s.velocity).abs() / s.velocity.abs());
            acc = acc.max(js.qdd[k].abs());
        }
    }
    Some((dv, acc))
}

/// cond(W_b) of the excitation's commanded trajectory over 100 instants of a period.
fn commanded_condition(excitation: &Measurements, base: &BaseParameters) -> f64 {
    let profiles: Vec<sim::profile::Profile> = excitation
        .joints
        .iter()
        .filter_map(|j| j.reference.clone())
        .collect();
    crate::excitation::of_references(&excitation.geometry, base, &profiles).0
}

/// cond(W_b) over the recorded excitation (every 10th sample of its whole periods).
fn recorded_condition(excitation: &Measurements, base: &BaseParameters) -> crate::Result<f64> {
    let s = periodic_samples(excitation, Derivatives::Recorded, "condition")?;
    let states: Vec<[Vec<f64>; 3]> = (0..s.t.len())
        .step_by(10)
        .map(|k| [s.q[k].clone(), s.qd[k].clone(), s.qdd[k].clone()])
        .collect();
    let w = base.regressor(&crate::regressor::stacked(&excitation.geometry, &states));
    let sv = w.singular_values();
    Ok(sv.max() / sv.min())
}
