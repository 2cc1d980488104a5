//! The run-level NIM under the MIM paper's sensing (issue 28): a force/torque sensor at every
//! joint and the bodies' kinematics, on the arm6 family, scored two ways.
//!
//! - **Held-out arms** ([`super::joint_level`] with [`Sensing::Paper`]): population arms the
//!   network never saw, each read at its own drawn noise level, per noise band: the median of
//!   each arm's median relative error over its identifiable central moments, beside MIM-GLS,
//!   MIM-GLS shrunk toward the population, and the population mean; ±2σ coverage.
//! - **Exact runs** ([`exact`]): the same fixed runs without sensor noise, where the paper's
//!   NIM was within 1 % of the masses and 2 % of the moments: each method's largest relative
//!   error over the bodies' masses and over the central moments the run determines.
//! - **Fixed runs under a noise sweep** (a study file, `studies/nim_paper_noise.toml`): each
//!   level's RMSE over Monte-Carlo seeds per parameter, with the Cramér–Rao bound; summarized
//!   here per (run, level) as the median over the central moments MIM-GLS identifies of
//!   RMSE/|truth| for `nim` and `mim_gls` ([`LevelRow`]). The runs' arms may be the population's
//!   centre (`paper_rail`, `arm6_fourier` are the reference arm6): there the prior helps by
//!   construction, which is why the held-out arms are scored too.
//!
//! Computation only; [`crate::report::paper_sensing`] renders the result.

pub mod set_encoder;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::joint_level::JointLevelStudy;
use super::sweep::{SweepResult, SweepRow};
use crate::dataset::Run;
use crate::estimate::mim::algorithm;
use crate::estimate::nim::joint::Sensing;
use crate::estimate::nim::joint::sensing::encode_bodies;
use crate::estimate::{Experiment, Options, Role, by_name};
use crate::param::{ParamId, truth_table};

/// A method's largest errors on a run without sensor noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactRow {
    /// The run (scenario name).
    pub scenario: String,
    /// The estimator.
    pub method: String,
    /// Largest `|m̂ − m| / m` over the bodies (`B<i>.m` where the method states it, else its
    /// first per-axis mass the motion determines); NaN where a body has none.
    pub mass: f64,
    /// Largest relative error over the central moments the run determines (those MIM
    /// identifies on it); NaN where the method misses one.
    pub moments: f64,
    /// Those moments.
    pub counted: usize,
}

/// The NIM's and MIM-GLS's moment errors at one level of the sweep on one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelRow {
    /// The run (scenario name).
    pub scenario: String,
    /// Relative force/torque noise (σ = level × each body's signal RMS).
    pub level: f64,
    /// Central moments counted (those MIM-GLS reports).
    pub moments: usize,
    /// `mim_gls`: median over them of RMSE/|truth|.
    pub mim_gls: f64,
    /// `nim`: the same over the same moments.
    pub nim: f64,
    /// Other NIM variants of the sweep (`nim_*`, e.g. one trained without a motion family):
    /// `(method, the same)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<(String, f64)>,
    /// The Cramér–Rao bound's: median over them of CRB/|truth|.
    pub bound: f64,
}

/// The study's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaperSensingStudy {
    /// Held-out arms of the population ([`Sensing::Paper`]).
    pub arms: JointLevelStudy,
    /// The noise sweep on fixed runs, `nim` with the study's models.
    pub sweep: SweepResult,
    /// Its summary per run and level.
    pub levels: Vec<LevelRow>,
    /// The fixed runs without sensor noise ([`exact`]).
    pub exact: Vec<ExactRow>,
    /// How the learned set encoder scored on the held-out arms (method
    /// [`crate::estimate::nim::set::SetNim::NAME`]) was trained, where one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_encoder: Option<set_encoder::SetTrainingReport>,
}

impl PaperSensingStudy {
    /// The result of the held-out `arms` (a paper-sensing study), the `sweep` and the `exact`
    /// runs' rows; `Err` if `arms` is not paper sensing.
    pub fn new(
        arms: JointLevelStudy,
        sweep: SweepResult,
        exact: Vec<ExactRow>,
    ) -> crate::Result<Self> {
        if arms.sensing != Sensing::Paper {
            return Err(crate::Error::Data(
                "paper-sensing study: the held-out arms' study reads joint-level sensing".into(),
            ));
        }
        let levels = levels(&sweep);
        Ok(PaperSensingStudy {
            arms,
            sweep,
            levels,
            exact,
            set_encoder: None,
        })
    }
}

/// `(scenario, level bits, method) → moment rows`.
type Moments<'a> = BTreeMap<(String, u64, String), Vec<&'a SweepRow>>;

