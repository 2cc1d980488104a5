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
    /// The friction's bristle deflection `z` (rad or m; [`crate::friction::Lugre`]; 0 for
    /// stateless friction).
    pub bristle_z: f64,
    /// An elastic joint's motor angle in joint units `θ` (rad or m; [`crate::elastic`]; 0 for
    /// rigid joints).
    pub q_motor: f64,
    /// Its rate `θ̇`.
    pub qd_motor: f64,
    /// The position commanded at the sample's time (rad or m): a servo's reference as given
    /// (before any command delay of the servo), a prescribed joint's profile; NaN on torque-driven
    /// and free joints, which no position is commanded to.
    pub q_cmd: f64,
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
    /// Noisy copies of body columns: `(name, values)` with `name` like `f_x_meas` and values in
    /// the order of [`Recording::bodies`] ([`crate::measurement`]).
    pub measured_bodies: Vec<(String, Vec<f64>)>,
    /// Whether some joint's friction has a state: `joints.parquet` then has the column
    /// `bristle_z` ([`JointRecord::bristle_z`]).
    pub friction_state: bool,
    /// Whether some joint is elastic: `joints.parquet` then has the columns `q_motor` and
    /// `qd_motor` ([`JointRecord::q_motor`]).
    pub elastic: bool,
    /// Whether some joint is a servo: `joints.parquet` then has the column `q_cmd`
    /// ([`JointRecord::q_cmd`]).
    pub commanded: bool,
}

/// A 3-vector quantity of `bodies.parquet`, named by its group (`f` for `f_x, f_y, f_z`). Its
/// A joint column of `joints.parquet` that sensors measure (its copy `<name>_meas`): the
/// coordinate, its rates, the actuator force and the motor current. Units: rad, rad/s, rad/s²,
/// N·m, A for revolute joints (m, m/s, m/s², N for the rail).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JointColumn {
    /// Coordinate `q`.
    Q,
    /// Velocity `qd`.
    Qd,
    /// Acceleration `qdd`.
    Qdd,
    /// Actuator generalized force `tau`.
    Tau,
    /// Motor current `i = tau / K`.
    Current,
}

impl JointColumn {
    /// Every measurable joint column.
    pub const ALL: [JointColumn; 5] = [
        JointColumn::Q,
        JointColumn::Qd,
        JointColumn::Qdd,
        JointColumn::Tau,
        JointColumn::Current,
    ];

    /// Its column name in `joints.parquet` and in `[[noise]] column`.
    pub fn name(self) -> &'static str {
        match self {
            JointColumn::Q => "q",
            JointColumn::Qd => "qd",
            JointColumn::Qdd => "qdd",
            JointColumn::Tau => "tau",
            JointColumn::Current => "i",
        }
    }

    /// The column named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<JointColumn> {
        JointColumn::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for JointColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// frame is the column's frame of the dataset contract (see the crate root).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum BodyGroup {
    /// Centroid position, world (m).
    Pos,
    /// Cardan angles (rad).
    Euler,
    /// Cardan angle rates (rad/s).
    EulerD,
    /// Cardan angle second derivatives (rad/s²).
    EulerDd,
    /// Centroid velocity, world (m/s).
    Vel,
    /// Centroid acceleration, world (m/s²).
    Acc,
    /// Angular velocity, body frame (rad/s).
    Omega,
    /// Angular acceleration, body frame (rad/s²).
    OmegaDot,
    /// Joint force of the parent on the body at `O_i`, world (N).
    F,
    /// Joint moment of the parent on the body about `O_i`, world (N·m).
    N,
    /// Specific force `r̈_p − g` at an IMU's mounting point `p`, body frame (m/s²): only as a
    /// measured column (`imu_sf_1_meas`, …), written by [`crate::sensor::Sensor::Imu`].
    ImuSf,
}

impl BodyGroup {
    /// Every group that `[[noise]]` may name (all but the IMU's own channel).
    pub const NOISY: [BodyGroup; 10] = [
        BodyGroup::Pos,
        BodyGroup::Euler,
        BodyGroup::EulerD,
        BodyGroup::EulerDd,
        BodyGroup::Vel,
        BodyGroup::Acc,
        BodyGroup::Omega,
        BodyGroup::OmegaDot,
        BodyGroup::F,
        BodyGroup::N,
    ];

