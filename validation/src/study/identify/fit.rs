//! How well the chosen model fits, per joint and per link, and its parameters beside the data's
//! uncertainty: the report's tables.

use serde::{Deserialize, Serialize};

use crate::estimate::EstimatorId;
use crate::estimate::engine::{Loaded, Outcome};
use crate::estimate::score::Row;
use crate::study::recorded::{RecordedStudy, ReplayCheck};

/// The estimator whose σ (the least-squares covariance under white equation errors) the
/// parameters table shows beside the chosen estimator's own.
pub const REFERENCE: EstimatorId = EstimatorId::IdimOls;

/// One joint's fit over the held-out stretch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JointFit {
    /// The file's joint name.
    pub name: String,
    /// RMS of the torque as measured (N·m or N).
    pub rms: f64,
    /// The chosen model's torque NRMS (`torque_nrms.<joint>`).
    pub nrms: Option<f64>,
    /// The share of the measured torque's RMS above the kinematics' low-pass cut-off, which no
    /// model fed the filtered kinematics can predict ([`crate::signal::spectrum::share_above`]);
    /// `None` without a low-pass.
    pub above_bandwidth: Option<f64>,
    /// The share of the stretch's samples at which the joint moves slower than
    /// [`crate::estimate::idim::MIN_SPEED`] (held by static friction, which no model describes).
    pub at_rest: f64,
    /// Rapier's replay of the chosen model: NRMS on this joint.
    pub replay_nrms: Option<f64>,
}

/// One link of the chosen model beside the file's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinkFit {
    /// The link's name.
    pub name: String,
    /// Mass (kg): the file's, the model's.
    pub mass: [f64; 2],
    /// Centroid in the world frame at the zero configuration (m): the file's, the model's.
    pub centroid: [[f64; 3]; 2],
    /// Principal moments about the centroid (kg·m²): the file's, the model's.
    pub moments: [[f64; 3]; 2],
}

/// One parameter of the chosen estimator.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ParameterFit {
    /// Its name ([`crate::param::ParamId`]'s display).
    pub parameter: String,
    /// The chosen estimator's value.
    pub estimate: f64,
    /// Its σ where the estimator states one.
    pub std: Option<f64>,
    /// IDIM-OLS's value and σ of the same parameter, where it has them.
    pub reference: Option<(f64, Option<f64>)>,
}

/// Per joint: the fit of `chosen` (rows of `outcome`) over `validate` and Rapier's `replay`.
pub(super) fn joints(
    validate: &Loaded,
    signal: &sim::dataset::recorded::Chain,
    outcome: &Outcome,
    chosen: &str,
    replay: &ReplayCheck,
) -> Vec<JointFit> {
    let m = &validate.measurements;
    let rate = 1.0 / signal.period;
    (m.joints.iter().zip(&validate.joint_names))
        .enumerate()
        .map(|(j, (joint, name))| {
            let n = joint.tau.len().max(1) as f64;
            let rest = (joint.qd.iter())
                .filter(|v| v.abs() < crate::estimate::idim::MIN_SPEED)
                .count();
            JointFit {
                name: name.clone(),
                rms: (joint.tau.iter().map(|t| t * t).sum::<f64>() / n).sqrt(),
                nrms: RecordedStudy::value(&outcome.rows, chosen, &format!("torque_nrms.{name}")),
                above_bandwidth: (signal.filter)
                    .map(|(_, f)| crate::signal::spectrum::share_above(&joint.tau, rate, f)),
                at_rest: rest as f64 / n,
                replay_nrms: replay.residual.torque_nrms_joints.get(j).map(|(_, v)| *v),
            }
        })
        .collect()
}

/// The links of `prior` and `model` side by side.
pub(super) fn links(prior: &sim::model::Chain, model: &sim::model::Chain) -> Vec<LinkFit> {
    (prior.links.iter().zip(&model.links))
        .map(|(p, m)| LinkFit {
            name: m.name.clone(),
            mass: [p.body.mass, m.body.mass],
            centroid: [p.body.centroid, m.body.centroid],
            moments: [p.body.inertia, m.body.inertia],
        })
        .collect()
}

/// The parameters `chosen` estimated (its prediction rows left out), with [`REFERENCE`]'s.
pub(super) fn parameters(rows: &[Row], chosen: &str) -> Vec<ParameterFit> {
    let reference = |p: &str| {
        (rows.iter())
            .find(|r| r.method == REFERENCE && r.parameter == p)
            .and_then(|r| Some((r.estimate?, r.std)))
    };
    (rows.iter())
        .filter(|r| r.method == chosen && !r.parameter.starts_with("torque_nrms"))
        .filter_map(|r| {
            Some(ParameterFit {
                parameter: r.parameter.clone(),
                estimate: r.estimate?,
                std: r.std,
                reference: reference(&r.parameter),
            })
        })
        .collect()
}
