//! Joint wrenches recovered from Rapier's own velocity changes: the cross-check of the recorded
//! readings ([`crate::readout`]), reported in every manifest (`checks.rapier`).
//!
//! Over one step every body of Rapier's discrete world obeys
//!
//! ```text
//! m (v_{n+1} − v_n)           ≈ dt (m g + F_ext) + Σ joint force impulses
//! I_w(R_n) (ω_{n+1} − ω_n)    ≈ dt (−ω_n × I_w ω_n + T_ext) + Σ joint angular impulses
//! ```
//!
//! Summing from the last body inwards gives each joint's wrench averaged over the step: the
//! force and moment (about the joint point `O_i`) that the parent exerts on body `i`. These agree
//! with the continuous-time readings at the step's start to first order in the step (Rapier's
//! semi-implicit integration; tested). `F_ext`, `T_ext` are applied loads that do *not* pass
//! through a joint (none in the current scenarios); applied joint torques and damping *are*
//! joint loads and so are part of the recovered wrench.

use nalgebra::{Matrix3, Vector3};

/// One body over one step, world frame.
#[derive(Clone, Debug)]
pub struct BodyStep {
    /// Mass (kg).
    pub mass: f64,
    /// Central inertia in the world frame at the step's start pose, `R_n I Rₙᵀ` (kg·m²).
    pub inertia_world: Matrix3<f64>,
    /// Centroid at the step's start (m).
    pub centroid: Vector3<f64>,
    /// The inner joint point `O_i` (as attached to this body) at the step's start (m).
    pub joint_point: Vector3<f64>,
    /// Centroid velocity at the start and at the end of the step (m/s).
    pub v: [Vector3<f64>; 2],
    /// Angular velocity at the start and at the end of the step (rad/s).
    pub omega: [Vector3<f64>; 2],
    /// Applied force that does not pass through a joint (N).
    pub external_force: Vector3<f64>,
    /// Applied torque that does not pass through a joint (N·m).
    pub external_torque: Vector3<f64>,
}

/// Force and moment that the parent exerts on a body through its inner joint, world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointWrench {
    /// Force (N).
    pub force: Vector3<f64>,
    /// Moment about the joint point `O_i` (N·m).
    pub moment: Vector3<f64>,
}

impl BodyStep {
    /// Centroid acceleration over the step, `(v_{n+1} − v_n)/dt`.
    pub fn acceleration(&self, dt: f64) -> Vector3<f64> {
        (self.v[1] - self.v[0]) / dt
    }

    /// World angular acceleration over the step, `(ω_{n+1} − ω_n)/dt`.
    pub(crate) fn angular_acceleration(&self, dt: f64) -> Vector3<f64> {
        (self.omega[1] - self.omega[0]) / dt
    }
}

/// The net load on one body and where its joints act, world frame: the input of
/// [`backward_pass`].
#[derive(Clone, Debug)]
pub struct BodyLoad {
    /// Net force that the body's joints exert on it (N): `m (a − g)` less non-joint loads.
    pub net_force: Vector3<f64>,
    /// Net moment of the body's joints about its centroid (N·m): `I ω̇ + ω × I ω` less
    /// non-joint torques.
    pub net_moment: Vector3<f64>,
    /// Centroid (m).
    pub centroid: Vector3<f64>,
    /// Inner joint point `O_i` (m).
    pub joint_point: Vector3<f64>,
}

/// Sums net loads from the last body inwards into the wrench that each parent exerts on its
/// child (body 0 is the innermost): `f_i = F_i + f_{i+1}`,
/// `n_i = M_i + n_{i+1} + (O_{i+1} − r_i) × f_{i+1} − (O_i − r_i) × f_i`.
pub fn backward_pass(loads: &[BodyLoad]) -> Vec<JointWrench> {
    let mut out = Vec::with_capacity(loads.len());
    backward_pass_into(loads.len(), |k| loads[k].clone(), &mut out);
    out
}

/// [`backward_pass`] over the `n` loads that `load(k)` gives (asked for from the last body
/// inwards, once each), into `out` (replaced): the same numbers, without a vector of loads and
/// without allocating once `out` has room for `n` wrenches.
pub(crate) fn backward_pass_into(
    n: usize,
    mut load: impl FnMut(usize) -> BodyLoad,
    out: &mut Vec<JointWrench>,
) {
    out.clear();
    out.resize(n, JointWrench::default());
    let mut child = JointWrench::default();
    let mut child_point = Vector3::zeros();
    for k in (0..n).rev() {
        let b = load(k);
        let force = b.net_force + child.force;
        let about_centroid =
            b.net_moment + child.moment + (child_point - b.centroid).cross(&child.force);
        let moment = about_centroid - (b.joint_point - b.centroid).cross(&force);
        out[k] = JointWrench { force, moment };
        child = out[k];
        child_point = b.joint_point;
    }
}

/// Recovers the inner-joint wrench of every body of a serial chain (body 0 is the innermost)
/// from one step of motion. `gravity` is the world gravity vector (m/s²).
pub fn recover(bodies: &[BodyStep], dt: f64, gravity: &Vector3<f64>) -> Vec<JointWrench> {
    let mut out = Vec::with_capacity(bodies.len());
    recover_into(bodies, dt, gravity, &mut out);
    out
}

/// [`recover`] into `out` (replaced): the same numbers, without allocating once `out` has room
/// for every body.
pub(crate) fn recover_into(
    bodies: &[BodyStep],
    dt: f64,
    gravity: &Vector3<f64>,
    out: &mut Vec<JointWrench>,
) {
    let load = |k: usize| {
        let b = &bodies[k];
        let w = b.omega[0];
        BodyLoad {
            net_force: b.mass * (b.acceleration(dt) - gravity) - b.external_force,
            net_moment: b.inertia_world * b.angular_acceleration(dt)
                + w.cross(&(b.inertia_world * w))
                - b.external_torque,
            centroid: b.centroid,
            joint_point: b.joint_point,
        }
    };
    backward_pass_into(bodies.len(), load, out);
}
