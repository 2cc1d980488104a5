//! The teaching paper's pipeline on `link2`, every identifier scored (rendered by
//! [`crate::report::teaching`]).
//!
//! Four clean runs (two sweeps, the excitation, the validation trajectory) are identified once
//! with ideal sensors (recorded `q̇, q̈`, no noise: level `none`) and then at two noise levels
//! over [`StudyConfig::seeds`] noise seeds each: noise is added to the recorded `q` and `i` per
//! seed ([`sim::noise::noisy`]), never re-simulated; with noise, `q̇, q̈` come from a Fourier
//! series of [`StudyConfig::harmonics`] harmonics and the regressor and torques are parallel-
//! filtered to [`StudyConfig::filter`] harmonics. The validation trajectory is processed the
//! same way and never used for identification. The result, [`TeachingStudy`], is serialized
//! (`teaching.json`) and the report is rendered from it.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sim::noise::Noise;

use crate::dataset::{Measurements, Run};
use crate::identification::{
    Derivatives, Experiment, MIN_SPEED, friction_sweep, periodic_samples, registry, torque_nrms,
};
use crate::standard_regressor::BaseParameters;

/// A measurement noise level (BIRDy's levels).
#[derive(Clone, Copy, Debug)]
pub struct NoiseLevel {
    /// Name in the report (`low`, `high`).
    pub name: &'static str,
    /// Encoder resolution (rad): the angles are quantized to it first (0: no quantization).
    pub resolution: f64,
    /// Standard deviation of the angle noise (rad), after the quantization.
    pub sigma_q: f64,
    /// Standard deviation of the torque noise (N·m), applied to the current as `σ_τ / K`.
    pub sigma_tau: f64,
}

/// The two noise levels: σ_q = 1e-3° and 1e-2°, σ_τ = 0.05 and 0.1 N·m.
pub const LEVELS: [NoiseLevel; 2] = [
    NoiseLevel {
        name: "low",
        resolution: ENCODER_RESOLUTION,
        sigma_q: 1e-3 * std::f64::consts::PI / 180.0,
        sigma_tau: 0.05,
    },
    NoiseLevel {
        name: "high",
        resolution: ENCODER_RESOLUTION,
        sigma_q: 1e-2 * std::f64::consts::PI / 180.0,
        sigma_tau: 0.1,
    },
];

/// Encoder resolution: 20 bits per revolution (rad).
pub const ENCODER_RESOLUTION: f64 = std::f64::consts::TAU / 1_048_576.0;

/// Study settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StudyConfig {
    /// Noise seeds per level.
    pub seeds: usize,
    /// Harmonics of the Fourier series for `q̇, q̈` with noise.
    pub harmonics: usize,
    /// Harmonics kept by the parallel filter with noise.
    pub filter: usize,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            seeds: 16,
            harmonics: 200,
            filter: 50,
        }
    }
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

/// What one identification of one experiment gives: per method, its named estimates, its
/// validation NRMS and, for online methods, the history.
type Outcome = Vec<(
    String,
    Vec<(String, f64)>,
    f64,
    Vec<(f64, Vec<(String, f64)>)>,
)>;

/// The study's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TeachingStudy {
    pub(crate) config: StudyConfig,
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
    pub(crate) fitted: friction_sweep::JointFriction,
    pub(crate) simulated: sim::friction::Friction,
}

/// A copy of a run's measurements with fresh noise on `q` and `i` (`None`: ideal sensors).
pub fn measurements(data: &Measurements, noise: Option<(NoiseLevel, u64)>) -> Measurements {
    let mut m = data.clone();
    for j in &mut m.joints {
        j.measured.clear();
        if let Some((level, seed)) = noise {
            let quantize = Noise::Quantize {
                resolution: level.resolution,
            };
            let gaussian = Noise::Gaussian {
                sigma: level.sigma_q,
            };
            let q_model: Vec<Noise> = if level.resolution > 0.0 {
                vec![quantize, gaussian]
            } else {
                vec![gaussian]
            };
            let i_model = [Noise::Gaussian {
                sigma: level.sigma_tau / j.gain,
            }];
            j.measured.insert(
                "q".into(),
                sim::noise::noisy(&j.q, &q_model, seed, "q", j.id),
            );
            j.measured.insert(
                "i".into(),
                sim::noise::noisy(&j.current, &i_model, seed, "i", j.id),
            );
        }
    }
    m
}

