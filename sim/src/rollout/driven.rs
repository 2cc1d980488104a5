//! A model and a log made ready for rollouts: the log read from a run's measurements, and an
//! identified drive train applied to both.

use crate::drive_train::DriveTrain;
use crate::friction::Friction;
use crate::reading::Measurements;

use super::Model;
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
        q_cmd: m.joints.iter().map(|j| j.q_cmd.clone()).collect(),
    }
}

/// Applies `drives` (`drives.toml`, as `armid identify` writes it) to the model and the log:
/// each drive's reading offset is taken off its joint's logged torque; each drive that turns
/// its own joint only sets that joint's armature, damping and Coulomb friction, and each drive
/// that turns several (a coupled wrist) becomes one of the model's coupled drives
/// ([`crate::drive_train::CoupledDrive`]), its own joint's terms cleared: the file states every
/// drive's terms, replacing the model's. Coulomb levels are smoothed over
/// [`crate::urdf::URDF_FRICTION_SMOOTHING`], as a URDF's. Where the file states servos
/// (`[[servo]]`), they replace the model's.
pub fn with_drives(model: &mut Model, log: &mut Logged, drives: &DriveTrain) {
    let n = model.chain.links.len();
    for d in &drives.drive {
        if let Some(tau) = log.tau.get_mut(d.joint as usize - 1) {
            tau.iter_mut().for_each(|t| *t -= d.offset);
        }
    }
    let smoothing = crate::urdf::URDF_FRICTION_SMOOTHING;
    for (j, link) in model.chain.links.iter_mut().enumerate() {
        let Some(d) = drives.drive.iter().find(|d| d.joint as usize == j + 1) else {
            continue;
        };
        let own = !drives.coupled(j, n);
        link.joint.armature = if own { d.armature } else { 0.0 };
        link.joint.damping = if own { d.viscous } else { 0.0 };
        link.joint.friction = (own && d.coulomb != 0.0).then_some(Friction::CoulombViscous {
            coulomb: d.coulomb,
            viscous: 0.0,
            smoothing,
        });
    }
    model.coupled = drives.coupled_drives(n, smoothing);
    if !drives.servo.is_empty() {
        model.servos = drives.servos(n);
    }
}
