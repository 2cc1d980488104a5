//! The frequency-domain paper's study on `link2` (rendered by [`crate::report::multisine`]):
//! one clean run per torque scale; the angles are measured again per seed by the Monte-Carlo
//! engine ([`crate::study::monte_carlo`]), never re-simulated; every estimator sees the same measurements, the
//! last [`StudyConfig::periods`] whole periods of the run. The result, [`MultisineStudy`], is
//! serialized (`multisine.json`) and the report is rendered from it.

use serde::{Deserialize, Serialize};
use sim::noise::{ColumnNoise, Noise};

use crate::estimate::frequency::{Linearized, Paper, Told};
use crate::estimate::known_geometry::KnownGeometry;
use crate::estimate::time_domain::TimeDomain;
use crate::estimate::{Estimator, EstimatorId, Experiment, engine};
use crate::fourier::last_periods;
use crate::param::ParamId;
use crate::study::monte_carlo;
use crate::study::stats::Summary;
use sim::reading::{Measurements, Run, Stated};

/// The paper's RMSE (its eqs. 70–71) for `m1`, `m2` (kg) under `d = 0.1·rand()`.
pub const PAPER_RMSE: [f64; 2] = [1.0568, 1.5420];

/// The paper's noise: uniform on `[0, 0.1)` rad on the measured angles.
pub fn paper_noise() -> Vec<Noise> {
    vec![Noise::PaperUniform { amplitude: 0.1 }]
}

/// Sizes of the study.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StudyConfig {
    /// Monte-Carlo seeds at the paper's noise, per torque scale.
    pub seeds: usize,
    /// Seeds per level of the noise sweep.
    pub sweep_seeds: usize,
    /// Gaussian σ levels of the noise sweep (rad).
    pub sweep_levels: Vec<f64>,
    /// Torque scales at which the noise sweep runs.
    pub sweep_scales: Vec<f64>,
    /// Steady periods used by every estimator.
    pub periods: usize,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            seeds: 100,
            sweep_seeds: 30,
            sweep_levels: vec![1e-4, 1e-3, 1e-2, 3e-2, 1e-1],
            sweep_scales: vec![0.1, 1.0],
            periods: 2,
        }
    }
}

/// One clean run at a torque scale.
pub struct ScaleRun {
    /// Torque scale (× the paper's amplitudes).
    pub scale: f64,
    /// The run.
    pub run: Run,
}

/// One row of `multisine.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Estimator.
    pub method: String,
    /// `none`, `paper_uniform` or `gaussian`.
    pub noise: String,
    /// Amplitude `a` (paper) or σ (gaussian), rad; 0 without noise.
    pub noise_level: f64,
    /// Torque scale.
    pub torque_scale: f64,
    /// `B1.m` or `B2.m` ([`crate::param::ParamId`]).
    pub parameter: String,
    /// True value (kg).
    pub truth: f64,
    /// Mean estimate over runs.
    pub mean_estimate: f64,
    /// `mean − truth`.
    pub bias: f64,
    /// Root-mean-square error over runs.
    pub rmse: f64,
    /// Standard deviation over runs.
    pub std: f64,
    /// Runs that produced an estimate.
    pub runs: usize,
    /// Largest half peak-to-peak joint angle in the steady window (rad).
    pub motion_amplitude: f64,
}

/// One Monte-Carlo case: a torque scale (index into the runs), a noise model and its seeds.
struct Case {
    run: usize,
    noise: &'static str,
    level: f64,
    model: Option<Vec<Noise>>,
    seeds: usize,
}

/// Per torque scale: the run's own checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaleChecks {
    /// Torque scale.
    pub scale: f64,
    /// Largest half peak-to-peak angle, per joint (rad).
    pub amplitude: Vec<f64>,
    /// RNEA residual of the run (relative), the time-domain method's floor.
    pub rnea_residual: f64,
    /// Steady-state check (relative period-to-period difference).
    pub steady: Option<f64>,
}

/// The whole study.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MultisineStudy {
    /// All rows.
    pub rows: Vec<Row>,
    /// Per-scale checks.
    pub scales: Vec<ScaleChecks>,
    /// Its configuration.
    pub config: StudyConfig,
}

/// The study's estimators, told the paper's assumptions: the moments and damping known
/// (`geometry`), the last `periods` whole periods used. `time_domain` (recorded `q̇, q̈`)
/// applies to the no-noise case only.
fn methods(geometry: &KnownGeometry, periods: usize) -> Vec<Box<dyn Estimator>> {
    let told = Told {
        geometry: Some(geometry.clone()),
        periods: Some(periods),
    };
    vec![
        Box::new(Paper { told: told.clone() }),
        Box::new(Linearized { told: told.clone() }),
        Box::new(TimeDomain::recorded().told(told.clone())),
        Box::new(TimeDomain::fourier().told(told)),
    ]
}

/// The angles' measurement model of a case: its noise laws on `q` (`None`: ideal sensors).
fn angle_noise(model: &Option<Vec<Noise>>) -> Option<Stated> {
    model.as_ref().map(|laws| Stated {
        noise: vec![ColumnNoise {
            column: "q".into(),
            joints: None,
            bodies: None,
            model: laws.clone(),
        }],
        ..Default::default()
    })
}

/// `[m1, m2]` estimates of one method on one set of measurements (none where it does not
/// apply or fails).
fn masses(method: &dyn Estimator, data: &Measurements) -> [Option<f64>; 2] {
    let Ok(est) = engine::run(method, &Experiment::single(data)) else {
        return [None, None];
    };
    let est = est.values;
    let get = |b: u8| est.get(&ParamId::mass(b)).and_then(|e| e.value);
    [get(1), get(2)]
}

