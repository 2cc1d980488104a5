//! The noise sweeps of a study file: each scenario simulated once, measured again per (sensor
//! level, seed) by the Monte-Carlo engine ([`super::monte_carlo`]), every listed estimator run
//! on every measured copy, summarized per level and parameter, with the Cramér–Rao bound where
//! the model is linear in its parameters with noise on its outputs (MIM under force/torque
//! sensor noise: [`crate::estimate::mim::gls`]; IDIM's base parameters under joint-torque noise).

use std::collections::BTreeMap;

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use sim::recording::{BodyGroup, Recording};
use sim::sensor::{AxisErrors, Sensor};

use super::file::{SensorFamily, Study};
use super::monte_carlo;
use super::stats::Summary;
use super::stats::summarize;
use crate::estimate::engine::{Outcome, note_reasons, score_all};
use crate::estimate::mim::gls::{WrenchNoise, information};
use crate::estimate::{Estimator, Experiment, ParamId, Role};
use sim::reading::{Run, Stated};

/// One line of `sweep.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Scenario (run id).
    pub scenario: String,
    /// Estimator.
    pub method: String,
    /// Swept sensor.
    pub sensor: SensorFamily,
    /// Relative noise level.
    pub level: f64,
    /// Parameter name.
    pub parameter: String,
    /// Statistics over the seeds.
    pub summary: Summary,
    /// Cramér–Rao bound (standard deviation) where it applies.
    pub crb: Option<f64>,
}

/// A whole sweep, as serialized to `sweep.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// The study's name.
    pub study: String,
    /// Seeds per level.
    pub seeds: usize,
    /// Every (scenario, method, sensor, level, parameter).
    pub rows: Vec<SweepRow>,
    /// `(scenario, method, reason)` of estimators that did not apply.
    pub skipped: Vec<(String, String, String)>,
    /// Statements about how the result was made (models used, seeds of merged parts).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Every (scenario, method, effect, severity, parameter) of the effect sweeps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<super::effect_sweep::EffectRow>,
    /// Which estimator survives what, over sweeps and effects (studies with effects).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub survival: Vec<super::survival::SurvivalRow>,
}

/// RMS over the run and the three axes of a body's group series.
fn rms(series: &[Vector3<f64>]) -> f64 {
    (series.iter().map(|v| v.norm_squared()).sum::<f64>() / (3 * series.len()).max(1) as f64).sqrt()
}

/// The specific force at the centroid, body frame (what a centroid accelerometer reads).
fn specific_force(rec: &Recording, b: usize, g: Vector3<f64>) -> Vec<Vector3<f64>> {
    (0..rec.samples())
        .map(|k| {
            let r = rec.body(k, b);
            r.quat.inverse() * (r.acc - g)
        })
        .collect()
}

/// The swept sensor at `level`: one entry per body, `σ = level · RMS` of its clean signals
/// (encoders: one entry for every joint, resolution `level`; joint torques: a Gaussian law per
/// joint, `σ = level · RMS` of its torque; joint angles: a Gaussian law of `σ = level` on every
/// joint's `q`).
pub fn measurement(family: SensorFamily, level: f64, run: &sim::Run) -> Stated {
    let (rec, g) = (&run.recording, run.manifest.model.gravity_vector());
    let per_body = |f: &dyn Fn(usize) -> Sensor| (1..=rec.n_bodies).map(f).collect();
    let sigma = |s: &[Vector3<f64>]| AxisErrors::white([level * rms(s); 3]);
    let sensors = match family {
        SensorFamily::Encoder => vec![Sensor::Encoder {
            joints: None,
            resolution: level,
            sigma: 0.0,
        }],
        SensorFamily::JointTorque | SensorFamily::MotorCurrent | SensorFamily::JointAngle => {
            vec![]
        }
        SensorFamily::ForceTorque => per_body(&|b| Sensor::ForceTorque {
            bodies: Some(vec![b as u8]),
            force: sigma(&rec.body_series(BodyGroup::F, b)),
            torque: sigma(&rec.body_series(BodyGroup::N, b)),
            cross_talk: None,
            chain: Vec::new(),
        }),
        SensorFamily::Imu => per_body(&|b| Sensor::Imu {
            bodies: Some(vec![b as u8]),
            mount: [0.0; 3],
            gyro: sigma(&rec.body_series(BodyGroup::Omega, b)),
            accel: sigma(&specific_force(rec, b, g)),
        }),
    };
    let relative = |column: sim::recording::JointColumn| {
        (0..rec.joint_ids.len())
            .map(|k| {
                let x = rec.joint_series(column, k);
                let rms = (x.iter().map(|t| t * t).sum::<f64>() / x.len().max(1) as f64).sqrt();
                sim::noise::ColumnNoise {
                    column: column.name().into(),
                    joints: Some(vec![rec.joint_ids[k]]),
                    bodies: None,
                    model: vec![sim::noise::Noise::Gaussian { sigma: level * rms }],
                }
            })
            .collect()
    };
    let noise = match family {
        SensorFamily::JointTorque => relative(sim::recording::JointColumn::Tau),
        SensorFamily::MotorCurrent => relative(sim::recording::JointColumn::Current),
        SensorFamily::JointAngle => vec![sim::noise::ColumnNoise {
            column: "q".into(),
            joints: None,
            bodies: None,
            model: vec![sim::noise::Noise::Gaussian { sigma: level }],
        }],
        _ => vec![],
    };
    Stated {
        sensors,
        noise,
        real_drives: false,
        transmission: None,
    }
}

