//! Recursive Newton–Euler inverse dynamics over a [`Chain`], in continuous time.
//!
//! This is the project's independent reference for the joint forces: plain nalgebra, no Rapier.
//! It uses the product-of-exponentials form of the zero-configuration description (see
//! [`crate::model`]): joint `i` moves everything outboard of it about (along) its current world
//! axis `a_i = R(G_{i−1}) a_i⁰` through its current point `O_i = G_{i−1} O_i⁰`.
//! For a chain on a rail, joint 0 translates a massless carriage along the rail.
//!
//! Conventions are those of the crate root: world-frame wrenches of the parent on the child,
//! moments about `O_i`; `tau_i` is the joint's generalized force, so that
//! `rnea(q, q̇, q̈).tau = tau + tau_friction` of a recording.

use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};

use crate::model::{Chain, JointKind};
use crate::wrench::{BodyLoad, JointWrench, backward_pass, backward_pass_into};

/// Kinematics of one body, world frame.
#[derive(Clone, Debug)]
pub struct BodyMotion {
    /// Body → world rotation.
    pub rotation: Rotation3<f64>,
    /// Centroid (m).
    pub centroid: Vector3<f64>,
    /// Inner joint point `O_i` (m).
    pub joint_point: Vector3<f64>,
    /// Inner joint axis, world (unit).
    pub joint_axis: Vector3<f64>,
    /// Centroid velocity (m/s) and acceleration (m/s²).
    pub vel: Vector3<f64>,
    /// Centroid acceleration (m/s²).
    pub acc: Vector3<f64>,
    /// Angular velocity (rad/s).
    pub omega: Vector3<f64>,
    /// Angular acceleration (rad/s²).
    pub omega_dot: Vector3<f64>,
}

/// Result of an inverse-dynamics evaluation.
#[derive(Clone, Debug, Default)]
pub struct InverseDynamics {
    /// Per body `1..n`.
    pub bodies: Vec<BodyMotion>,
    /// Inner-joint wrench per body `1..n`.
    pub wrenches: Vec<JointWrench>,
    /// Generalized joint forces in dataset joint order (`chain.joint_ids()`).
    pub tau: Vec<f64>,
}

