//! What a person sees of one run (`validation report RUN --html`): the arm's link frames and
//! shapes through the run, its joint trajectories, its torques as measured and as an identified
//! model predicts them, and every applicable estimator's estimates with their std beside the
//! truth. Computed here, rendered by [`crate::report::html`].

use serde::{Deserialize, Serialize};

use crate::estimate::engine::{self, Loaded, NoEstimate};
use std::collections::BTreeMap;

use crate::estimate::choice;
use crate::estimate::idim::TorqueModel;
use crate::estimate::score::Row;
use crate::estimate::{Estimator, EstimatorId, Experiment, Role};

/// Most animation frames (and trace points) a view keeps: a run is subsampled evenly.
pub const MAX_FRAMES: usize = 600;

/// Estimators whose torque model predicts the run where the rule of [`choice`] chooses none, in
/// order of preference (else the first that gives one).
const PREDICTORS: [EstimatorId; 2] = [EstimatorId::IdimOls, EstimatorId::IdimWls];

/// One joint's traces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointTrace {
    /// Its name (`O1`, or a recording's URDF name).
    pub name: String,
    /// `revolute` | `prismatic`.
    pub kind: String,
    /// Coordinate as measured (rad or m).
    pub q: Vec<f64>,
    /// Actuator torque as measured (N·m or N).
    pub tau: Vec<f64>,
    /// The identified model's torque at the measured state (N·m or N), where one predicts.
    pub predicted: Option<Vec<f64>>,
}

/// One link drawn: its shape through the run, world frame (m).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkTrace {
    /// Body number (1-based).
    pub body: u8,
    /// Radius drawn (m): the cylinder's, or 0 for a rod (drawn as a line).
    pub radius: f64,
    /// Per frame, the two ends of the link's axis: a cylinder's along its body axis `e1` through
    /// its centroid; a rod's from its joint point to the next body's (the last: mirrored
    /// through its centroid).
    pub ends: Vec<[[f64; 3]; 2]>,
    /// Per frame, its joint point `O_i`.
    pub joint: Vec<[f64; 3]>,
}

/// A run as the HTML report shows it (serialized into the page).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunView {
    /// Run id.
    pub run_id: String,
    /// Sample times of the frames (s).
    pub t: Vec<f64>,
    /// Per joint.
    pub joints: Vec<JointTrace>,
    /// The estimator whose model gives `predicted`.
    pub predictor: Option<String>,
    /// Why that estimator's model was drawn.
    #[serde(default)]
    pub predictor_choice: Option<String>,
    /// Per link (empty for a recording without link frames).
    pub links: Vec<LinkTrace>,
    /// Every estimate, scored where the run has a truth.
    pub estimates: Vec<Row>,
    /// `(method, reason)` of the estimators that did not apply or failed.
    pub skipped: Vec<(String, String)>,
}

/// The frames kept: every `step`-th sample, at most [`MAX_FRAMES`].
fn frames(samples: usize) -> Vec<usize> {
    let step = samples.div_ceil(MAX_FRAMES).max(1);
    (0..samples).step_by(step).collect()
}

/// The links of `run` through `frames`, from its link frames and its model's shapes.
fn links(run: &Loaded, frames: &[usize]) -> Vec<LinkTrace> {
    let m = &run.measurements;
    let bodies = &m.bodies;
    let point = |v: nalgebra::Vector3<f64>| [v.x, v.y, v.z];
    (0..bodies.len())
        .filter(|&b| !bodies[b].pos.is_empty())
        .map(|b| {
            // Shapes from the run's model where it has one (a drawing, not an estimate: the
            // estimators were given the kinematics only), else the kinematics' rods.
            let model = run.truth.as_ref().unwrap_or(&m.geometry);
            let shape = model.links.get(b).map(|l| l.body.shape.clone());
            let (length, radius) = shape.map_or((0.0, None), |s| (s.length(), s.radius()));
            let body = &bodies[b];
            let ends = frames.iter().map(|&k| {
                let (c, o) = (body.pos[k], body.joint_point[k]);
                match radius {
                    Some(_) => {
                        let axis = body.quat[k] * nalgebra::Vector3::x() * (length / 2.0);
                        [point(c - axis), point(c + axis)]
                    }
                    None => match bodies.get(b + 1).and_then(|n| n.joint_point.get(k)) {
                        Some(next) => [point(o), point(*next)],
                        None => [point(o), point(2.0 * c - o)],
                    },
                }
            });
            LinkTrace {
                body: b as u8 + 1,
                radius: radius.unwrap_or(0.0),
                ends: ends.collect(),
                joint: frames.iter().map(|&k| point(body.joint_point[k])).collect(),
            }
        })
        .collect()
}

