//! The recorded columns as continuous-time functions of the recorded state.
//!
//! Rapier integrates the motion (see [`crate::simulation`]). At every output sample the
//! recording reads only the *state* Rapier reached — the joint coordinates `q` and rates `q̇` of
//! the simulated bodies — and evaluates every other column from the continuous-time equations of
//! motion at that state, as MuJoCo's sensors do:
//!
//! * `q̈`: a prescribed joint (a profile, the rail) takes its profile's acceleration at `t`; the
//!   others (torque signal, servo, free) follow from the forward dynamics at `(q, q̇)` under the
//!   generalized forces applied over the step that starts at `t` (actuator plus friction):
//!   `M_UU q̈_U = Q_U − b_U`, `b = RNEA(q, q̇, q̈_P, 0_U)`, a Cholesky solve of the
//!   unknown joints' block of the joint-space inertia matrix (hybrid dynamics);
//! * body poses, centroid velocities and accelerations, `ω`, `ω̇`, Cardan angles and rates and
//!   the joint wrenches: forward kinematics and the Newton–Euler backward pass
//!   ([`crate::dynamics::rnea`]) at `(q, q̇, q̈)`;
//! * `tau`: the applied actuator force of torque-driven and servo joints, the inverse dynamics
//!   minus friction for prescribed ones.
//!
//! So `RNEA(q, q̇, q̈) = tau + tau_friction` and every body's Newton–Euler equations hold to
//! rounding at every sample, whatever the integrator step. How far Rapier's own discrete world
//! is from these readings (constraint drift of the body poses, the first-order discrete
//! accelerations and wrenches) is measured in every run and written to the manifest
//! ([`crate::dataset::manifest::RapierConsistency`]).

use nalgebra::{DMatrix, DVector, Vector3};

use crate::dynamics::{InverseDynamics, rnea_into};
use crate::model::Chain;

/// What is known of one joint at a sample, in dataset joint order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Known {
    /// The joint follows a prescribed motion with this acceleration (rad/s² or m/s²).
    Acceleration(f64),
    /// The joint's generalized force is this total (actuator plus friction, N·m or N); its
    /// acceleration follows from the dynamics.
    Force(f64),
}

/// The hybrid dynamics could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum ReadoutError {
    /// The inertia of the joints whose acceleration is unknown is singular or not positive
    /// definite (e.g. a free joint carrying no mass).
    #[error(
        "the joint-space inertia of joints {joints:?} (dataset order) is not positive definite"
    )]
    SingularInertia {
        /// Dataset positions of the unknown-acceleration joints.
        joints: Vec<usize>,
    },
}

/// The continuous-time readings at one state.
#[derive(Clone, Debug)]
pub struct Readout {
    /// Joint accelerations, dataset order.
    pub qdd: Vec<f64>,
    /// Kinematics, joint wrenches and the total generalized force `tau + tau_friction` of every
    /// joint (`dynamics.tau`) at `(q, q̇, q̈)`.
    pub dynamics: InverseDynamics,
}

