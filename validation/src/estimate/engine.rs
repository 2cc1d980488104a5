//! The `estimate` command's computation: every applicable estimator on each experiment, scored.

use std::collections::BTreeMap;

use crate::estimate::score::Row;
use crate::estimate::{Estimates, Estimator, Experiment, ParamId, Role};

/// What `estimate` found for one experiment.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Scored parameters.
    pub rows: Vec<Row>,
    /// `(method, reason)` of the estimators that do not apply.
    pub skipped: Vec<(String, String)>,
    /// `(method, error)` of the estimators that applied and failed.
    pub failed: Vec<(String, String)>,
    /// The identified models of the methods that give one.
    pub models: Vec<IdentifiedModel>,
    /// `(method, link, why)`: physically inconsistent links of standard-parameter estimates.
    pub inconsistent: Vec<(String, usize, String)>,
}

impl Outcome {
    /// The estimators that gave rows, in the order of their first row.
    pub fn methods(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !out.contains(&r.method.as_str()) {
                out.push(&r.method);
            }
        }
        out
    }
}

/// Why an estimator gave no estimates of an experiment.
#[derive(Debug, thiserror::Error)]
pub enum NoEstimate {
    /// It does not apply to the experiment.
    #[error(transparent)]
    NotApplicable(#[from] crate::estimate::NotApplicable),
    /// It failed on it.
    #[error(transparent)]
    Failed(#[from] crate::estimate::EstimateError),
}

/// `estimator`'s estimates of `experiment` where it applies: the one way every command and
/// study runs an estimator ([`Estimator::applies`], then [`Estimator::estimate`]).
pub fn run(
    estimator: &dyn Estimator,
    experiment: &Experiment,
) -> Result<crate::estimate::Estimates, NoEstimate> {
    if let (true, Some(joint)) = (estimator.reads_torque(), experiment.torque_less_joint()) {
        return Err(crate::estimate::NotApplicable::new(format!(
            "joint {joint} logs no torque (a servo arm's commands only): an estimator that reads \
             torque cannot use it; `armid rollout` judges a model on it"
        ))
        .into());
    }
    estimator.applies(experiment)?;
    Ok(estimator.estimate(experiment)?)
}

/// [`run`] where the caller needs the estimates (a study of a fixed method): an estimator that
/// does not apply is an error naming it and why.
pub fn required(
    estimator: &dyn Estimator,
    experiment: &Experiment,
) -> Result<crate::estimate::Estimates, crate::estimate::EstimateError> {
    run(estimator, experiment).map_err(|e| match e {
        NoEstimate::NotApplicable(why) => why.into_error(estimator.name()),
        NoEstimate::Failed(err) => err,
    })
}

/// A model an estimator identified.
#[derive(Clone, Debug)]
pub struct IdentifiedModel {
    /// The estimator.
    pub method: String,
    /// The arm with the identified link parameters.
    pub chain: sim::model::Chain,
    /// The identified drive terms, where the estimator has any
    /// ([`crate::estimate::idim::drives::drive_train`]).
    pub drives: Option<sim::replay::DriveTrain>,
}

/// An identified model's actuator torque: `τ = RNEA(q, q̇, q̈) + drives(q̇, q̈)` (gravity
/// [`sim::gravity_vector`]; the drive terms as [`sim::replay::DriveTrain::torque`] states them):
/// the model its files state, which a simulator loading them computes.
impl crate::estimate::idim::TorqueModel for IdentifiedModel {
    fn torque(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let mut tau =
            sim::dynamics::rnea(&self.chain, q, qd, qdd, &self.chain.gravity_vector()).tau;
        if let Some(d) = &self.drives {
            for (t, x) in tau.iter_mut().zip(d.torque(qd, qdd)) {
                *t += x;
            }
        }
        tau
    }
}

impl IdentifiedModel {
    /// The whole model of `estimates` by `method` on `experiment`, where it gives one: its
    /// bodies, and its drive terms through the experiment's transmission.
    pub fn of(method: &str, estimates: &Estimates, experiment: &Experiment) -> Option<Self> {
        let chain = estimates.model.clone()?;
        let transmission =
            (experiment.runs().iter()).find_map(|(_, m)| m.stated.transmission.as_ref());
        Some(IdentifiedModel {
            method: method.into(),
            drives: crate::estimate::idim::drives::drive_train(
                &estimates.values,
                chain.joint_ids().len(),
                transmission,
            ),
            chain,
        })
    }

    /// Writes `dir/<id>.<method>.urdf` and, with drive terms, `dir/<id>.<method>.drives.toml`
    /// (what `sim replay --urdf … --drives …` reads), each whole or not at all; returns the
    /// paths.
    pub fn write(&self, dir: &std::path::Path, id: &str) -> crate::Result<Vec<std::path::PathBuf>> {
        let path = dir.join(format!("{id}.{}.urdf", self.method));
        let urdf = sim::urdf::export::to_string(&self.chain)?;
        crate::files::write_atomic(&path, &urdf).map_err(crate::Error::io(&path))?;
        let mut written = vec![path];
        if let Some(drives) = &self.drives {
            let path = dir.join(format!("{id}.{}.drives.toml", self.method));
            let text = format!(
                "# Drive terms identified by {} (validation estimate); `sim replay --drives` reads\n\
                 # them (sim::replay::DriveTrain).\n{}",
                self.method,
                toml::to_string(drives).map_err(|e| crate::Error::Format {
                    path: path.clone(),
                    message: e.to_string(),
                })?
            );
            crate::files::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
            written.push(path);
        }
        Ok(written)
    }
}

/// A run as `estimate` reads it: simulated (with its truth) or recorded (without).
#[derive(Clone, Debug)]
pub struct Loaded {
    /// Run id.
    pub id: String,
    /// What the estimators see.
    pub measurements: sim::reading::Measurements,
    /// The simulated arm (its truth), for the scorer only; `None` for a recorded run.
    pub truth: Option<sim::model::Chain>,
    /// Joint names for the rows (a recorded run's URDF names, else `O1`, `O2`, …).
    pub joint_names: Vec<String>,
}

impl From<sim::reading::recorded::RecordedRun> for Loaded {
    fn from(r: sim::reading::recorded::RecordedRun) -> Self {
        Loaded {
            id: r.manifest.run_id.clone(),
            joint_names: r.joint_names(),
            measurements: r.measurements,
            truth: None,
        }
    }
}

impl From<sim::reading::Run> for Loaded {
    fn from(r: sim::reading::Run) -> Self {
        Loaded {
            id: r.manifest.run_id.clone(),
            joint_names: (r.measurements.joints.iter())
                .map(|j| format!("O{}", j.id))
                .collect(),
            measurements: r.measurements,
            truth: Some(r.manifest.model),
        }
    }
}

impl Loaded {
    /// Reads the run directory `dir`, recorded or simulated.
    pub fn read(dir: &std::path::Path) -> Result<Self, sim::dataset::DatasetError> {
        if sim::reading::recorded::is_recorded(dir)? {
            return Ok(sim::reading::recorded::read_recorded(dir)?.into());
        }
        Ok(sim::reading::read_run(dir)?.into())
    }

    /// The run cut at the fraction `1 − holdout` of its time span: `(first part, rest)`, for
    /// identification on the first and validation on the rest. `Err` unless `0 < holdout < 1`
    /// and both parts have at least five samples.
    pub fn split(&self, holdout: f64) -> crate::Result<(Loaded, Loaded)> {
        if !(holdout > 0.0 && holdout < 1.0) {
            return Err(crate::Error::invalid(
                "--holdout",
                format!("a fraction in (0, 1), got {holdout}"),
            ));
        }
        let t = &self.measurements.t;
        let cut_time = t[0] + (1.0 - holdout) * (t[t.len() - 1] - t[0]);
        let cut = t.partition_point(|s| *s < cut_time);
        if cut < 5 || t.len() - cut < 5 {
            return Err(crate::Error::invalid(
                format!("--holdout {holdout}"),
                format!(
                    "at least 5 samples in both parts; run `{}` has {} samples",
                    self.id,
                    t.len()
                ),
            ));
        }
        let part = |range: std::ops::Range<usize>, suffix: &str| Loaded {
            id: format!("{}.{suffix}", self.id),
            measurements: self.measurements.window(range.start, range.end),
            ..self.clone()
        };
        Ok((part(0..cut, "identify"), part(cut..t.len(), "validate")))
    }
}

/// Runs `estimators` on the experiment of `runs` (roles given), scored against the truth of
/// the excitation run's arm (else the first run's) where it has one; where a run has the
/// validation role, every estimator that gives a torque model (its own, else its whole
/// identified model's, [`IdentifiedModel`]) is also scored by prediction on it
/// ([`prediction_rows`]).
pub fn run_all(estimators: &[&dyn Estimator], runs: &[(Role, &Loaded)]) -> Outcome {
    let experiment = Experiment::new(
        runs.iter()
            .map(|(r, run)| (*r, &run.measurements))
            .collect(),
    );
    let truth_run = runs
        .iter()
        .find(|(r, _)| *r == Role::Excitation)
        .or(runs.first())
        .map(|(_, run)| *run)
        .expect("at least one run");
    let truth = (truth_run.truth.as_ref())
        .map(crate::param::truth_table)
        .unwrap_or_default();
    let validation = runs
        .iter()
        .find(|(r, _)| *r == Role::Validation)
        .map(|(_, l)| *l);
    score_with(estimators, &experiment, &truth, validation)
}

/// The torque NRMS of a torque model on a run: `sqrt(Σ(τ̂ − τ)² / Σ τ²)` pooled over every
/// joint and sample, then per joint; `τ` the run's torque as measured (never filtered), `τ̂`
/// the model's at the run's kinematics. Rows `torque_nrms` and `torque_nrms.<joint>`, and
/// `torque_nrms.moving`: pooled over the (sample, joint) pairs whose joint moves at least
/// [`crate::estimate::idim::MIN_SPEED`] (a joint at rest is held by static friction, which no
/// model here describes: the identifiers leave those equations out too).
pub fn prediction_rows(
    run_id: &str,
    method: &str,
    model: &dyn crate::estimate::idim::TorqueModel,
    on: &Loaded,
) -> Vec<Row> {
    let m = &on.measurements;
    let nj = m.joints.len();
    let (mut err, mut total) = (vec![0.0; nj], vec![0.0; nj]);
    let (mut moving_err, mut moving_total) = (0.0, 0.0);
    for k in 0..m.samples() {
        let [q, qd, qdd] = m.state(k);
        let predicted = model.torque(&q, &qd, &qdd);
        for (j, joint) in m.joints.iter().enumerate() {
            let (e, t) = ((predicted[j] - joint.tau[k]).powi(2), joint.tau[k].powi(2));
            err[j] += e;
            total[j] += t;
            if joint.qd[k].abs() >= crate::estimate::idim::MIN_SPEED {
                moving_err += e;
                moving_total += t;
            }
        }
    }
    let row = |parameter: String, e: f64, t: f64| Row {
        run: run_id.to_string(),
        method: method.to_string(),
        parameter,
        truth: None,
        estimate: (t > 0.0).then(|| (e / t).sqrt()),
        std: None,
    };
    let mut rows = vec![row(
        "torque_nrms".into(),
        err.iter().sum(),
        total.iter().sum(),
    )];
    rows.push(row("torque_nrms.moving".into(), moving_err, moving_total));
    for (j, name) in on.joint_names.iter().enumerate() {
        rows.push(row(format!("torque_nrms.{name}"), err[j], total[j]));
    }
    rows
}

/// Every applicable estimator on one experiment, scored against `truth`
/// ([`crate::param::truth_table`]); the others with their reasons, and those that fail with
/// their errors.
pub(crate) fn score_all(
    estimators: &[&dyn Estimator],
    experiment: &Experiment,
    truth: &BTreeMap<ParamId, f64>,
) -> Outcome {
    score_with(estimators, experiment, truth, None)
}

/// [`score_all`], and each torque model's prediction on `validation` where given
/// ([`prediction_rows`]).
pub(crate) fn score_with(
    estimators: &[&dyn Estimator],
    experiment: &Experiment,
    truth: &BTreeMap<ParamId, f64>,
    validation: Option<&Loaded>,
) -> Outcome {
    let id = experiment.id();
    let mut out = Outcome::default();
    for e in estimators {
        match run(*e, experiment) {
            Err(NoEstimate::NotApplicable(reason)) => out.skipped.push((e.name().into(), reason.0)),
            Err(NoEstimate::Failed(err)) => out.failed.push((e.name().into(), err.message)),
            Ok(est) => {
                out.rows
                    .extend(crate::estimate::score::rows(&id, e.name(), &est, truth));
                let model = IdentifiedModel::of(e.name(), &est, experiment);
                // The estimator's own torque model, else its whole model's.
                let predictor = (est.predictor.as_deref()).or(model
                    .as_ref()
                    .map(|m| m as &dyn crate::estimate::idim::TorqueModel));
                if let (Some(p), Some(v)) = (predictor, validation) {
                    out.rows.extend(prediction_rows(&id, e.name(), p, v));
                }
                for (k, p) in est.standard.iter().flatten().enumerate() {
                    if let Err(why) = sim::physical::check(p) {
                        out.inconsistent
                            .push((e.name().into(), k + 1, why.to_string()));
                    }
                }
                out.models.extend(model);
            }
        }
    }
    out
}

/// Adds to `skipped` (once each) the `(scenario, method, reason)` of the estimators of
/// `outcomes` that did not apply, and of those that failed, their error prefixed `failed at
/// {at}`: a study reports them with the level, not silently thinned out of its statistics.
pub(crate) fn note_reasons(
    skipped: &mut Vec<(String, String, String)>,
    scenario: &str,
    outcomes: &[Outcome],
    at: &str,
) {
    for o in outcomes {
        let failed = (o.failed.iter()).map(|(m, e)| (m.clone(), format!("failed at {at}: {e}")));
        for (method, reason) in o.skipped.iter().cloned().chain(failed) {
            let entry = (scenario.to_string(), method, reason);
            if !skipped.contains(&entry) {
                skipped.push(entry);
            }
        }
    }
}
