//! A model and a log made ready for rollouts: the log read from a run's measurements, and an
//! identified drive train applied to both.

use crate::drive_train::DriveTrain;
use crate::friction::Friction;
use crate::model::Chain;
use crate::reading::Measurements;

use super::window::Logged;

/// The log of `m`: its joints' `q, q̇, τ` as read (measured where measured).
pub fn logged(m: &Measurements) -> Logged {
    let series = |f: fn(&crate::reading::JointSeries) -> &Vec<f64>| {
        m.joints.iter().map(|j| f(j).clone()).collect()
    };
    Logged {
        t: m.t.clone(),
        q: series(|j| &j.q),
        qd: series(|j| &j.qd),
        tau: series(|j| &j.tau),
    }
}

/// Applies `drives` (`drives.toml`, as `armid identify` writes it) to the model and the log:
/// each drive's reading offset is taken off its joint's logged torque, and each drive that turns
/// its own joint only sets that joint's armature, damping and Coulomb friction (smoothed over
/// [`crate::urdf::URDF_FRICTION_SMOOTHING`], as a URDF's), replacing the model's. Returns the
/// joints (dataset ids) whose drives turn several joints (a coupled wrist) and were left out:
/// the simulation's per-joint terms cannot state them.
pub fn with_drives(chain: &mut Chain, log: &mut Logged, drives: &DriveTrain) -> Vec<u8> {
    let n = chain.links.len();
    for d in &drives.drive {
        if let Some(tau) = log.tau.get_mut(d.joint as usize - 1) {
            tau.iter_mut().for_each(|t| *t -= d.offset);
        }
    }
    let mut left_out = Vec::new();
    for (j, link) in chain.links.iter_mut().enumerate() {
        let Some(d) = drives.drive.iter().find(|d| d.joint as usize == j + 1) else {
            continue;
        };
        if drives.coupled(j, n) {
            left_out.push(d.joint);
            continue;
        }
        link.joint.armature = d.armature;
        link.joint.damping = d.viscous;
        link.joint.friction = (d.coulomb != 0.0).then_some(Friction::CoulombViscous {
            coulomb: d.coulomb,
            viscous: 0.0,
            smoothing: crate::urdf::URDF_FRICTION_SMOOTHING,
        });
    }
    left_out
}
