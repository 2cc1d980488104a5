//! `generated/report/teaching.md`, `teaching.csv`, `teaching_friction.png` and
//! `teaching_adaptive.png`: pure rendering of a [`TeachingStudy`] (computed by
//! [`crate::study::teaching`]).

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::estimate::EstimatorId::{
    self, Adaptive, FrictionSweep, IdimOls, IdimTls, IdimWls, TwoStep,
};
use crate::estimate::idim::{MIN_SPEED, friction_sweep};
use crate::param::ParamId;
use crate::report::{csv_num, register_font};
pub use crate::study::teaching::{
    ENCODER_RESOLUTION, NoiseLevel, StudyConfig, TeachingRuns, TeachingStudy,
    constant_velocity_check, measurements,
};

/// A noise level in words: `low σ_q = 0.001°, σ_τ = 0.05 N·m, q quantized by a 20-bit encoder first`.
pub(crate) fn describe_level(level: &NoiseLevel) -> String {
    let mut text = format!(
        "{} σ_q = {}°, σ_τ = {} N·m",
        level.name,
        (level.sigma_q * 180.0 / std::f64::consts::PI * 1e12).round() / 1e12,
        level.sigma_tau
    );
    if level.resolution > 0.0 {
        let bits = (std::f64::consts::TAU / level.resolution).log2();
        if (bits - bits.round()).abs() < 1e-9 {
            let _ = write!(text, ", q quantized by a {bits:.0}-bit encoder first");
        } else {
            let _ = write!(text, ", q quantized to {:e} rad first", level.resolution);
        }
    }
    text
}

impl TeachingStudy {
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
    fn table(&self, noise: &str, parameters: &[String], methods: &[EstimatorId]) -> String {
        let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        let mut md = format!("| parameter | truth | {} |\n|---|---|", names.join(" | "));
        md += &"---|".repeat(methods.len());
        md += "\n";
        for p in parameters {
            let truth = self.truth.get(p).copied();
            let _ = write!(
                md,
                "| {} | {} |",
                p,
                truth.map_or("–".into(), |t| format!("{t:.6}"))
            );
            for m in methods {
                let cell = self.row(m.name(), noise, p).map_or("".into(), |r| {
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
        // The parameters of one kind, in the order of their identifiers (joint, then term).
        let names = |kind: fn(&ParamId) -> bool| -> Vec<String> {
            let mut ids: Vec<ParamId> = (self.truth.keys())
                .filter_map(|k| k.parse().ok())
                .filter(kind)
                .collect();
            ids.sort();
            ids.iter().map(ToString::to_string).collect()
        };
        let friction_names = names(|p| matches!(p, ParamId::Friction { .. }));
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
             at the joint points) stacked over random states; `base.<k>` are the independent combinations, `gravity.<k>` those \
             of the gravity regressor, `inertia.<k>` those of the inertia (mass-matrix) regressor.\n"
        );
        for (k, d) in self.base_description.iter().enumerate() {
            let _ = writeln!(md, "- {} = {d}", ParamId::Base(k + 1));
        }
        // The noise cases: none, then the study's levels.
        let noises: Vec<&str> = std::iter::once("none")
            .chain(self.config.levels.iter().map(|l| l.name.as_str()))
            .collect();
        let first = &noises[..noises.len().min(2)];
        let _ = writeln!(
            md,
            "\n## Summary\n\n| method | {} | max base error none (rel. to max |β|) |\n|---|{}---|",
            noises
                .iter()
                .map(|n| format!("NRMS {n}"))
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(noises.len())
        );
        for m in [IdimOls, IdimWls, IdimTls, Adaptive, TwoStep, FrictionSweep] {
            let f = |n: &str| {
                self.nrms(m, n)
                    .map_or("–".into(), |v| format!("{:.3} %", 100.0 * v))
            };
            let _ = writeln!(
                md,
                "| {m} | {} | {} |",
                noises.iter().map(|n| f(n)).collect::<Vec<_>>().join(" | "),
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
             harmonics (parallel filtering; this also removes the torque noise from the comparison). Noise levels: {}; {} seeds \
             each. The sweep analysis alone (friction + gravity, no inertia) is listed for its parameters; its NRMS only \
             shows that inertia matters on the trajectory.\n",
            self.config.harmonics,
            self.config.filter,
            self.config
                .levels
                .iter()
                .map(describe_level)
                .collect::<Vec<_>>()
                .join("; "),
            self.config.seeds
        );
        let base_names = names(|p| matches!(p, ParamId::Base(_)));
        for &noise in &noises {
            let _ = writeln!(
                md,
                "## Base parameters, noise `{noise}`\n\nmean ± standard deviation over the seeds (relative bias)\n"
            );
            md += &self.table(noise, &base_names, &[IdimOls, IdimWls, IdimTls, Adaptive]);
            md += "\n";
        }
        for &noise in first {
            let _ = writeln!(md, "## Friction, noise `{noise}`\n");
            md += &self.table(noise, &friction_names, &[FrictionSweep, IdimOls, Adaptive]);
            md += "\n";
        }
        let mut two: Vec<String> = names(|p| matches!(p, ParamId::GravityBase(_)));
        two.extend(names(|p| matches!(p, ParamId::InertiaBase(_))));
        for &noise in first {
            let _ = writeln!(md, "## Two-step method, noise `{noise}`\n");
            md += &self.table(noise, &two, &[FrictionSweep, TwoStep]);
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
    pub(crate) fn plot_friction(&self, path: &Path) -> crate::Result<()> {
        register_font();
        let err = |e: &dyn std::fmt::Display| crate::Error::Plot {
            path: path.to_owned(),
            message: e.to_string(),
        };
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
            super::plot::legend(&mut chart, 13, SeriesLabelPosition::LowerRight)
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))
    }

    /// Draws the adaptive law's relative base-parameter error against the data consumed.
    pub(crate) fn plot_adaptive(&self, path: &Path) -> crate::Result<()> {
        register_font();
        let err = |e: &dyn std::fmt::Display| crate::Error::Plot {
            path: path.to_owned(),
            message: e.to_string(),
        };
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
        super::plot::legend(&mut chart, 13, SeriesLabelPosition::MiddleRight)
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))
    }

    /// Writes `teaching.md`, `teaching.csv` and the two plots into `dir`.
    pub fn write(&self, dir: &Path) -> crate::Result<()> {
        // The serialized result they are rendered from is the study engine's
        // (`crate::kind`: `<name>.json`).
        std::fs::create_dir_all(dir).map_err(crate::Error::io(dir))?;
        for (file, text) in [
            ("teaching.md", self.markdown()),
            ("teaching.csv", self.csv()),
        ] {
            let path = dir.join(file);
            super::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
        }
        super::write_atomic_with(&dir.join("teaching_friction.png"), |tmp| {
            self.plot_friction(tmp)
        })?;
        super::write_atomic_with(&dir.join("teaching_adaptive.png"), |tmp| {
            self.plot_adaptive(tmp)
        })
    }
}
