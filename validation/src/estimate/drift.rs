//! How far an identified model drifts when simulated as the robot was driven: its rollouts
//! ([`sim::rollout`]) on the held-out stretch of the log it was identified from, the figure the
//! choice rule weighs beside the torque NRMS ([`crate::estimate::choice`]).
//!
//! The model is the whole one its files state: its bodies, and its drive train's terms
//! ([`sim::rollout::with_drives`]: each reading's offset taken off the logged torque, each
//! uncoupled drive's armature, viscous and Coulomb terms on its joint). A drive that turns
//! several joints (a coupled wrist) cannot be stated by the simulation's per-joint terms: its
//! joints are named in [`Drift::unsimulated`], and such a figure is not the model's.

use serde::{Deserialize, Serialize};

use crate::estimate::engine::{IdentifiedModel, Loaded};

/// A model's rollouts on a held-out stretch, summed up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    /// Rollout length (s; [`sim::rollout::Windows::TORQUE`]).
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
    /// Joints (dataset ids) whose coupled drive's terms were not simulated (module docs).
    pub unsimulated: Vec<u8>,
}

impl Drift {
    /// Whether the rollouts simulated the whole model (no coupled drive left out).
    pub fn whole(&self) -> bool {
        self.unsimulated.is_empty()
    }
}

/// `model` rolled out on every window of `held_out` ([`sim::rollout::Windows::TORQUE`]);
/// `None` when the stretch is shorter than one window.
pub fn drift(model: &IdentifiedModel, held_out: &Loaded) -> crate::Result<Option<Drift>> {
    let mut chain = model.chain.clone();
    let mut log = sim::rollout::logged(&held_out.measurements);
    let unsimulated = match &model.drives {
        Some(d) => sim::rollout::with_drives(&mut chain, &mut log, d),
        None => Vec::new(),
    };
    let windows = sim::rollout::Windows::TORQUE;
    let fidelity = sim::rollout::fidelity(&chain, &log, windows, log.t[0])?;
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
        unsimulated,
    }))
}

/// Each candidate with a consistent whole model ([`crate::estimate::choice::Candidate`]) given
/// its model's drift on `held_out`.
pub fn measure(
    candidates: &mut [crate::estimate::choice::Candidate],
    outcome: &crate::estimate::engine::Outcome,
    held_out: &Loaded,
) -> crate::Result<()> {
    for c in candidates.iter_mut().filter(|c| c.consistent_model) {
        let model = (outcome.models.iter())
            .find(|m| m.method == c.method)
            .expect("a consistent candidate has a model");
        c.drift = drift(model, held_out)?;
    }
    Ok(())
}
