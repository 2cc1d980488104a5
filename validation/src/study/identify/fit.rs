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
    /// How the model's body moved far from the file's ([`moved_far`]), one phrase each; empty
    /// where it did not.
    #[serde(default)]
    pub moved_far: Vec<String>,
}

/// The factor past which a mass or principal moment has moved far from the file's: an order of
/// magnitude, up or down.
pub const FAR: f64 = 10.0;

/// The distance past which a centroid has moved far from the file's (m).
pub const FAR_CENTROID: f64 = 0.1;

/// How body `model` moved far from `prior` (same link): a mass or principal moment (smallest
/// with smallest) more than [`FAR`] times larger or smaller (a zero one of the file's not
/// compared), a centroid more than [`FAR_CENTROID`] away.
pub fn moved_far(prior: &sim::model::Body, model: &sim::model::Body) -> Vec<String> {
    let mut far = Vec::new();
    let mut ratio = |what: String, p: f64, m: f64| {
        if p > 0.0 && !(m / p <= FAR && m / p >= 1.0 / FAR) {
            far.push(format!("{what} ×{:.2e}", m / p));
        }
    };
    ratio("mass".into(), prior.mass, model.mass);
    // Principal moments compared smallest with smallest: the two bodies' axes may differ.
    let sorted = |mut v: [f64; 3]| {
        v.sort_by(f64::total_cmp);
        v
    };
    let (p, m) = (sorted(prior.inertia), sorted(model.inertia));
    for (k, what) in ["smallest", "middle", "largest"].iter().enumerate() {
        ratio(format!("{what} moment"), p[k], m[k]);
    }
    let shift: f64 = (0..3)
        .map(|k| (model.centroid[k] - prior.centroid[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    if shift > FAR_CENTROID {
        far.push(format!("centroid {shift:.3} m away"));
    }
    far
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
            moved_far: moved_far(&p.body, &m.body),
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

#[cfg(test)]
mod tests {
    use super::*;
    use sim::model::{Body, Shape};

    fn body(mass: f64, inertia: [f64; 3], centroid: [f64; 3]) -> Body {
        Body {
            mass,
            inertia,
            centroid,
            frame: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            shape: Shape::Rod { length: 0.5 },
        }
    }

    #[test]
    fn a_body_that_moved_an_order_of_magnitude_is_named_and_one_that_did_not_is_not() {
        let prior = body(2.0, [0.01, 0.02, 0.03], [0.0, 0.0, 0.2]);
        // Within a factor 10 everywhere, 5 cm away; moments in another axis order.
        let near = body(3.0, [0.05, 0.004, 0.02], [0.0, 0.05, 0.2]);
        assert!(
            moved_far(&prior, &near).is_empty(),
            "{:?}",
            moved_far(&prior, &near)
        );
        // A rod: its smallest moment a millionth of the file's; and a centroid 0.3 m away.
        let rod = body(2.5, [1e-8, 0.02, 0.03], [0.3, 0.0, 0.2]);
        let far = moved_far(&prior, &rod);
        assert_eq!(far.len(), 2, "{far:?}");
        assert!(far[0].starts_with("smallest moment") && far[1].starts_with("centroid"));
        // A point mass in the file (zero moments) is not compared by ratio.
        let point = body(2.0, [0.0; 3], [0.0, 0.0, 0.2]);
        assert!(moved_far(&point, &near).is_empty());
        assert_eq!(
            moved_far(&prior, &body(25.0, [0.01, 0.02, 0.03], [0.0, 0.0, 0.2])).len(),
            1
        );
    }
}