/// The view of `run` with `estimators` (those that apply) run on it as its single run.
pub fn view(run: &Loaded, estimators: &[&dyn Estimator]) -> RunView {
    let m = &run.measurements;
    let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
    let truth = (run.truth.as_ref())
        .map(crate::param::truth_table)
        .unwrap_or_default();
    let (mut estimates, mut skipped, mut models) = (Vec::new(), Vec::new(), Vec::new());
    for e in estimators {
        match engine::run(*e, &experiment) {
            Err(NoEstimate::NotApplicable(why)) => skipped.push((e.name().to_owned(), why.0)),
            Err(NoEstimate::Failed(err)) => skipped.push((e.name().to_owned(), err.message)),
            Ok(est) => {
                estimates.extend(crate::estimate::score::rows(
                    &run.id,
                    e.name(),
                    &est,
                    &truth,
                ));
                models.extend(torque_model(e.name(), est, &experiment).map(|p| (e.name(), p)));
            }
        }
    }
    let (drawn, why) = match by_rule(run, estimators) {
        Some((c, how, model)) => (
            Some((c.method.clone(), model)),
            format!(
                "{how}: {:.2} % torque NRMS predicting the last {:.0} % of the run when \
                 identified on the rest; drawn is that model, identified on the first {:.0} %",
                100.0 * c.holdout_nrms,
                100.0 * HOLDOUT,
                100.0 * (1.0 - HOLDOUT)
            ),
        ),
        None => {
            let at = (PREDICTORS.iter())
                .find_map(|p| models.iter().position(|(n, _)| n == p))
                .or((!models.is_empty()).then_some(0));
            (
                at.map(|k| {
                    let (n, p) = models.swap_remove(k);
                    (n.to_string(), p)
                }),
                "no torque model predicts the run's last part, so the first of IDIM-OLS, \
                 IDIM-WLS, else the registry's order, identified on the whole run"
                    .into(),
            )
        }
    };
    RunView {
        estimates,
        skipped,
        predictor_choice: drawn.as_ref().map(|_| why),
        ..predicted(
            run,
            drawn
                .as_ref()
                .map(|(n, model)| (n.as_str(), model.as_ref())),
        )
    }
}

/// The torque model of `estimates` by `method`: its own, else its whole model's.
fn torque_model(
    method: &str,
    estimates: crate::estimate::Estimates,
    experiment: &Experiment,
) -> Option<Box<dyn TorqueModel>> {
    let whole = engine::IdentifiedModel::of(method, &estimates, experiment);
    (estimates.predictor).or_else(|| whole.map(|m| Box::new(m) as Box<dyn TorqueModel>))
}

/// The held-out share of a run by which [`view`] chooses the model it draws.
pub const HOLDOUT: f64 = 0.3;

/// The model [`crate::estimate::choice`]'s rule chooses for `run` (each estimator identified
/// on its first `1 −` [`HOLDOUT`] and scored by predicting the rest), how (as `armid identify`
/// chooses, else, where no estimator gives a consistent whole model, the best prediction of any
/// torque model), and that model as identified on the first part.
fn by_rule(
    run: &Loaded,
    estimators: &[&dyn Estimator],
) -> Option<(choice::Choice, String, Box<dyn TorqueModel>)> {
    let (identify, validate) = run.split(HOLDOUT).ok()?;
    let m = &identify.measurements;
    let experiment = Experiment::new(vec![(Role::Single, m), (Role::Excitation, m)]);
    let outcome = engine::score_with(estimators, &experiment, &BTreeMap::new(), Some(&validate));
    let candidates = choice::candidates(&outcome);
    let (c, how) = match choice::choose(&candidates) {
        Some(c) => (
            c,
            format!("chosen as `armid identify` chooses ({})", choice::RULE),
        ),
        None => (
            choice::choose_any_predictor(&candidates)?,
            "no estimator gave a physically consistent whole model, so the lowest holdout \
             torque NRMS of any torque model (ties to fewer parameters)"
                .into(),
        ),
    };
    let estimator = estimators.iter().find(|e| e.name() == c.method)?;
    let estimates = engine::run(*estimator, &experiment).ok()?;
    let model = torque_model(&c.method, estimates, &experiment)?;
    Some((c, how, model))
}

/// The view of `run` moving, without estimates: its frames, joints and links.
pub fn motion(run: &Loaded) -> RunView {
    predicted(run, None)
}

/// The view of `run` with `chosen`'s torque (name, model) beside the measured, no estimates.
fn predicted(run: &Loaded, chosen: Option<(&str, &dyn TorqueModel)>) -> RunView {
    let m = &run.measurements;
    let keep = frames(m.samples());
    let predicted: Option<Vec<Vec<f64>>> = chosen.map(|(_, model)| {
        keep.iter()
            .map(|&k| {
                let [q, qd, qdd] = m.state(k);
                model.torque(&q, &qd, &qdd)
            })
            .collect()
    });
    let joints = (m.joints.iter().enumerate())
        .map(|(j, s)| JointTrace {
            name: run.joint_names[j].clone(),
            kind: s.kind.clone(),
            q: keep.iter().map(|&k| s.q[k]).collect(),
            tau: keep.iter().map(|&k| s.tau[k]).collect(),
            predicted: predicted
                .as_ref()
                .map(|p| p.iter().map(|row| row[j]).collect()),
        })
        .collect();
    RunView {
        run_id: run.id.clone(),
        t: keep.iter().map(|&k| m.t[k]).collect(),
        joints,
        predictor: chosen.map(|(n, _)| n.to_string()),
        predictor_choice: None,
        links: links(run, &keep),
        estimates: Vec::new(),
        skipped: Vec::new(),
    }
}
