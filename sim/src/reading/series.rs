//! What a run directory holds once read: the measured series of its bodies and joints
//! ([`Measurements`]), what the run states about its sensors ([`Stated`]), its ground truth
//! ([`Truth`]), and the whole run ([`Run`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::dataset::Manifest;
use crate::recording::BodyGroup;
use crate::recording::JointColumn;
use nalgebra::{UnitQuaternion, Vector3};

/// Measured time series of one body (sample-indexed). Frames as in the dataset contract.
#[derive(Clone, Debug, Default)]
pub struct BodySeries {
    /// Centroid position, world (m).
    pub pos: Vec<Vector3<f64>>,
    /// Body → world rotation.
    pub quat: Vec<UnitQuaternion<f64>>,
    /// Cardan angles (α, β, γ) (rad).
    pub euler: Vec<Vector3<f64>>,
    /// Their first derivatives (rad/s).
    pub euler_d: Vec<Vector3<f64>>,
    /// Their second derivatives (rad/s²).
    pub euler_dd: Vec<Vector3<f64>>,
    /// Centroid velocity, world (m/s).
    pub vel: Vec<Vector3<f64>>,
    /// Centroid acceleration, world (m/s²).
    pub acc: Vec<Vector3<f64>>,
    /// Angular velocity, body frame (rad/s).
    pub omega: Vec<Vector3<f64>>,
    /// Angular acceleration, body frame (rad/s²).
    pub omega_dot: Vec<Vector3<f64>>,
    /// Force of the parent on the body through `O_i`, world (N).
    pub force: Vec<Vector3<f64>>,
    /// Moment of the parent on the body about `O_i`, world (N·m).
    pub moment: Vec<Vector3<f64>>,
    /// Position of `O_i`, world (m).
    pub joint_point: Vec<Vector3<f64>>,
    /// Measured copies of the groups that have them (`f` for `f_x_meas, f_y_meas, f_z_meas`),
    /// including the IMU's specific force [`BodyGroup::ImuSf`].
    pub measured: BTreeMap<BodyGroup, Vec<Vector3<f64>>>,
}

/// Measured time series of one joint.
#[derive(Clone, Debug, Default)]
pub struct JointSeries {
    /// Dataset joint id (0 = rail, `i` = `O_i`).
    pub id: u8,
    /// `revolute` | `prismatic`.
    pub kind: String,
    /// Coordinate.
    pub q: Vec<f64>,
    /// Velocity.
    pub qd: Vec<f64>,
    /// Acceleration.
    pub qdd: Vec<f64>,
    /// Actuator generalized force.
    pub tau: Vec<f64>,
    /// Friction/damping generalized force.
    pub tau_friction: Vec<f64>,
    /// Motor current `i = tau / K` (A).
    pub current: Vec<f64>,
    /// Drive gain `K` (N·m/A or N/A), from the manifest: a catalogue value of the drive.
    pub gain: f64,
    /// The commanded reference of a prescribed or servo joint (the experiment's design), from
    /// the manifest's scenario.
    pub reference: Option<crate::profile::Profile>,
    /// The control law of a servo joint (tracking [`JointSeries::reference`]; the experiment's
    /// design), from the manifest's scenario; `None` for prescribed, torque-driven and free
    /// joints and for recordings.
    pub control: Option<crate::drive::Control>,
    /// The commanded torque signal of a torque-driven joint (the experiment's design, scaled
    /// by the scenario's `torque_scale`), from the manifest's scenario.
    pub excitation: Option<crate::drive::Signal>,
    /// Noisy measured copies by column (`q` for `q_meas`, …), where the run has them.
    pub measured: BTreeMap<JointColumn, Vec<f64>>,
    /// The commanded position (`q_cmd`, rad or m), where the run logs a command for this
    /// joint: what the joint's servo was told, exactly (a command is given, not measured).
    pub q_cmd: Option<Vec<f64>>,
}

impl JointSeries {
    /// The measured series of a column: its noisy `_meas` copy where there is one, else the
    /// clean column.
    pub fn measured_or_clean(&self, column: JointColumn) -> &[f64] {
        match self.measured.get(&column) {
            Some(m) => m,
            None => self.column(column),
        }
    }

    /// The series of a joint column as held: the clean column in [`Run::clean`], the measured
    /// one in [`Run::measurements`].
    pub fn column(&self, column: JointColumn) -> &[f64] {
        match column {
            JointColumn::Q => &self.q,
            JointColumn::Qd => &self.qd,
            JointColumn::Qdd => &self.qdd,
            JointColumn::Tau => &self.tau,
            JointColumn::Current => &self.current,
        }
    }

    /// The torque as the drive measures it, `K · i` (the teaching paper's eq. 1), from the
    /// measured current.
    pub fn motor_torque(&self) -> Vec<f64> {
        self.measured_or_clean(JointColumn::Current)
            .iter()
            .map(|i| self.gain * i)
            .collect()
    }
}

/// Everything an estimator may read: the measurement columns of a run.
#[derive(Clone, Debug)]
pub struct Measurements {
    /// Run id.
    pub run_id: String,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Per body `1..n` (index `b − 1`).
    pub bodies: Vec<BodySeries>,
    /// Per joint, in dataset order.
    pub joints: Vec<JointSeries>,
    /// The arm's kinematics without its inertial parameters ([`crate::model::Chain::kinematics_only`]).
    pub geometry: crate::model::Chain,
    /// The stated measurement model (a datasheet: the sensors' and noise laws' parameters, not
    /// the noise drawn), from the manifest's scenario.
    pub stated: Stated,
}

