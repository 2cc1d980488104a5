//! What a run records at every output sample (see the crate root for frames and the
//! discrete-time meaning of each quantity).

use nalgebra::{UnitQuaternion, Vector3};

use crate::model::JointKind;

/// One body at one sample.
#[derive(Clone, Debug)]
pub struct BodyRecord {
    /// Centroid position, world (m).
    pub pos: Vector3<f64>,
    /// Body → world rotation.
    pub quat: UnitQuaternion<f64>,
    /// Cardan angles `(α, β, γ)` (rad), unwrapped over time.
    pub euler: Vector3<f64>,
    /// Their first time derivatives (rad/s); NaN at gimbal lock.
    pub euler_d: Vector3<f64>,
    /// Their second time derivatives (rad/s²); NaN at gimbal lock.
    pub euler_dd: Vector3<f64>,
    /// Centroid velocity, world (m/s).
    pub vel: Vector3<f64>,
    /// Centroid acceleration, world (m/s²).
    pub acc: Vector3<f64>,
    /// Angular velocity, body frame (rad/s).
    pub omega: Vector3<f64>,
    /// Angular acceleration, body frame (rad/s²).
    pub omega_dot: Vector3<f64>,
    /// Force of the parent on this body through `O_i`, world (N).
    pub force: Vector3<f64>,
    /// Moment of the parent on this body through `O_i`, about `O_i`, world (N·m).
    pub moment: Vector3<f64>,
    /// Position of the joint point `O_i`, world (m).
    pub joint_point: Vector3<f64>,
}

/// One joint at one sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct JointRecord {
    /// Coordinate (rad or m).
    pub q: f64,
    /// Velocity.
    pub qd: f64,
    /// Acceleration.
    pub qdd: f64,
    /// Actuator generalized force on the child along the axis (N·m or N).
    pub tau: f64,
    /// Friction/damping generalized force (N·m or N).
    pub tau_friction: f64,
    /// Motor current `i = tau / K` with the joint's drive gain `K` (A).
    pub current: f64,
    /// Rapier's motor impulse over the step divided by the step (N·m or N), NaN where the joint
    /// has no motor: an independent read-out of the motor's action, for checks.
    pub tau_motor: f64,
}

/// Everything a run records.
#[derive(Clone, Debug)]
pub struct Recording {
    /// Run identifier (the scenario name).
    pub run_id: String,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Number of bodies `n`.
    pub n_bodies: usize,
    /// Dataset joint ids (0 = rail, `i` = `O_i`).
    pub joint_ids: Vec<u8>,
    /// Kind of each joint.
    pub joint_kinds: Vec<JointKind>,
    /// Body records, sample-major: index `sample · n_bodies + (body − 1)`.
    pub bodies: Vec<BodyRecord>,
    /// Joint records, sample-major: index `sample · joint_ids.len() + k`.
    pub joints: Vec<JointRecord>,
    /// Noisy copies of joint columns: `(name, values)` with `name` like `q_meas` and values in
    /// the order of [`Recording::joints`].
    pub measured: Vec<(String, Vec<f64>)>,
}

impl Recording {
    /// Number of samples.
    pub fn samples(&self) -> usize {
        self.t.len()
    }

    /// Body `b` (1-based) at sample `s`.
    pub fn body(&self, s: usize, b: usize) -> &BodyRecord {
        &self.bodies[s * self.n_bodies + b - 1]
    }

    /// The series of a joint column (`q`, `qd`, `qdd`, `tau`, `i`) of the joint at position `k`.
    pub fn joint_series(&self, column: &str, k: usize) -> Vec<f64> {
        (0..self.samples())
            .map(|s| {
                let j = self.joint(s, k);
                match column {
                    "q" => j.q,
                    "qd" => j.qd,
                    "qdd" => j.qdd,
                    "tau" => j.tau,
                    "i" => j.current,
                    other => panic!("no joint column {other}"),
                }
            })
            .collect()
    }

    /// Joint at position `k` of `joint_ids`, at sample `s`.
    pub fn joint(&self, s: usize, k: usize) -> &JointRecord {
        &self.joints[s * self.joint_ids.len() + k]
    }
}
