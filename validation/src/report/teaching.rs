//! `generated/report/teaching.md`, `teaching.csv`, `teaching_friction.png` and
//! `teaching_adaptive.png`: the teaching paper's pipeline on `link2`, every identifier scored.
//!
//! Four clean runs (two sweeps, the excitation, the validation trajectory) are identified once
//! with ideal sensors (recorded `q̇, q̈`, no noise: level `none`) and then at two noise levels
//! over [`StudyConfig::seeds`] noise seeds each: noise is added to the recorded `q` and `i` per
//! seed ([`sim::noise::noisy`]), never re-simulated; with noise, `q̇, q̈` come from a Fourier
//! series of [`StudyConfig::harmonics`] harmonics and the regressor and torques are parallel-
//! filtered to [`StudyConfig::filter`] harmonics. The validation trajectory is processed the
//! same way and never used for identification.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;
use sim::noise::Noise;

use crate::dataset::{Measurements, Run};
use crate::identification::{
    Derivatives, Experiment, MIN_SPEED, friction_sweep, periodic_samples, registry, torque_nrms,
};
use crate::report::{csv_num, register_font};
use crate::standard_regressor::BaseParameters;
use rayon::prelude::*;

/// A measurement noise level (BIRDy's levels).
#[derive(Clone, Copy, Debug)]
pub struct NoiseLevel {
    /// Name in the report (`low`, `high`).
    pub name: &'static str,
    /// Standard deviation of the angle noise (rad), after 20-bit encoder quantization.
    pub sigma_q: f64,
    /// Standard deviation of the torque noise (N·m), applied to the current as `σ_τ / K`.
    pub sigma_tau: f64,
}

/// The two noise levels: σ_q = 1e-3° and 1e-2°, σ_τ = 0.05 and 0.1 N·m.
pub const LEVELS: [NoiseLevel; 2] = [
    NoiseLevel {
        name: "low",
        sigma_q: 1e-3 * std::f64::consts::PI / 180.0,
        sigma_tau: 0.05,
    },
    NoiseLevel {
        name: "high",
        sigma_q: 1e-2 * std::f64::consts::PI / 180.0,
        sigma_tau: 0.1,
    },
];

/// Encoder resolution: 20 bits per revolution (rad).
pub const ENCODER_RESOLUTION: f64 = std::f64::consts::TAU / 1_048_576.0;

/// Study settings.
#[derive(Clone, Debug)]
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
#[derive(Clone, Debug)]
struct Row {
    method: String,
    noise: String,
    parameter: String,
    truth: Option<f64>,
    values: Vec<f64>,
}

impl Row {
    fn mean(&self) -> f64 {
        self.values.iter().sum::<f64>() / self.values.len() as f64
    }