/// Per (run, level) where both `nim` and `mim_gls` ran, the median relative RMSE of the central
/// moments `mim_gls` reports, for both.
pub fn levels(sweep: &SweepResult) -> Vec<LevelRow> {
    let mut moments: Moments = BTreeMap::new();
    for r in sweep.rows.iter().filter(|r| r.parameter.contains(".j")) {
        let key = (r.scenario.clone(), r.level.to_bits(), r.method.clone());
        moments.entry(key).or_default().push(r);
    }
    let mut out = Vec::new();
    for ((scenario, bits, method), gls) in &moments {
        if method != "mim_gls" {
            continue;
        }
        let Some(nim) = moments.get(&(scenario.clone(), *bits, "nim".to_string())) else {
            continue;
        };
        let counted: Vec<&SweepRow> = (gls.iter().copied())
            .filter(|r| r.summary.truth.abs() >= crate::score::ZERO)
            .collect();
        let relative = |rows: &[&SweepRow], f: &dyn Fn(&SweepRow) -> Option<f64>| {
            let v: Vec<f64> = (counted.iter())
                .filter_map(|c| {
                    let r = rows.iter().find(|r| r.parameter == c.parameter)?;
                    f(r).map(|x| x / c.summary.truth.abs())
                })
                .collect();
            if v.len() == counted.len() {
                super::stats::median(&v)
            } else {
                f64::NAN
            }
        };
        let rmse = |r: &SweepRow| Some(r.summary.rmse);
        let variants = (moments.iter())
            .filter(|((s, b, m), _)| s == scenario && b == bits && m.starts_with("nim_"))
            .map(|((_, _, m), rows)| (m.clone(), relative(rows, &rmse)))
            .collect();
        out.push(LevelRow {
            scenario: scenario.clone(),
            level: f64::from_bits(*bits),
            moments: counted.len(),
            mim_gls: relative(gls, &rmse),
            nim: relative(nim, &rmse),
            variants,
            bound: relative(gls, &|r| r.crb),
        });
    }
    out
}

/// Each of `methods` (registry names built with `options`) on `run`, a run without sensor
/// noise, against its truth ([`ExactRow`]); `Err` for an unknown name, a method that does not
/// apply gives no row.
pub fn exact(run: &Run, methods: &[&str], options: &Options) -> crate::Result<Vec<ExactRow>> {
    let m = &run.measurements;
    let experiment = Experiment::new(vec![(Role::Single, m)]);
    let truth = truth_table(&run.manifest.model);
    let (ids, encoded) = encode_bodies(&experiment).map_err(crate::Error::Data)?;
    let moments: Vec<ParamId> = (ids.iter().zip(&encoded))
        .filter(|(id, e)| id.is_moment() && e.0.is_finite())
        .map(|(id, _)| *id)
        .collect();
    let mut rows = Vec::new();
    for &name in methods {
        let estimator = by_name(options, name).ok_or_else(|| crate::Error::Invalid {
            what: format!("paper-sensing study: estimator `{name}`"),
            expected: "a name of the registry (`validation::estimate::registry`)".into(),
        })?;
        if estimator.applies(&experiment).is_err() {
            continue;
        }
        let values = estimator
            .estimate(&experiment)
            .map_err(crate::Error::from)?
            .values;
        let relative = |id: &ParamId, v: Option<f64>| {
            let t = truth.get(id).copied().unwrap_or(f64::NAN);
            v.map_or(f64::NAN, |v| ((v - t) / t).abs())
        };
        // The largest, NaN if any is (a missing estimate is not a small error).
        let worst = |e: &mut dyn Iterator<Item = f64>| {
            e.fold(0.0, |m: f64, x| {
                if m.is_nan() || x.is_nan() {
                    f64::NAN
                } else {
                    m.max(x)
                }
            })
        };
        let mass = worst(&mut (1..=m.bodies.len() as u8).map(|b| {
            let stated = values.get(&ParamId::mass(b)).and_then(|e| e.value);
            relative(
                &ParamId::mass(b),
                stated.or_else(|| algorithm::mass(&values, b)),
            )
        }));
        let moment = worst(
            &mut (moments.iter()).map(|id| relative(id, values.get(id).and_then(|e| e.value))),
        );
        rows.push(ExactRow {
            scenario: run.manifest.run_id.clone(),
            method: name.to_string(),
            mass,
            moments: moment,
            counted: moments.len(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::file::SensorFamily;
    use crate::study::stats::Summary;

    fn row(method: &str, parameter: &str, rmse: f64, crb: Option<f64>) -> SweepRow {
        SweepRow {
            scenario: "arm".into(),
            method: method.into(),
            sensor: SensorFamily::ForceTorque,
            level: 1e-3,
            parameter: parameter.into(),
            summary: Summary {
                truth: 2.0,
                mean: 2.0,
                bias: 0.0,
                std: rmse,
                rmse,
                runs: 10,
            },
            crb,
        }
    }

    #[test]
    fn levels_compare_nim_on_the_moments_mim_gls_reports() {
        let sweep = SweepResult {
            rows: vec![
                row("mim_gls", "B2.j11", 0.02, Some(0.02)),
                row("mim_gls", "B2.j22", 0.04, Some(0.04)),
                row("mim_gls", "B2.m_e1", 9.0, None),
                row("nim", "B2.j11", 0.01, None),
                row("nim", "B2.j22", 0.02, None),
                // Not identified by MIM-GLS: not counted.
                row("nim", "B1.j22", 5.0, None),
                row("nim_other", "B2.j11", 0.04, None),
            ],
            ..Default::default()
        };
        let levels = levels(&sweep);
        assert_eq!(levels.len(), 1);
        let l = &levels[0];
        // Medians of two relative RMSEs (RMSE / |truth|, truth 2): their mean.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(l.moments, 2);
        assert!(close(l.mim_gls, 0.015) && close(l.nim, 0.0075) && close(l.bound, 0.015));
        // A variant missing a moment has no median.
        assert_eq!(l.variants.len(), 1);
        assert!(l.variants[0].1.is_nan());
    }
}
