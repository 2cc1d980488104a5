//! The MIM paper's experiment on a `paper_rail` run: MIM at the paper's instant and stacked
//! over every sample, scored against the truth beside the paper's Tables 2–3, the whole-arm
//! solution against the per-body ones, the run's consistency checks, and stacked MIM on the
//! appendix arm. [`crate::report::mim`] renders it.

use crate::consistency;
use crate::estimate::mim::algorithm::PARAMETERS;
use crate::estimate::mim::{SingleInstant, Stacked, WholeArm};
use crate::estimate::score::{Scored, score};
use crate::estimate::{EstimateError, Estimator, EstimatorId, Experiment, engine};
use crate::paper::{MIM_TABLE2, MIM_TABLE3};
use crate::param::ParamId;
use sim::reading::Run;

/// One row of the study.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// Our scored estimate.
    pub scored: Scored,
    /// The paper's value (Table 2), single-instant rows only.
    pub paper_estimate: Option<f64>,
    /// The paper's absolute error (Table 3), single-instant rows only.
    pub paper_abs_error: Option<f64>,
}

/// The MIM reproduction of one `paper_rail` run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MimStudy {
    /// Rows of the single-instant and stacked methods.
    pub rows: Vec<Row>,
    /// Largest |difference| between the whole-arm (eq. 20) and per-body (eq. 18) solutions.
    pub whole_arm_difference: f64,
    /// Per-body Newton–Euler closure (force, moment), relative.
    pub newton_euler: (f64, f64),
    /// RNEA residual per joint, relative.
    pub inverse_dynamics: Vec<f64>,
    /// Rapier's discrete world against the recorded readings (from the manifest).
    pub rapier: Option<sim::dataset::manifest::RapierConsistency>,
    /// Integrator step of the run (s).
    pub dt: f64,
    /// Stacked MIM on the appendix 2-DOF arm (`cyl2`), where it was run.
    pub appendix: Option<Vec<Scored>>,
}

impl MimStudy {
    /// Runs MIM on a `paper_rail` run and scores it.
    pub fn new(run: &Run) -> Result<Self, EstimateError> {
        let experiment = Experiment::single(&run.measurements);
        let (single, stacked) = (SingleInstant::paper(), Stacked::default());
        let mut rows = Vec::new();
        for (method, is_paper) in [(&single as &dyn Estimator, true), (&stacked, false)] {
            let est = engine::required(method, &experiment)?.values;
            for s in score(method.name(), &est, &run.truth) {
                let ParamId::Body { quantity, .. } = s.parameter else {
                    unreachable!("MIM estimates body parameters")
                };
                let (b, p) = (
                    s.body as usize - 1,
                    PARAMETERS
                        .iter()
                        .position(|p| *p == quantity)
                        .expect("MIM parameter"),
                );
                let paper = |t: &[[f64; 6]; 6]| {
                    (is_paper && b < 6)
                        .then(|| t[b][p])
                        .filter(|v| v.is_finite())
                };
                rows.push(Row {
                    paper_estimate: paper(&MIM_TABLE2),
                    paper_abs_error: paper(&MIM_TABLE3),
                    scored: s,
                });
            }
        }
        let per_body = engine::required(&stacked, &experiment)?.values;
        let arm = engine::required(&WholeArm::default(), &experiment)?.values;
        let whole_arm_difference = per_body
            .values()
            .zip(arm.values())
            .map(|(a, b)| match (a.value, b.value) {
                (Some(x), Some(y)) => (x - y).abs(),
                (None, None) => 0.0,
                _ => f64::INFINITY,
            })
            .fold(0.0, f64::max);
        Ok(MimStudy {
            rows,
            whole_arm_difference,
            newton_euler: consistency::newton_euler(run),
            inverse_dynamics: consistency::inverse_dynamics(run),
            rapier: run.manifest.checks.rapier,
            dt: run.manifest.integrator.dt,
            appendix: None,
        })
    }

    /// Adds stacked MIM on a run of the MIM paper's appendix 2-DOF arm (`scenarios/mim_cyl2.toml`).
    pub fn with_appendix(mut self, cyl2: &Run) -> Result<Self, EstimateError> {
        let method = Stacked::default();
        let est = engine::required(&method, &Experiment::single(&cyl2.measurements))?.values;
        self.appendix = Some(score(method.name(), &est, &cyl2.truth));
        Ok(self)
    }

    /// Largest relative error over identified parameters of a method.
    pub fn max_rel_error(&self, method: EstimatorId) -> f64 {
        self.rows
            .iter()
            .filter(|r| r.scored.method == method)
            .filter_map(|r| r.scored.rel_error())
            .fold(0.0, |a, e| a.max(e.abs()))
    }

    /// The parameters a method reported as not identifiable.
    pub fn unidentifiable(&self, method: EstimatorId) -> Vec<ParamId> {
        self.rows
            .iter()
            .filter(|r| r.scored.method == method && r.scored.estimate.is_none())
            .map(|r| r.scored.parameter)
            .collect()
    }
}