/// The Cramér–Rao bound of the parameters that are linear in noisy outputs under `stated`,
/// from the clean regressor: MIM's under force/torque sensors, IDIM's base parameters under
/// joint-torque noise (friction known, as IDIM on one run without friction columns takes it)
/// and under drive-current noise (the reading `K i`; each joint's Coulomb and viscous friction
/// unknown too, as the whole-arm IDIM-OLS estimates them).
fn bound(family: SensorFamily, clean: &Run, stated: &Stated) -> BTreeMap<ParamId, f64> {
    let mut data = clean.clean.clone();
    data.stated = stated.clone();
    match family {
        SensorFamily::ForceTorque => {
            let Ok(noise) = WrenchNoise::stated(&data) else {
                return BTreeMap::new();
            };
            information(&data, &noise)
                .bound()
                .into_iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let id = crate::estimate::mim::algorithm::param((i / 6 + 1) as u8, i % 6);
                    s.map(|s| (id, s))
                })
                .collect()
        }
        SensorFamily::JointTorque => {
            use crate::estimate::idim::single::{bound, stated_sigmas};
            stated_sigmas(&data).map_or_else(BTreeMap::new, |s| base(bound(&data, &s)))
        }
        SensorFamily::MotorCurrent => {
            use crate::estimate::idim::single::{bound_with_friction, stated_current_sigmas};
            stated_current_sigmas(&data)
                .map_or_else(BTreeMap::new, |s| base(bound_with_friction(&data, &s)))
        }
        SensorFamily::Imu | SensorFamily::Encoder | SensorFamily::JointAngle => BTreeMap::new(),
    }
}

/// Bounds of the base parameters in order, keyed by their ids (`None`: not identifiable).
fn base(bounds: Vec<Option<f64>>) -> BTreeMap<ParamId, f64> {
    (bounds.into_iter().enumerate())
        .filter_map(|(k, s)| s.map(|s| (ParamId::Base(k + 1), s)))
        .collect()
}

/// Runs the sweeps of `study` on one scenario, `extra` estimators available beside the
/// registry's and the study's externals; `tick` is called after each (level, seed).
pub(crate) fn scenario_block(
    study: &Study,
    path: &std::path::Path,
    extra: &[&dyn Estimator],
    tick: &(dyn Fn() + Sync),
) -> crate::Result<SweepResult> {
    let scenario = sim::scenario::Scenario::from_path(path)?;
    let clean = sim::simulate(&scenario, None);
    let name = clean.manifest.run_id.clone();
    let available = super::estimators::Available::new(study, extra);
    let mut result = SweepResult {
        study: study.name.clone(),
        seeds: study.seeds,
        ..Default::default()
    };
    let clean_run = sim::reading::from_simulated(&clean, std::path::Path::new("."))?;
    let truth = crate::param::truth_table(&clean.manifest.model);
    // One Monte-Carlo case per (sweep, level): its estimators and its stated sensors.
    let cases: Vec<(&super::file::Sweep, f64, Vec<&dyn Estimator>, Stated)> = study
        .sweeps
        .iter()
        .flat_map(|sweep| {
            let estimators = available.named(&sweep.estimators);
            let clean = &clean;
            sweep.levels.iter().map(move |&level| {
                let stated = measurement(sweep.sensor, level, clean);
                (sweep, level, estimators.clone(), stated)
            })
        })
        .collect();
    let outcomes = monte_carlo::run(
        &cases,
        |_| study.seeds,
        |(_, _, estimators, stated), seed| {
            monte_carlo::remeasure_simulated(&clean, stated, seed).map(|run| {
                // The run is the single run of the MIM family and the excitation run of
                // the whole-arm identifiers (which take sweeps, excitation and validation
                // runs by role).
                let m = &run.measurements;
                let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
                score_all(estimators, &experiment, &truth)
            })
        },
        tick,
    );
    for ((sweep, level, _, stated), outcomes) in cases.iter().zip(outcomes) {
        let outcomes: Vec<Outcome> = outcomes.into_iter().collect::<Result<_, _>>()?;
        let bound = bound(sweep.sensor, &clean_run, stated);
        note_reasons(
            &mut result.skipped,
            &name,
            &outcomes,
            &format!("level {level:e}"),
        );
        let rows: Vec<crate::estimate::score::Row> =
            outcomes.into_iter().flat_map(|o| o.rows).collect();
        for ((method, parameter), summary) in summarize(&rows) {
            let id: Option<ParamId> = parameter.parse().ok();
            let crb = id.and_then(|id| bound.get(&id).copied());
            result.rows.push(SweepRow {
                scenario: name.clone(),
                method,
                sensor: sweep.sensor,
                level: *level,
                parameter,
                summary,
                crb,
            });
        }
    }
    Ok(result)
}