    /// The group's name, as `[[noise]] column` names it.
    pub fn name(self) -> &'static str {
        match self {
            BodyGroup::Pos => "pos",
            BodyGroup::Euler => "euler",
            BodyGroup::EulerD => "euler_d",
            BodyGroup::EulerDd => "euler_dd",
            BodyGroup::Vel => "vel",
            BodyGroup::Acc => "acc",
            BodyGroup::Omega => "omega",
            BodyGroup::OmegaDot => "omega_dot",
            BodyGroup::F => "f",
            BodyGroup::N => "n",
            BodyGroup::ImuSf => "imu_sf",
        }
    }

    /// The group named `name`, if any (the IMU channel included).
    pub fn from_name(name: &str) -> Option<BodyGroup> {
        BodyGroup::NOISY
            .into_iter()
            .chain([BodyGroup::ImuSf])
            .find(|g| g.name() == name)
    }

    /// Its three clean column names of `bodies.parquet` (the measured copies add `_meas`).
    pub fn columns(self) -> [&'static str; 3] {
        match self {
            BodyGroup::Pos => ["pos_x", "pos_y", "pos_z"],
            BodyGroup::Euler => ["euler_a", "euler_b", "euler_g"],
            BodyGroup::EulerD => ["euler_a_d", "euler_b_d", "euler_g_d"],
            BodyGroup::EulerDd => ["euler_a_dd", "euler_b_dd", "euler_g_dd"],
            BodyGroup::Vel => ["vel_x", "vel_y", "vel_z"],
            BodyGroup::Acc => ["acc_x", "acc_y", "acc_z"],
            BodyGroup::Omega => ["omega_1", "omega_2", "omega_3"],
            BodyGroup::OmegaDot => ["omega_dot_1", "omega_dot_2", "omega_dot_3"],
            BodyGroup::F => ["f_x", "f_y", "f_z"],
            BodyGroup::N => ["n_x", "n_y", "n_z"],
            BodyGroup::ImuSf => ["imu_sf_1", "imu_sf_2", "imu_sf_3"],
        }
    }

    /// The clean value of the group in a body record (`ImuSf` has no clean column: NaN).
    pub fn of(self, b: &BodyRecord) -> Vector3<f64> {
        match self {
            BodyGroup::Pos => b.pos,
            BodyGroup::Euler => b.euler,
            BodyGroup::EulerD => b.euler_d,
            BodyGroup::EulerDd => b.euler_dd,
            BodyGroup::Vel => b.vel,
            BodyGroup::Acc => b.acc,
            BodyGroup::Omega => b.omega,
            BodyGroup::OmegaDot => b.omega_dot,
            BodyGroup::F => b.force,
            BodyGroup::N => b.moment,
            BodyGroup::ImuSf => Vector3::repeat(f64::NAN),
        }
    }
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

    /// The series of a body group of body `b` (1-based).
    pub fn body_series(&self, group: BodyGroup, b: usize) -> Vec<Vector3<f64>> {
        (0..self.samples())
            .map(|s| group.of(self.body(s, b)))
            .collect()
    }

    /// The series of a joint column (`q`, `qd`, `qdd`, `tau`, `i`) of the joint at position `k`.
    pub fn joint_series(&self, column: JointColumn, k: usize) -> Vec<f64> {
        (0..self.samples())
            .map(|s| {
                let j = self.joint(s, k);
                match column {
                    JointColumn::Q => j.q,
                    JointColumn::Qd => j.qd,
                    JointColumn::Qdd => j.qdd,
                    JointColumn::Tau => j.tau,
                    JointColumn::Current => j.current,
                }
            })
            .collect()
    }

    /// Joint at position `k` of `joint_ids`, at sample `s`.
    pub fn joint(&self, s: usize, k: usize) -> &JointRecord {
        &self.joints[s * self.joint_ids.len() + k]
    }
}