impl MultisineStudy {
    /// Runs the study on clean runs, one per torque scale.
    pub fn new(runs: &[ScaleRun], config: StudyConfig) -> crate::Result<Self> {
        let mut scales = Vec::new();
        let mut cases: Vec<Case> = Vec::new();
        for (i, sr) in runs.iter().enumerate() {
            let m = &sr.run.clean;
            let w = last_periods(&m.t, 100.0, config.periods)?;
            let amplitude = m
                .joints
                .iter()
                .map(|j| {
                    let q = &j.q[w.start..w.start + w.len];
                    (q.iter().copied().fold(f64::MIN, f64::max)
                        - q.iter().copied().fold(f64::MAX, f64::min))
                        / 2.0
                })
                .collect();
            let c = &sr.run.manifest.checks;
            scales.push(ScaleChecks {
                scale: sr.scale,
                amplitude,
                rnea_residual: c.rnea_max_rel_residual,
                steady: c.steady_state.as_ref().map(|s| s.relative),
            });
            cases.push(Case {
                run: i,
                noise: "none",
                level: 0.0,
                model: None,
                seeds: 1,
            });
            cases.push(Case {
                run: i,
                noise: "paper_uniform",
                level: 0.1,
                model: Some(paper_noise()),
                seeds: config.seeds,
            });
            if config
                .sweep_scales
                .iter()
                .any(|s| (s - sr.scale).abs() < 1e-12)
            {
                for &sigma in &config.sweep_levels {
                    cases.push(Case {
                        run: i,
                        noise: "gaussian",
                        level: sigma,
                        model: Some(vec![Noise::Gaussian { sigma }]),
                        seeds: config.sweep_seeds,
                    });
                }
            }
        }
        let geometries: Vec<KnownGeometry> = runs
            .iter()
            .map(|sr| KnownGeometry::masses_unknown(&sr.run.manifest.model))
            .collect::<Result<_, _>>()?;
        let all_methods: Vec<Vec<Box<dyn Estimator>>> = geometries
            .iter()
            .map(|g| methods(g, config.periods))
            .collect();

        // Every (case, seed) is one job returning every method's [m1, m2].
        let stated: Vec<Option<Stated>> = cases.iter().map(|c| angle_noise(&c.model)).collect();
        let results = monte_carlo::run(
            &cases.iter().zip(&stated).collect::<Vec<_>>(),
            |(case, _)| case.seeds,
            |(case, stated), seed| {
                let clean = &runs[case.run].run.clean;
                let data = monte_carlo::remeasure(clean, stated.as_ref().map(|s| (s, seed)))?;
                Ok(all_methods[case.run]
                    .iter()
                    .map(|method| masses(method.as_ref(), &data))
                    .collect::<Vec<_>>())
            },
            &monte_carlo::quiet,
        );
        let results: Vec<Vec<Vec<[Option<f64>; 2]>>> = results
            .into_iter()
            .map(|case| case.into_iter().collect::<crate::Result<_>>())
            .collect::<crate::Result<_>>()?;

        let mut rows = Vec::new();
        for (c, case) in cases.iter().enumerate() {
            let (i, noise, level) = (&case.run, case.noise, &case.level);
            let sr = &runs[*i];
            let per_case = &results[c];
            for (k, method) in all_methods[*i].iter().enumerate() {
                for b in 0..2 {
                    let truth = sr.run.truth.bodies[b].mass;
                    let pairs: Vec<(f64, f64)> = per_case
                        .iter()
                        .filter_map(|r| r[k][b])
                        .filter(|v| v.is_finite())
                        .map(|v| (truth, v))
                        .collect();
                    let Some(s) = Summary::of(&pairs) else {
                        continue;
                    };
                    rows.push(Row {
                        method: method.name().to_string(),
                        noise: noise.to_string(),
                        noise_level: *level,
                        torque_scale: sr.scale,
                        parameter: ParamId::mass(b as u8 + 1).to_string(),
                        truth,
                        mean_estimate: s.mean,
                        bias: s.bias,
                        rmse: s.rmse,
                        std: s.std,
                        runs: s.runs,
                        motion_amplitude: scales[*i].amplitude.iter().copied().fold(0.0, f64::max),
                    });
                }
            }
        }
        Ok(MultisineStudy {
            rows,
            scales,
            config,
        })
    }

    /// The row of a method, noise, level, torque scale and parameter (`B1.m`, `B2.m`).
    pub fn row(
        &self,
        method: EstimatorId,
        noise: &str,
        level: f64,
        scale: f64,
        parameter: &str,
    ) -> Option<&Row> {
        self.rows.iter().find(|r| {
            r.method == method
                && r.noise == noise
                && (r.noise_level - level).abs() < 1e-15
                && (r.torque_scale - scale).abs() < 1e-12
                && r.parameter == parameter
        })
    }

    /// The best method at the paper's scale and noise: smallest worse-of-two RMSE.
    pub(crate) fn best_at_paper_noise(&self) -> Option<(String, f64, f64)> {
        let mut best: Option<(String, f64, f64)> = None;
        for m in [
            EstimatorId::FrequencyPaper,
            EstimatorId::FrequencyLinearized,
            EstimatorId::TimeDomainFourier,
        ] {
            if let (Some(a), Some(b)) = (
                self.row(m, "paper_uniform", 0.1, 1.0, "B1.m"),
                self.row(m, "paper_uniform", 0.1, 1.0, "B2.m"),
            ) && best
                .as_ref()
                .is_none_or(|(_, x, y)| a.rmse.max(b.rmse) < x.max(*y))
            {
                best = Some((m.name().to_string(), a.rmse, b.rmse));
            }
        }
        best
    }
}