/// The measurement model a run states (`[[sensor]]` and `[[noise]]` of its scenario).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stated {
    /// Physical sensors.
    pub sensors: Vec<crate::sensor::Sensor>,
    /// Per-column noise laws.
    pub noise: Vec<crate::noise::ColumnNoise>,
    /// The torques come from a real robot's drives (a recorded run), which have terms the
    /// simulator's joints do not: a constant offset per joint, rotor inertia (the identifiers
    /// add their columns).
    pub real_drives: bool,
    /// The transmission `θm = R q` of a recorded run's motor-side readings (drives × joints),
    /// where one coupled them: the drives' friction and rotor inertia act through it.
    pub transmission: Option<nalgebra::DMatrix<f64>>,
}

/// Ground truth of one body.
#[derive(Clone, Debug)]
pub struct BodyTruth {
    /// Body number (1-based).
    pub body: u8,
    /// Name.
    pub name: String,
    /// Mass (kg).
    pub mass: f64,
    /// Central principal moments (kg·m²).
    pub j: [f64; 3],
    /// Length (m).
    pub length: f64,
    /// Radius (m), NaN where not applicable.
    pub radius: f64,
    /// Viscous damping of the inner joint (N·m·s/rad or N·s/m).
    pub joint_damping: f64,
}

/// Ground truth of a run: only the scorer reads it.
#[derive(Clone, Debug)]
pub struct Truth {
    /// Per body.
    pub bodies: Vec<BodyTruth>,
}

/// A run directory, read.
#[derive(Clone, Debug)]
pub struct Run {
    /// Where it was read from.
    pub dir: PathBuf,
    /// Its manifest (holds the model: truth; not for estimators).
    pub manifest: Manifest,
    /// What the sensors give: every column replaced by its measured copy where it has one
    /// ([`Measurements::sensed`]). The only view estimators get.
    pub measurements: Measurements,
    /// The clean columns (ideal sensors), for physics checks: no measured copies, so
    /// `measured_or_clean` gives the clean columns.
    pub clean: Measurements,
    /// The truth table.
    pub truth: Truth,
}

impl Measurements {
    /// Number of samples.
    pub fn samples(&self) -> usize {
        self.t.len()
    }

    /// The first `n` samples only (every column cut; the design, geometry and stated sensors
    /// kept): a shorter experiment of the same run.
    pub fn head(&self, n: usize) -> Measurements {
        self.window(0, n)
    }

    /// Samples `start..end` only (every non-empty column cut, clamped to the run; the design,
    /// geometry and stated sensors kept): a stretch of the same run.
    pub fn window(&self, start: usize, end: usize) -> Measurements {
        let end = end.min(self.t.len());
        self.select(&(start.min(end)..end).collect::<Vec<_>>())
    }

    /// Every `stride`-th sample from the first (`stride` ≥ 1; the design, geometry and stated
    /// sensors kept): the same run sampled `stride` times more slowly.
    pub fn every(&self, stride: usize) -> Measurements {
        self.select(&(0..self.t.len()).step_by(stride.max(1)).collect::<Vec<_>>())
    }

    /// The samples at `indices` (each below the run's length) of every non-empty column.
    fn select(&self, indices: &[usize]) -> Measurements {
        fn keep<T: Clone>(v: &mut Vec<T>, indices: &[usize]) {
            if !v.is_empty() {
                *v = indices.iter().map(|&k| v[k].clone()).collect();
            }
        }
        let mut m = self.clone();
        keep(&mut m.t, indices);
        for j in &mut m.joints {
            for v in [
                &mut j.q,
                &mut j.qd,
                &mut j.qdd,
                &mut j.tau,
                &mut j.tau_friction,
                &mut j.current,
            ] {
                keep(v, indices);
            }
            if let Some(q_cmd) = &mut j.q_cmd {
                keep(q_cmd, indices);
            }
            j.measured.values_mut().for_each(|v| keep(v, indices));
        }
        for b in &mut m.bodies {
            keep(&mut b.quat, indices);
            for v in [
                &mut b.pos,
                &mut b.euler,
                &mut b.euler_d,
                &mut b.euler_dd,
                &mut b.vel,
                &mut b.acc,
                &mut b.omega,
                &mut b.omega_dot,
                &mut b.force,
                &mut b.moment,
                &mut b.joint_point,
            ] {
                keep(v, indices);
            }
            b.measured.values_mut().for_each(|v| keep(v, indices));
        }
        m
    }

    /// The joint state `(q, q̇, q̈)` at sample `k` (dataset joint order).
    pub fn state(&self, k: usize) -> [Vec<f64>; 3] {
        let at = |f: fn(&JointSeries) -> &Vec<f64>| self.joints.iter().map(|j| f(j)[k]).collect();
        [at(|j| &j.q), at(|j| &j.qd), at(|j| &j.qdd)]
    }

    /// Index of the sample at time `t` (within 1e-9 s), if any.
    pub fn sample_at(&self, t: f64) -> Option<usize> {
        self.t.iter().position(|s| (s - t).abs() < 1e-9)
    }
}