/// Identifies with every registered identifier and scores the torque prediction.
fn identify_all(
    sweeps: &[Measurements],
    excitation: &Measurements,
    validation: &Measurements,
    derivatives: Derivatives,
    filter: Option<usize>,
) -> crate::Result<Outcome> {
    let experiment = Experiment::new(sweeps.iter().collect(), excitation, derivatives, filter);
    let check = periodic_samples(validation, derivatives, "validation")?;
    registry()
        .iter()
        .map(|id| {
            let r = id.identify(&experiment)?;
            let nrms = torque_nrms(r.model.as_ref(), &check, MIN_SPEED, filter);
            Ok((id.name(), r.parameters, nrms, r.history))
        })
        .collect()
}

impl TeachingStudy {
    /// Runs the study on the four runs.
    pub fn new(runs: &TeachingRuns, config: StudyConfig) -> crate::Result<Self> {
        let truth = crate::param::arm_truth(&runs.excitation.manifest.model);
        let clean = |r: &Run| measurements(&r.clean, None);
        let sweeps: Vec<Measurements> = runs.sweeps.iter().map(clean).collect();
        let (excitation, validation) = (clean(&runs.excitation), clean(&runs.validation));

        let mut rows: BTreeMap<(String, String, String), Row> = BTreeMap::new();
        let mut add = |noise: &str, outcome: &Outcome| {
            for (method, params, nrms, _) in outcome {
                let all = params
                    .iter()
                    .map(|(p, v)| (p.clone(), *v))
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
        let beta: Vec<(String, f64)> = (1..=base.len())
            .map(|k| format!("b{k}"))
            .map(|n| (n.clone(), truth[&n]))
            .collect();
        let base_error = |est: &[(String, f64)]| {
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
                .find(|o| o.0 == "adaptive")
                .map(|o| o.3.iter().map(|(t, p)| (*t, base_error(p))).collect())
                .unwrap_or_default()
        };

        let ideal = identify_all(
            &sweeps,
            &excitation,
            &validation,
            Derivatives::Recorded,
            None,
        )?;
        add("none", &ideal);
        let mut adaptive = vec![("none".to_string(), history(&ideal))];

        let derivatives = Derivatives::Fourier {
            harmonics: config.harmonics,
        };
        for (l, level) in LEVELS.iter().enumerate() {
            let jobs: Vec<u64> = (0..config.seeds as u64).collect();
            let outcomes = jobs
                .into_par_iter()
                .map(|seed| {
                    let seed = 1000 * (l as u64 + 1) + seed;
                    let noisy = |m: &Measurements| measurements(m, Some((*level, seed)));
                    let s: Vec<Measurements> = sweeps.iter().map(noisy).collect();
                    identify_all(
                        &s,
                        &noisy(&excitation),
                        &noisy(&validation),
                        derivatives,
                        Some(config.filter),
                    )
                })
                .collect::<Vec<_>>();
            for (k, outcome) in outcomes.into_iter().enumerate() {
                let outcome = outcome?;
                if k == 0 {
                    adaptive.push((level.name.to_string(), history(&outcome)));
                }
                add(level.name, &outcome);
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
        let fitted = Experiment::new(
            sweeps.iter().collect(),
            &excitation,
            Derivatives::Recorded,
            None,
        )
        .sweep_fit()?
        .clone();
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
    pub fn nrms(&self, method: &str, noise: &str) -> Option<f64> {
        self.row(method, noise, "torque_nrms").map(Row::mean)
    }

    /// Largest `|estimate − truth| / max|truth|` over the base parameters `b<k>` of a method at
    /// a noise level (mean estimates).
    pub fn max_base_error(&self, method: &str, noise: &str) -> Option<f64> {
        let scale = self
            .truth
            .iter()
            .filter(|(k, _)| k.starts_with('b'))
            .map(|(_, v)| v.abs())
            .fold(0.0, f64::max);
        self.rows
            .iter()
            .filter(|r| r.method == method && r.noise == noise && r.parameter.starts_with('b'))
            .map(|r| Some((r.mean() - r.truth?).abs() / scale))
            .try_fold(None, |m: Option<f64>, e| {
                Some(Some(m.unwrap_or(0.0).max(e?)))
            })?
    }

    /// Largest relative error of the sweep analysis's friction coefficients (noise-free).
    pub fn max_friction_error(&self) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| {
                r.method == "friction_sweep" && r.noise == "none" && r.parameter.starts_with('j')
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
    let w = base.regressor(&crate::standard_regressor::stacked(
        &excitation.geometry,
        &states,
    ));
    let sv = w.singular_values();
    Ok(sv.max() / sv.min())
}