/// Forward kinematics (positions, velocities, accelerations of every body) at one instant.
/// `q`, `qd`, `qdd` are in dataset joint order (`chain.joint_ids()`: the rail first where there is
/// one). Panics if their lengths differ from the number of joints.
pub fn kinematics(chain: &Chain, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<BodyMotion> {
    let mut bodies = Vec::with_capacity(chain.len());
    kinematics_into(chain, q, qd, qdd, &mut bodies);
    bodies
}

/// [`kinematics`] into `bodies` (cleared first): the same numbers, without allocating once
/// `bodies` has room for every link.
pub(crate) fn kinematics_into(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    bodies: &mut Vec<BodyMotion>,
) {
    let nj = chain.joint_ids().len();
    assert!(
        q.len() == nj && qd.len() == nj && qdd.len() == nj,
        "expected {nj} joint values"
    );
    let offset = nj - chain.len();

    // Base: a carriage translating along the rail, or the fixed world.
    let (mut g, mut vel, mut acc) = (Isometry3::identity(), Vector3::zeros(), Vector3::zeros());
    if let Some(axis) = chain.rail_axis() {
        g = Isometry3::from_parts(
            Translation3::from(axis.into_inner() * q[0]),
            UnitQuaternion::identity(),
        );
        vel = axis.into_inner() * qd[0];
        acc = axis.into_inner() * qdd[0];
    }
    let mut centroid = g.translation.vector;
    let (mut omega, mut omega_dot) = (Vector3::zeros(), Vector3::zeros());

    bodies.clear();
    for (k, link) in chain.links.iter().enumerate() {
        let j = k + offset;
        let axis0 = link.joint.axis();
        let anchor0 = link.joint.anchor();
        let axis = g.rotation * axis0.into_inner();
        // Motion of the joint point as a point of the parent.
        let p_parent = (g * anchor0).coords;
        let r = p_parent - centroid;
        let mut v_p = vel + omega.cross(&r);
        let mut a_p = acc + omega_dot.cross(&r) + omega.cross(&omega.cross(&r));
        match link.joint.kind {
            JointKind::Revolute => {
                let rot = UnitQuaternion::from_axis_angle(&axis0, q[j]);
                let about = Translation3::from(anchor0.coords);
                g = g * about * rot * about.inverse();
                omega_dot += axis * qdd[j] + omega.cross(&(axis * qd[j]));
                omega += axis * qd[j];
            }
            JointKind::Prismatic => {
                // The child's joint point is the parent's point displaced by `a q`: the parent's
                // motion there, plus the slide and its Coriolis term.
                let d = axis * q[j];
                v_p += omega.cross(&d) + axis * qd[j];
                a_p += omega_dot.cross(&d)
                    + omega.cross(&omega.cross(&d))
                    + axis * qdd[j]
                    + 2.0 * omega.cross(&(axis * qd[j]));
                g *= Translation3::from(axis0.into_inner() * q[j]);
            }
        }
        let joint_point = (g * anchor0).coords;
        let c = (g * Point3::from(link.body.centroid)).coords;
        let rc = c - joint_point;
        vel = v_p + omega.cross(&rc);
        acc = a_p + omega_dot.cross(&rc) + omega.cross(&omega.cross(&rc));
        centroid = c;
        bodies.push(BodyMotion {
            rotation: g.rotation.to_rotation_matrix() * link.body.rotation(),
            centroid,
            joint_point,
            joint_axis: axis,
            vel,
            acc,
            omega,
            omega_dot,
        });
    }
}

/// Forward kinematics and inverse dynamics at one instant (see [`kinematics`] for the joint
/// order).
pub fn rnea(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    gravity: &Vector3<f64>,
) -> InverseDynamics {
    let mut out = InverseDynamics::default();
    rnea_into(chain, q, qd, qdd, gravity, &mut out);
    out
}

/// [`rnea`] into `out` (its vectors cleared first): the same numbers, without allocating once
/// `out` has held a result for this chain.
pub(crate) fn rnea_into(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    gravity: &Vector3<f64>,
    out: &mut InverseDynamics,
) {
    kinematics_into(chain, q, qd, qdd, &mut out.bodies);
    // Backward pass: wrenches of the parent on each body.
    let bodies = &out.bodies;
    let load = |k: usize| {
        let (link, b) = (&chain.links[k], &bodies[k]);
        let r = b.rotation.matrix();
        let inertia: Matrix3<f64> = r * link.body.inertia_body() * r.transpose();
        BodyLoad {
            net_force: link.body.mass * (b.acc - gravity),
            net_moment: inertia * b.omega_dot + b.omega.cross(&(inertia * b.omega)),
            centroid: b.centroid,
            joint_point: b.joint_point,
        }
    };
    backward_pass_into(bodies.len(), load, &mut out.wrenches);
    generalized_forces(chain, &out.bodies, &out.wrenches, &mut out.tau);
}

/// Projects joint wrenches on the joint axes: generalized forces in dataset joint order.
fn generalized_forces(
    chain: &Chain,
    bodies: &[BodyMotion],
    wrenches: &[JointWrench],
    tau: &mut Vec<f64>,
) {
    tau.clear();
    if let Some(axis) = chain.rail_axis() {
        tau.push(wrenches[0].force.dot(&axis));
    }
    for (k, link) in chain.links.iter().enumerate() {
        let w = &wrenches[k];
        tau.push(match link.joint.kind {
            JointKind::Revolute => w.moment.dot(&bodies[k].joint_axis),
            JointKind::Prismatic => w.force.dot(&bodies[k].joint_axis),
        });
    }
}

/// The ten standard inertial parameters of one link, in its *link frame*: the body frame's axes
/// with the origin at the joint point `O_i`:
/// `[m, m·cx, m·cy, m·cz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`, mass (kg), first moment (kg·m, `c` the
/// centroid seen from `O_i`) and the inertia tensor about `O_i` (kg·m²). The joint forces are
/// linear in them ([`rnea_standard`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StandardParameters(pub [f64; 10]);

impl StandardParameters {
    /// The parameters of link `k` of a chain.
    pub fn of_link(chain: &Chain, k: usize) -> Self {
        let link = &chain.links[k];
        let b = &link.body;
        let r = b.rotation();
        let c = r.inverse() * (b.centroid() - link.joint.anchor());
        Self::from_central(b.mass, &c, &b.inertia_body())
    }
}

/// The resultant force (N) and moment about the joint point `O_i` (N·m), world frame, that a
/// body of standard parameters `p` needs for the motion `b` under `gravity`: the Newton–Euler
/// equations about `O_i`, linear in `p`,
/// `f = m (a_O − g) + ω̇ × h + ω × (ω × h)`, `n_O = I_O ω̇ + ω × I_O ω + h × (a_O − g)` with
/// `h = R m c` and `I_O = R I Rᵀ` in the world frame (`R` the link frame's rotation).
pub fn net_wrench(
    b: &BodyMotion,
    p: &StandardParameters,
    gravity: &Vector3<f64>,
) -> (Vector3<f64>, Vector3<f64>) {
    let r = b.rotation.matrix();
    let arm = b.joint_point - b.centroid;
    let a_o = b.acc + b.omega_dot.cross(&arm) + b.omega.cross(&b.omega.cross(&arm));
    let h = r * p.first_moment();
    let inertia = r * p.inertia() * r.transpose();
    let a = a_o - gravity;
    (
        p.0[0] * a + b.omega_dot.cross(&h) + b.omega.cross(&b.omega.cross(&h)),
        inertia * b.omega_dot + b.omega.cross(&(inertia * b.omega)) + h.cross(&a),
    )
}

/// Inverse dynamics with the dynamic parameters given as standard parameters per link (the
/// chain supplies only the kinematics): generalized forces in dataset joint order. Linear in
/// the parameters, so it also builds the standard regressor column by column; with
/// [`StandardParameters::of_link`] it equals [`rnea`].
pub fn rnea_standard(
    chain: &Chain,
    parameters: &[StandardParameters],
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    gravity: &Vector3<f64>,
) -> Vec<f64> {
    let bodies = kinematics(chain, q, qd, qdd);
    let loads: Vec<BodyLoad> = bodies
        .iter()
        .zip(parameters)
        .map(|(b, p)| {
            let (net_force, net_moment) = net_wrench(b, p, gravity);
            BodyLoad {
                net_force,
                net_moment,
                centroid: b.joint_point,
                joint_point: b.joint_point,
            }
        })
        .collect();
    let mut tau = Vec::with_capacity(q.len());
    generalized_forces(chain, &bodies, &backward_pass(&loads), &mut tau);
    tau
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reference;

    #[test]
    fn static_pendulum_holds_gravity_torque() {
        // link2 at q1 = 90°: rotating −z about +y by +90° gives −x, so both links lie along −x.
        // Gravity's moment about +y of a mass at −x is −m g x; the joint must supply +m g x.
        let chain = reference::link2();
        let half = std::f64::consts::FRAC_PI_2;
        let id = rnea(
            &chain,
            &[half, 0.0],
            &[0.0, 0.0],
            &[0.0, 0.0],
            &crate::gravity_vector(),
        );
        let g = crate::GRAVITY;
        let expected_2 = 1.5 * g * 0.4;
        let expected_1 = 5.0 * g * 0.5 + 1.5 * g * 1.4;
        assert!((id.tau[1] - expected_2).abs() < 1e-9, "{}", id.tau[1]);
        assert!((id.tau[0] - expected_1).abs() < 1e-9, "{}", id.tau[0]);
    }

    #[test]
    fn rail_force_accelerates_the_whole_arm() {
        let chain = reference::arm6();
        let mut qdd = vec![0.0; 7];
        qdd[0] = 2.0;
        let id = rnea(&chain, &[0.0; 7], &[0.0; 7], &qdd, &crate::gravity_vector());
        let total: f64 = chain.links.iter().map(|l| l.body.mass).sum();
        assert!((id.tau[0] - 2.0 * total).abs() < 1e-9);
    }

    #[test]
    fn joint_power_equals_rate_of_kinetic_energy() {
        // Without gravity, Σ τ q̇ = dT/dt; checked by differentiating T numerically.
        let chain = reference::arm6();
        let q = [0.1, 0.3, -0.4, 0.7, 0.2, -0.5, 0.9];
        let qd = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 0.1];
        let qdd = [0.2, 0.4, -0.1, 0.3, 0.5, -0.2, 0.6];
        let zero = Vector3::zeros();
        let energy = |t: f64| {
            let qt: Vec<f64> = (0..7)
                .map(|i| q[i] + qd[i] * t + 0.5 * qdd[i] * t * t)
                .collect();
            let qdt: Vec<f64> = (0..7).map(|i| qd[i] + qdd[i] * t).collect();
            let id = rnea(&chain, &qt, &qdt, &[0.0; 7], &zero);
            chain
                .links
                .iter()
                .zip(&id.bodies)
                .map(|(l, b)| {
                    let w = b.rotation.inverse() * b.omega;
                    0.5 * l.body.mass * b.vel.norm_squared()
                        + 0.5 * w.dot(&(l.body.inertia_body() * w))
                })
                .sum::<f64>()
        };
        let h = 1e-5;
        let de = (energy(h) - energy(-h)) / (2.0 * h);
        let id = rnea(&chain, &q, &qd, &qdd, &zero);
        let power: f64 = id.tau.iter().zip(&qd).map(|(t, v)| t * v).sum();
        assert!(
            (power - de).abs() < 1e-6 * de.abs().max(1.0),
            "{power} vs {de}"
        );
    }

    #[test]
    fn standard_parameter_form_equals_the_centroidal_form() {
        for chain in [reference::arm6(), reference::link2(), reference::cyl2()] {
            let nj = chain.joint_ids().len();
            let params: Vec<StandardParameters> = (0..chain.len())
                .map(|k| StandardParameters::of_link(&chain, k))
                .collect();
            let q: Vec<f64> = (0..nj).map(|i| 0.3 * i as f64 - 0.4).collect();
            let qd: Vec<f64> = (0..nj).map(|i| 0.5 - 0.2 * i as f64).collect();
            let qdd: Vec<f64> = (0..nj).map(|i| 0.1 * i as f64 + 0.2).collect();
            let g = crate::gravity_vector();
            let a = rnea(&chain, &q, &qd, &qdd, &g).tau;
            let b = rnea_standard(&chain, &params, &q, &qd, &qdd, &g);
            let scale = a.iter().fold(1.0f64, |m, t| m.max(t.abs()));
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-12 * scale, "{}: {x} vs {y}", chain.name);
            }
        }
    }
}