/// How each recorded column group is obtained, for the manifest's `columns`.
pub(crate) fn provenance() -> std::collections::BTreeMap<String, String> {
    [
        (
            "q, qd",
            "Rapier's state at t: joint coordinates and rates of the simulated bodies \
             (revolute angles unwrapped)",
        ),
        (
            "qdd",
            "prescribed joints: the profile's acceleration at t; torque-driven, servo and free \
             joints: forward dynamics at (q, qd) under the generalized forces applied over the \
             step from t (sim::readout)",
        ),
        (
            "tau",
            "torque-driven and servo joints: the actuator force applied over the step from t; \
             prescribed joints: RNEA(q, qd, qdd) - tau_friction; free joints: 0; with a rotor \
             (sim::rotor) less its reflected inertia's share J_m G^2 qdd, what reaches the link",
        ),
        (
            "tau_friction",
            "the joint's damping, friction model and passive terms (sim::term) at (q, qd) \
             and, for LuGre, its bristle state bristle_z",
        ),
        (
            "bristle_z",
            "LuGre friction's bristle deflection at t (only where a joint has it; 0 on the \
             others): advanced exactly over each step at the step's mean rate (sim::friction)",
        ),
        (
            "i",
            "the motor's torque over K (the joint's drive gain): tau / K, or (tau + J_m G^2 qdd) \
             / K with a rotor",
        ),
        (
            "pos, quat, euler, vel, omega",
            "forward kinematics of (q, qd) (Rapier's body poses drift off them by \
             checks.rapier.max_centroid_drift)",
        ),
        (
            "acc, omega_dot, euler_d, euler_dd",
            "forward kinematics of (q, qd, qdd), continuous time",
        ),
        (
            "f, n",
            "Newton-Euler backward pass at (q, qd, qdd), continuous time (sim::dynamics::rnea)",
        ),
        (
            "*_meas",
            "the clean column with the stated noise and sensor models (sim::measurement)",
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Evaluates the readings at the state `(q, q̇)` with what is `known` of each joint and the
/// rotors' reflected inertias `armature` (kg·m², `sim::rotor`; all in dataset joint order)
/// under the gravity `gravity` (world, m/s²): the force-driven joints' accelerations solve
/// `(M_UU + diag(armature_U)) q̈_U = force_U − bias_U`, and the links' dynamics (`dynamics`)
/// are the RNEA at them, without the rotors.
pub fn evaluate(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    known: &[Known],
    armature: &[f64],
    gravity: &Vector3<f64>,
) -> Result<Readout, ReadoutError> {
    let mut workspace = Workspace::default();
    evaluate_into(chain, q, qd, known, armature, gravity, &mut workspace)?;
    Ok(workspace.readout)
}

/// The buffers of [`evaluate_into`], kept between samples so that evaluating allocates nothing
/// once they have held one sample of the chain.
#[derive(Debug)]
pub struct Workspace {
    /// The readings of the last evaluation.
    pub readout: Readout,
    /// Dataset positions of the force-driven joints.
    unknown: Vec<usize>,
    /// RNEA scratch (bias forces, inertia columns).
    scratch: InverseDynamics,
    /// Joint-sized scratch vectors: zeros and a unit acceleration.
    zero: Vec<f64>,
    unit: Vec<f64>,
    /// `M_UU`, then its Cholesky factor.
    inertia: DMatrix<f64>,
    /// The right-hand side, then the solution.
    rhs: DVector<f64>,
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace {
            readout: Readout {
                qdd: Vec::new(),
                dynamics: InverseDynamics::default(),
            },
            unknown: Vec::new(),
            scratch: InverseDynamics::default(),
            zero: Vec::new(),
            unit: Vec::new(),
            inertia: DMatrix::zeros(0, 0),
            rhs: DVector::zeros(0),
        }
    }
}

/// [`evaluate`] into `workspace.readout`: the same numbers, without allocating once the
/// workspace has held one sample of this chain.
pub fn evaluate_into(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    known: &[Known],
    armature: &[f64],
    gravity: &Vector3<f64>,
    ws: &mut Workspace,
) -> Result<(), ReadoutError> {
    ws.unknown.clear();
    ws.unknown
        .extend((0..known.len()).filter(|&j| matches!(known[j], Known::Force(_))));
    let qdd = &mut ws.readout.qdd;
    qdd.clear();
    qdd.extend(known.iter().map(|k| match *k {
        Known::Acceleration(a) => a,
        Known::Force(_) => 0.0,
    }));
    if !ws.unknown.is_empty() {
        rnea_into(chain, q, qd, qdd, gravity, &mut ws.scratch);
        let n = ws.unknown.len();
        if ws.rhs.nrows() != n {
            ws.rhs = DVector::zeros(n);
        }
        for (u, &j) in ws.unknown.iter().enumerate() {
            ws.rhs[u] = match known[j] {
                Known::Force(f) => f - ws.scratch.tau[j],
                Known::Acceleration(_) => unreachable!("unknown joints are force-driven"),
            };
        }
        inertia_block(chain, q, ws);
        for (u, &j) in ws.unknown.iter().enumerate() {
            ws.inertia[(u, u)] += armature[j];
        }
        let inertia = std::mem::replace(&mut ws.inertia, DMatrix::zeros(0, 0));
        let Some(factor) = inertia.cholesky() else {
            return Err(ReadoutError::SingularInertia {
                joints: ws.unknown.clone(),
            });
        };
        factor.solve_mut(&mut ws.rhs);
        ws.inertia = factor.unpack_dirty();
        for (u, &j) in ws.unknown.iter().enumerate() {
            ws.readout.qdd[j] = ws.rhs[u];
        }
    }
    let r = &mut ws.readout;
    rnea_into(chain, q, qd, &r.qdd, gravity, &mut r.dynamics);
    Ok(())
}

/// The block `M_UU` of the joint-space inertia matrix at `q` for the joints `ws.unknown`, into
/// `ws.inertia`: column `u` is `RNEA(q, 0, e_u)` without gravity.
fn inertia_block(chain: &Chain, q: &[f64], ws: &mut Workspace) {
    let (nj, n) = (q.len(), ws.unknown.len());
    ws.zero.clear();
    ws.zero.resize(nj, 0.0);
    if ws.inertia.shape() != (n, n) {
        ws.inertia = DMatrix::zeros(n, n);
    }
    for (c, &j) in ws.unknown.iter().enumerate() {
        ws.unit.clone_from(&ws.zero);
        ws.unit[j] = 1.0;
        rnea_into(
            chain,
            q,
            &ws.zero,
            &ws.unit,
            &Vector3::zeros(),
            &mut ws.scratch,
        );
        for (r, &i) in ws.unknown.iter().enumerate() {
            ws.inertia[(r, c)] = ws.scratch.tau[i];
        }
    }
    // Symmetric by construction up to rounding: use the mean of both triangles.
    for c in 0..n {
        for r in 0..=c {
            let mean = (ws.inertia[(r, c)] + ws.inertia[(c, r)]) * 0.5;
            ws.inertia[(r, c)] = mean;
            ws.inertia[(c, r)] = mean;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reference;

    /// Forward then inverse dynamics round-trips: the forces given to the force-driven joints
    /// come back from the RNEA at the solved accelerations.
    #[test]
    fn hybrid_dynamics_round_trips_through_inverse_dynamics() {
        let chain = reference::arm6();
        let nj = chain.joint_ids().len();
        let q: Vec<f64> = (0..nj).map(|j| 0.3 * j as f64 - 0.7).collect();
        let qd: Vec<f64> = (0..nj).map(|j| 0.2 - 0.1 * j as f64).collect();
        let known: Vec<Known> = (0..nj)
            .map(|j| {
                if j % 2 == 0 {
                    Known::Acceleration(0.4 * j as f64 - 1.0)
                } else {
                    Known::Force(10.0 * j as f64 - 25.0)
                }
            })
            .collect();
        let g = crate::gravity_vector();
        let r = evaluate(&chain, &q, &qd, &known, &vec![0.0; nj], &g).expect("solvable");
        for (j, k) in known.iter().enumerate() {
            match *k {
                Known::Acceleration(a) => assert_eq!(r.qdd[j], a),
                Known::Force(f) => {
                    let rel = (r.dynamics.tau[j] - f).abs() / f.abs();
                    assert!(rel < 1e-12, "joint {j}: {} vs {f}", r.dynamics.tau[j]);
                }
            }
        }
    }
}