    fn std(&self) -> f64 {
        let m = self.mean();
        let n = self.values.len();
        if n < 2 {
            return 0.0;
        }
        (self.values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    }

    /// `(mean − truth) / |truth|`, absent where the truth is zero (to 1e-12 of the scale).
    fn rel(&self) -> Option<f64> {
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
pub struct TeachingReport {
    config: StudyConfig,
    truth: BTreeMap<String, f64>,
    rows: Vec<Row>,
    base_description: Vec<String>,
    /// `(run, RNEA residual)`.
    residuals: Vec<(String, f64)>,
    /// `(run, max |q̇ − v| / |v|, max |q̈|)` over the stretches the sweep analysis uses.
    constant_velocity: Vec<(String, f64, f64)>,
    /// cond(W_b) of the commanded excitation and of the recorded one.
    condition: (f64, f64),
    /// Friction samples and the fitted model per swept joint (noise-free), for the plot.
    friction: Vec<FrictionPanel>,
    /// Relative base-parameter error of the adaptive law over time, per noise level (seed 0).
    adaptive: Vec<(String, Vec<(f64, f64)>)>,
}

struct FrictionPanel {
    joint: u8,
    samples: Vec<friction_sweep::FrictionSample>,
    fitted: friction_sweep::JointFriction,
    simulated: sim::friction::Friction,
}

/// A copy of a run's measurements with fresh noise on `q` and `i` (`None`: ideal sensors).
pub fn measurements(data: &Measurements, noise: Option<(NoiseLevel, u64)>) -> Measurements {
    let mut m = data.clone();
    for j in &mut m.joints {
        j.measured.clear();
        if let Some((level, seed)) = noise {
            let q_model = [
                Noise::Quantize {
                    resolution: ENCODER_RESOLUTION,
                },
                Noise::Gaussian {
                    sigma: level.sigma_q,
                },
            ];
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
) -> Result<Outcome, String> {
    let experiment = Experiment::new(sweeps.iter().collect(), excitation, derivatives, filter);
    let check =
        periodic_samples(validation, derivatives, "validation").map_err(|e| e.to_string())?;
    registry()
        .iter()
        .map(|id| {
            let r = id.identify(&experiment).map_err(|e| e.to_string())?;
            let nrms = torque_nrms(r.model.as_ref(), &check, MIN_SPEED, filter);
            Ok((id.name(), r.parameters, nrms, r.history))
        })
        .collect()
}

impl TeachingReport {
    /// Runs the study on the four runs.
    pub fn new(runs: &TeachingRuns, config: StudyConfig) -> Result<Self, String> {
        let truth = crate::score::arm_truth(&runs.excitation.manifest.model);
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
        .sweep_fit()
        .map_err(|e| e.to_string())?
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
        Ok(TeachingReport {
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

    fn row(&self, method: &str, noise: &str, parameter: &str) -> Option<&Row> {
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
                r.method == "sweep_friction_gravity"
                    && r.noise == "none"
                    && r.parameter.starts_with('j')
            })
            .map(Row::rel)
            .try_fold(0.0f64, |m, e| Some(m.max(e?.abs())))
    }

    /// `teaching.csv`: `method,noise,parameter,truth,estimate,abs_error,rel_error,runs`;
    /// `estimate` is the mean over the runs (noise seeds), `abs_error` its bias `mean − truth`,
    /// `rel_error` the bias over `|truth|`; `parameter = torque_nrms` rows hold the validation
    /// NRMS and no truth.
    pub fn csv(&self) -> String {
        let mut s =
            String::from("method,noise,parameter,truth,estimate,abs_error,rel_error,runs\n");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{}",
                r.method,
                r.noise,
                r.parameter,
                csv_num(r.truth),
                csv_num(Some(r.mean())),
                csv_num(r.truth.map(|t| r.mean() - t)),
                csv_num(r.rel()),
                r.values.len()
            );
        }
        s
    }

    /// A Markdown table of `parameters` (rows) by `methods` (columns) at one noise level.
    fn table(&self, noise: &str, parameters: &[String], methods: &[&str]) -> String {
        let mut md = format!("| parameter | truth | {} |\n|---|---|", methods.join(" | "));
        md += &"---|".repeat(methods.len());
        md += "\n";
        for p in parameters {
            let truth = self.truth.get(p).copied();
            let _ = write!(
                md,
                "| {p} | {} |",
                truth.map_or("–".into(), |t| format!("{t:.6}"))
            );
            for m in methods {
                let cell = self.row(m, noise, p).map_or("".into(), |r| {
                    let rel = r.rel().map_or(String::new(), |e| format!(" ({:+.2e})", e));
                    if r.values.len() > 1 {
                        format!("{:.6} ± {:.1e}{rel}", r.mean(), r.std())
                    } else {
                        format!("{:.6}{rel}", r.mean())
                    }
                });
                let _ = write!(md, " {cell} |");
            }
            md += "\n";
        }
        md
    }

    /// `teaching.md`.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let names = |prefix: char| -> Vec<String> {
            let mut v: Vec<String> = self
                .truth
                .keys()
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect();
            v.sort_by_key(|k| (k.chars().filter(|c| c.is_ascii_digit()).count(), k.clone()));
            v
        };
        let friction_names: Vec<String> = self
            .truth
            .keys()
            .filter(|k| k.starts_with('j'))
            .cloned()
            .collect();
        let _ = writeln!(
            md,
            "# The teaching paper's identification pipeline on link2\n\n\
             Written by `cargo xtask reproduce` from `generated/runs/teaching_*` (scenarios `teaching_sweep_j1`, \
             `teaching_sweep_j2`, `teaching_excitation`, `teaching_validation`). The paper's robot has no kinematic table \
             in its text, so its pipeline runs on link2 with the paper's friction model (eq. 15) on both joints, drive \
             gains K = 20 and 10 N·m/A (torque measured as K·i, eq. 1), the paper's PI velocity loop (eq. 19) driving the \
             sweeps and computed-torque servos driving the trajectories. The paper reports no identified values to put \
             beside these (only plots on its own robot), so the scores are against the simulated truth.\n"
        );
        let _ = writeln!(md, "## The runs\n");
        for (run, r) in &self.residuals {
            let _ = writeln!(
                md,
                "- `{run}`: recorded torques against the independent inverse dynamics, largest relative residual {r:.1e} (O(dt))."
            );
        }
        for (run, v, a) in &self.constant_velocity {
            let _ = writeln!(
                md,
                "- `{run}`: on the stretches the sweep analysis uses (each constant-velocity stretch without its first and last \
                 {} s), the joint speed stays within {:.2} % of the commanded speed and |q̈| ≤ {a:.1e} rad/s².",
                friction_sweep::SETTLE,
                100.0 * v
            );
        }
        let _ = writeln!(
            md,
            "- Excitation: condition number of the base regressor {:.2} for the commanded trajectory (minimized by \
             `cargo xtask excite`), {:.2} for the recorded one.\n",
            self.condition.0, self.condition.1
        );
        let _ = writeln!(
            md,
            "## Base parameters\n\nQR with column pivoting of the standard regressor (10 parameters per link, link frames \
             at the joint points) stacked over random states; `b<k>` are the independent combinations, `g<k>` those of the \
             gravity regressor, `m<k>` those of the inertia (mass-matrix) regressor.\n"
        );
        for (k, d) in self.base_description.iter().enumerate() {
            let _ = writeln!(md, "- b{} = {d}", k + 1);
        }
        let _ = writeln!(
            md,
            "\n## Summary\n\n| method | NRMS none | NRMS low | NRMS high | max base error none (rel. to max |β|) |\n|---|---|---|---|---|"
        );
        for m in [
            "idim_ols",
            "idim_wls",
            "idim_tls",
            "adaptive",
            "two_step",
            "sweep_friction_gravity",
        ] {
            let f = |n: &str| {
                self.nrms(m, n)
                    .map_or("–".into(), |v| format!("{:.3} %", 100.0 * v))
            };
            let _ = writeln!(
                md,
                "| {m} | {} | {} | {} | {} |",
                f("none"),
                f("low"),
                f("high"),
                self.max_base_error(m, "none")
                    .map_or("–".into(), |v| format!("{v:.1e}"))
            );
        }
        let _ = writeln!(
            md,
            "\nNRMS = sqrt(Σ(τ̂ − τ)² / Σ τ²) on the validation trajectory (never used for identification), over the samples \
             where the joint moves faster than {MIN_SPEED} rad/s (near zero speed the friction depends on how it passes \
             through zero, which none of these models describes), τ the measured K·i. With noise, q̇ and q̈ come from a \
             {}-harmonic Fourier series of the measured q, and predicted and measured torques are both low-passed to {} \
             harmonics (parallel filtering; this also removes the torque noise from the comparison). Noise levels: low \
             σ_q = 1e-3°, σ_τ = 0.05 N·m; high σ_q = 1e-2°, σ_τ = 0.1 N·m; q quantized by a 20-bit encoder first; {} seeds \
             each. The sweep analysis alone (friction + gravity, no inertia) is listed for its parameters; its NRMS only \
             shows that inertia matters on the trajectory.\n",
            self.config.harmonics, self.config.filter, self.config.seeds
        );
        let base_names = names('b');
        for noise in ["none", "low", "high"] {
            let _ = writeln!(
                md,
                "## Base parameters, noise `{noise}`\n\nmean ± standard deviation over the seeds (relative bias)\n"
            );
            md += &self.table(
                noise,
                &base_names,
                &["idim_ols", "idim_wls", "idim_tls", "adaptive"],
            );
            md += "\n";
        }
        for noise in ["none", "low"] {
            let _ = writeln!(md, "## Friction, noise `{noise}`\n");
            md += &self.table(
                noise,
                &friction_names,
                &["sweep_friction_gravity", "idim_ols", "adaptive"],
            );
            md += "\n";
        }
        let mut two: Vec<String> = names('g');
        two.extend(names('m'));
        for noise in ["none", "low"] {
            let _ = writeln!(md, "## Two-step method, noise `{noise}`\n");
            md += &self.table(noise, &two, &["sweep_friction_gravity", "two_step"]);
            md += "\n";
        }
        let _ = writeln!(
            md,
            "![friction fit](teaching_friction.png)\n\n![adaptive law](teaching_adaptive.png)\n\n\
             ## What the numbers say\n\n\
             - **Sweeps.** Friction is odd in the velocity and gravity is not, so half the difference of the forward and \
             backward torques at equal angles is friction and half the sum gravity. Without noise every coefficient of eq. 15 \
             comes back within {:.2} %; the quadratic term is the weakest (it adds only ~0.02 N·m at 4 °/s to ~3.5 N·m, so \
             its 1 % is 2e-4 N·m, and over 0.5–4 °/s it is nearly collinear with the viscous and transition terms). The \
             half-differences match the simulated friction to ~1e-5 N·m; that residue is the method's own neglect of \
             inertia (the friction ripple modulates the servo's lag, so the joint is never exactly at constant speed; the \
             sweep scenarios use a stiff velocity loop for this reason) and of speed estimation. With noise the quadratic \
             term is not determined by sweeps this slow.\n\
             - **IDIM.** Without noise, OLS, WLS and TLS recover the base parameters to the integrator's O(dt) residual; with \
             noise they stay unbiased to the level the table shows. The static-friction coefficient is not identifiable \
             from the equations IDIM keeps (joints faster than 0.05 rad/s, where its weight e^(−|q̇|/v_t) is below 0.1): \
             its value there is noise; the sweeps determine it. WLS equals OLS here because the two joints' residuals have \
             similar size; TLS equals OLS within the noise because the regressor noise after filtering is small.\n\
             - **Two-step.** Ignoring C(q, q̇)q̇ biases the inertia estimates (the m-rows) and leaves a torque error of \
             ~1.5 % without noise. With noise it is far worse: its friction comes from sweeps at ≤ 4 °/s and is extrapolated \
             to the trajectory's 1.5 rad/s, where the noisy quadratic coefficient dominates.\n\
             - **Adaptive law.** The gradient law converges to the IDIM solution on this persistently exciting trajectory \
             (figure); its rate is set by the smallest eigenvalue of the normalized information matrix, so the static-friction \
             term, excited only near reversals, converges last. With noise it fluctuates around the least-squares solution with \
             an amplitude set by its gain.\n\
             - **Paper deviations.** eq. 15 as printed has f₅ sin q + f₆ cos q and τ_v2 q̇² even in q̇ (not friction: they \
             would be gravity-like and inseparable from gravity by the paper's own sweep method); here they oppose motion. \
             Its S⁻¹(q̇) = e^(−q̇/q̇ε) is read as 1 − S with S = 1 − e^(−|q̇|/v_t), and sgn(i_c) as the smoothed sign of q̇ \
             (`sim::friction` states all of this).",
            100.0 * self.max_friction_error().unwrap_or(f64::NAN)
        );
        md
    }

    /// Draws the friction fit (per swept joint: half-difference samples, fitted model and the
    /// simulated model against the angle, one colour per speed).
    pub fn plot_friction(&self, path: &Path) -> Result<(), String> {
        register_font();
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let root = BitMapBackend::new(path, (1400, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let panels = root.split_evenly((1, self.friction.len().max(1)));
        for (area, p) in panels.iter().zip(&self.friction) {
            let speeds = {
                let mut v: Vec<f64> = p.samples.iter().map(|s| s.1.abs()).collect();
                v.sort_by(f64::total_cmp);
                let mut levels: Vec<f64> = Vec::new();
                for s in v {
                    if levels.last().is_none_or(|l| s > 1.05 * l) {
                        levels.push(s);
                    }
                }
                levels
            };
            let (qmin, qmax) = p
                .samples
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), s| (a.min(s.0), b.max(s.0)));
            let (ymin, ymax) = p
                .samples
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), s| (a.min(s.2), b.max(s.2)));
            let pad = 0.05 * (ymax - ymin);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("joint {}: friction from the sweeps", p.joint),
                    ("sans-serif", 22),
                )
                .margin(15)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(qmin..qmax, (ymin - 8.0 * pad)..(ymax + pad))
                .map_err(|e| err(&e))?;
            chart
                .configure_mesh()
                .x_desc("joint angle (rad)")
                .y_desc("friction torque (N·m)")
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(|e| err(&e))?;
            let grid: Vec<f64> = (0..=200)
                .map(|i| qmin + (qmax - qmin) * f64::from(i) / 200.0)
                .collect();
            for (k, &v) in speeds.iter().enumerate() {
                let color = Palette99::pick(k).to_rgba();
                chart
                    .draw_series(LineSeries::new(
                        grid.iter().map(|&q| (q, p.fitted.torque(q, v))),
                        color.stroke_width(4),
                    ))
                    .map_err(|e| err(&e))?
                    .label(format!("{:.1} °/s: fit of eq. 15", v.to_degrees()))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(4))
                    });
            }
            for &v in &speeds {
                let near = |s: &&friction_sweep::FrictionSample| (s.1.abs() - v).abs() < 0.04 * v;
                chart
                    .draw_series(
                        p.samples
                            .iter()
                            .filter(near)
                            .step_by(25)
                            .map(|s| Circle::new((s.0, s.2), 2, BLACK.filled())),
                    )
                    .map_err(|e| err(&e))?;
            }
            for (k, &v) in speeds.iter().enumerate() {
                let series = chart
                    .draw_series(DashedLineSeries::new(
                        grid.iter().map(|&q| (q, p.simulated.magnitude(q, v))),
                        6,
                        4,
                        BLACK.stroke_width(1),
                    ))
                    .map_err(|e| err(&e))?;
                if k == 0 {
                    series
                        .label("simulated friction (dashed); half-differences (dots)")
                        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
                }
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 13))
                .position(SeriesLabelPosition::LowerRight)
                .draw()
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))
    }

    /// Draws the adaptive law's relative base-parameter error against the data consumed.
    pub fn plot_adaptive(&self, path: &Path) -> Result<(), String> {
        register_font();
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let tmax = self
            .adaptive
            .iter()
            .flat_map(|(_, h)| h.iter().map(|p| p.0))
            .fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "adaptive law (eq. 29): base-parameter error",
                ("sans-serif", 22),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..tmax, (1e-6..10.0).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("data replayed (s)")
            .y_desc("‖β̂ − β‖ / ‖β‖")
            .label_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        for ((name, h), color) in self.adaptive.iter().zip([BLACK, BLUE, RED]) {
            chart
                .draw_series(LineSeries::new(
                    h.iter().map(|&(t, e)| (t, e.max(1e-6))),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(format!("noise {name}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))
    }

    /// Writes `teaching.md`, `teaching.csv` and the two plots into `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("teaching.md"), self.markdown()).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("teaching.csv"), self.csv()).map_err(|e| e.to_string())?;
        self.plot_friction(&dir.join("teaching_friction.png"))?;
        self.plot_adaptive(&dir.join("teaching_adaptive.png"))
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
    let Some(sim::profile::Profile::Fourier { base_frequency, .. }) = profiles.first() else {
        return f64::NAN;
    };
    let design = crate::excitation::FourierDesign {
        base_frequency: *base_frequency,
        harmonics: 0,
        position_limit: 0.0,
        velocity_limit: 0.0,
        acceleration_limit: 0.0,
        samples: 100,
    };
    crate::excitation::condition_number(&excitation.geometry, base, &design, &profiles)
}

/// cond(W_b) over the recorded excitation (every 10th sample of its whole periods).
fn recorded_condition(excitation: &Measurements, base: &BaseParameters) -> Result<f64, String> {
    let s = periodic_samples(excitation, Derivatives::Recorded, "condition")
        .map_err(|e| e.to_string())?;
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
