//! Physical-consistency checks of a run directory, from its files alone.
//!
//! * [`newton_euler`]: every body's recorded motion and joint wrenches satisfy
//!   `m (r̈ − g) = f_i − f_{i+1}` and `J ω̇ + ω × J ω = Aᵀ [n_i − n_{i+1} + (O_i − r) × f_i −
//!   (O_{i+1} − r) × f_{i+1}]` (body frame) at every sample.
//! * [`inverse_dynamics`]: the recorded joint forces against the continuous-time recursive
//!   Newton–Euler inverse dynamics ([`sim::dynamics::rnea`], the implementation that evaluates
//!   the readings: a self-check; the tests check the data against Pinocchio's, see
//!   `validation/tests/suite/pinocchio.rs`) on the recorded `q, q̇, q̈` over the manifest's model.
//! * [`free_axis_moment`]: the recorded moment about an unactuated joint's free axis.

use nalgebra::Vector3;

use sim::checks::JointSample;

use sim::reading::Run;

/// Largest relative residual of the per-body Newton–Euler equations: `(force, moment)`, each
/// normalized by the largest magnitude of the terms in that equation over the run.
pub fn newton_euler(run: &Run) -> (f64, f64) {
    let m = &run.clean;
    let model = &run.manifest.model;
    let g = model.gravity_vector();
    let (mut ef, mut em, mut sf, mut sm) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (b, link) in model.links.iter().enumerate() {
        let body = &m.bodies[b];
        let inertia = link.body.inertia_body();
        for k in 0..m.samples() {
            let (fc, nc, oc) = match m.bodies.get(b + 1) {
                Some(ch) => (ch.force[k], ch.moment[k], ch.joint_point[k]),
                None => (Vector3::zeros(), Vector3::zeros(), Vector3::zeros()),
            };
            let (f, n, o, c) = (
                body.force[k],
                body.moment[k],
                body.joint_point[k],
                body.pos[k],
            );
            let inertial = link.body.mass * (body.acc[k] - g);
            ef = ef.max((inertial - (f - fc)).norm());
            sf = sf.max(inertial.norm()).max(f.norm());
            let r = body.quat[k].to_rotation_matrix();
            let (w, wd) = (body.omega[k], body.omega_dot[k]);
            let lhs = inertia * wd + w.cross(&(inertia * w));
            let rhs = r.inverse() * (n - nc + (o - c).cross(&f) - (oc - c).cross(&fc));
            em = em.max((lhs - rhs).norm());
            sm = sm
                .max(lhs.norm())
                .max(n.norm())
                .max(((o - c).cross(&f)).norm());
        }
    }
    (
        ef / sf.max(f64::MIN_POSITIVE),
        em / sm.max(f64::MIN_POSITIVE),
    )
}

/// Per joint, the relative residual of the recorded `tau + tau_friction` against RNEA on the
/// recorded `q, q̇, q̈` (normalized as [`sim::dataset::manifest::Checks::rnea_rel_residual`]).
pub fn inverse_dynamics(run: &Run) -> Vec<f64> {
    let m = &run.clean;
    let each = |f: &dyn Fn(&sim::reading::JointSeries) -> f64| {
        m.joints.iter().map(f).collect::<Vec<f64>>()
    };
    sim::checks::rnea_residual(
        &run.manifest.model,
        (0..m.samples()).map(|k| JointSample {
            q: each(&|j| j.q[k]),
            qd: each(&|j| j.qd[k]),
            qdd: each(&|j| j.qdd[k]),
            applied: each(&|j| j.tau[k] + j.tau_friction[k]),
        }),
    )
}

/// For joint `id` (revolute): `max_t |n_i · a_i − (tau + tau_friction)|`, the moment the joint
/// transmits about its free axis beyond the applied generalized force (N·m). `a_i` is the joint's
/// current world axis, from the manifest's model and the parent's orientation.
pub fn free_axis_moment(run: &Run, id: u8) -> f64 {
    let m = &run.clean;
    let model = &run.manifest.model;
    let k = id as usize - 1;
    let joint = m.joints.iter().find(|j| j.id == id).expect("joint id");
    let axis0 = model.links[k].joint.axis().into_inner();
    let mut worst = 0.0f64;
    for s in 0..m.samples() {
        let axis = if k == 0 {
            axis0
        } else {
            let parent = &model.links[k - 1].body;
            let r = m.bodies[k - 1].quat[s].to_rotation_matrix() * parent.rotation().inverse();
            r * axis0
        };
        let moment = m.bodies[k].moment[s].dot(&axis);
        worst = worst.max((moment - joint.tau[s] - joint.tau_friction[s]).abs());
    }
    worst
}
