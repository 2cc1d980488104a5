//! How far an identified model drifts when simulated as the robot was driven: its rollouts
//! ([`sim::rollout`]) on the held-out stretch of the log it was identified from, the figure the
//! choice rule weighs beside the torque NRMS ([`crate::estimate::choice`]).
//!
//! The model is the whole one its files state: its bodies, and its drive train's terms
//! ([`sim::rollout::with_drives`]: each reading's offset taken off the logged torque, each
//! drive's armature, viscous and Coulomb terms on its joint, or on the joints it turns).

use serde::{Deserialize, Serialize};

use crate::estimate::engine::{IdentifiedModel, Loaded};

/// A model's rollouts on a held-out stretch, summed up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    /// Rollout length (s; [`sim::rollout::Windows::for_rollout`]).
    pub horizon: f64,
    /// Windows rolled out.
    pub windows: usize,
    /// Windows that blew up ([`sim::rollout::BLOWN_UP`]).
    pub blown_up: usize,
    /// The mean over joints and over the windows that did not blow up of the joint error at
    /// the horizon (rad or m; `None` where every window blew up).
    pub mean_horizon: Option<f64>,
    /// Per joint, that mean (rad or m; empty where every window blew up).
    pub per_joint: Vec<f64>,
}

/// `model` rolled out on every window of `held_out` ([`sim::rollout::Windows::for_rollout`]);
/// `None` when the stretch is shorter than one window.
pub fn drift(model: &IdentifiedModel, held_out: &Loaded) -> crate::Result<Option<Drift>> {
    let mut rolled = sim::rollout::Model::from(model.chain.clone());
    let mut log = sim::rollout::logged(&held_out.measurements);
    if let Some(d) = &model.drives {
        sim::rollout::with_drives(&mut rolled, &mut log, d);
    }
    let windows = sim::rollout::Windows::for_rollout(&rolled, &log);
    let fidelity = sim::rollout::fidelity(&rolled, &log, windows, log.t[0])?;
    if fidelity.per_window.is_empty() {
        return Ok(None);
    }
    let some = fidelity.blown_up < fidelity.per_window.len();
    Ok(Some(Drift {
        horizon: windows.horizon,
        windows: fidelity.per_window.len(),
        blown_up: fidelity.blown_up,
        mean_horizon: some.then_some(fidelity.mean_horizon),
        per_joint: if some { fidelity.horizon } else { Vec::new() },
    }))
}

/// Rows `rollout_drift` (the mean drift at the horizon, rad or m), `rollout_drift.<joint>` and
/// `rollout_blown_up` (windows) of each of `models` rolled out on `held_out`; `run_id` names the
/// experiment. Nothing where the stretch is shorter than one window.
pub fn rows<'a>(
    run_id: &str,
    models: impl IntoIterator<Item = &'a IdentifiedModel>,
    held_out: &Loaded,
) -> crate::Result<Vec<crate::estimate::score::Row>> {
    let mut rows = Vec::new();
    for model in models {
        let Some(d) = drift(model, held_out)? else {
            continue;
        };
        let row = |parameter: String, estimate: Option<f64>| crate::estimate::score::Row {
            run: run_id.to_string(),
            method: model.method.clone(),
            parameter,
            truth: None,
            estimate,
            std: None,
        };
        rows.push(row("rollout_drift".into(), d.mean_horizon));
        for (name, e) in held_out.joint_names.iter().zip(&d.per_joint) {
            rows.push(row(format!("rollout_drift.{name}"), Some(*e)));
        }
        rows.push(row("rollout_blown_up".into(), Some(d.blown_up as f64)));
    }
    Ok(rows)
}
