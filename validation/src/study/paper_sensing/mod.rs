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
//!   RMSE/|truth| for `nim` and `mim_gls` ([`LevelRow`], [`super::level_summary`]). The runs' arms may be the population's
//!   centre (`paper_rail`, `arm6_fourier` are the reference arm6): there the prior helps by
//!   construction, which is why the held-out arms are scored too.
//!
//! Computation only; [`crate::report::paper_sensing`] renders the result.

pub mod set_encoder;

use crate::estimate::engine::NoEstimate;
use serde::{Deserialize, Serialize};

use super::joint_level::JointLevelStudy;
use super::level_summary::{LevelRow, levels};
use super::sweep::SweepResult;
use crate::estimate::mim::algorithm;
use crate::estimate::nim::joint::Sensing;
use crate::estimate::nim::joint::sensing::encode_bodies;
use crate::estimate::{EstimatorId, Experiment, Options, Role, by_name};
use crate::param::{ParamId, truth_table};
use sim::reading::Run;

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
            return Err(crate::Error::invalid(
                "paper-sensing study: the held-out arms' study (joint-level sensing)",
                "a study of paper sensing",
            ));
        }
        let levels = levels(&sweep, EstimatorId::MimGls, |p| p.contains(".j"));
        Ok(PaperSensingStudy {
            arms,
            sweep,
            levels,
            exact,
            set_encoder: None,
        })
    }
}

/// Each of `methods` (registry names built with `options`) on `run`, a run without sensor
/// noise, against its truth ([`ExactRow`]); `Err` for an unknown name, a method that does not
/// apply gives no row.
pub fn exact(run: &Run, methods: &[&str], options: &Options) -> crate::Result<Vec<ExactRow>> {
    let m = &run.measurements;
    let experiment = Experiment::new(vec![(Role::Single, m)]);
    let truth = truth_table(&run.manifest.model);
    let (ids, encoded) = encode_bodies(&experiment)?;
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
        let values = match crate::estimate::engine::run(estimator.as_ref(), &experiment) {
            Err(NoEstimate::NotApplicable(_)) => continue,
            Err(NoEstimate::Failed(e)) => return Err(e.into()),
            Ok(estimates) => estimates.values,
        };
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
