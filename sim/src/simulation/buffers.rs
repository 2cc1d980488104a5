//! The buffers one output sample works in ([`super::sample`]), kept by the simulation between
//! samples: a run allocates them at its first sample and reuses them after.

use crate::dynamics::{BodyMotion, InverseDynamics};
use crate::elastic::MotorSide;
use crate::profile::MotionState;
use crate::readout::{self, Known};
use crate::wrench::{BodyStep, JointWrench};

use super::state::State;

/// Per-sample scratch of [`super::Simulation::sample`], all in dataset joint order or link
/// order.
#[derive(Default)]
pub(super) struct SampleBuffers {
    /// Rapier's body poses at the sample (world frame).
    pub before: Vec<State>,
    /// Rapier's joint coordinates and rates at the sample.
    pub q: Vec<f64>,
    pub rapier_qd: Vec<f64>,
    /// The same after the step that starts at the sample.
    pub q_after: Vec<f64>,
    pub qd_after: Vec<f64>,
    /// Each prescribed joint's profile at the sample (default on the others).
    pub reference: Vec<MotionState>,
    /// The recorded rates (profiles' rates on prescribed joints).
    pub qd: Vec<f64>,
    /// Each joint's friction state, constraint load and motor side at the sample.
    pub bristle: Vec<f64>,
    pub load: Vec<f64>,
    pub motor_side: Vec<MotorSide>,
    /// What reached each link over the step, and each joint's friction force.
    pub link_torque: Vec<f64>,
    pub friction: Vec<f64>,
    /// What is known of each joint for the readings.
    pub known: Vec<Known>,
    /// The readings and their scratch.
    pub readout: readout::Workspace,
    /// `tau + tau_friction` of each joint as recorded.
    pub applied: Vec<f64>,
    /// Rapier's discrete accelerations over the step.
    pub discrete_qdd: Vec<f64>,
    /// Rapier's discrete world over the step.
    pub discrete: DiscreteBuffers,
}

/// The buffers of the wrenches recovered from Rapier's velocity changes over one step
/// ([`crate::wrench::recover`]).
#[derive(Default)]
pub(super) struct DiscreteBuffers {
    /// The bodies' velocities at the step's start and end, from Rapier's joint states.
    pub start: Vec<BodyMotion>,
    pub end: Vec<BodyMotion>,
    /// The joint state `(q, q̇)` that `end` was evaluated at: when the next sample starts there
    /// (one step per sample), `end` is its `start`, the same numbers.
    pub end_state: (Vec<f64>, Vec<f64>),
    /// Zero accelerations (velocities are all the check reads).
    pub zero: Vec<f64>,
    pub steps: Vec<BodyStep>,
    pub wrenches: Vec<JointWrench>,
}

/// Per-step scratch of [`super::Simulation::advance`] (dataset joint order, link order).
#[derive(Default)]
pub(super) struct StepBuffers {
    /// Rapier's body poses at the step's start.
    pub states: Vec<State>,
    /// Rapier's joint state at the step's start and (with friction state or elastic joints) at
    /// its end.
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
    pub q_after: Vec<f64>,
    pub qd_after: Vec<f64>,
    /// The state the servos read (elastic joints: their motor side).
    pub q_servo: Vec<f64>,
    pub qd_servo: Vec<f64>,
    /// The computed-torque model's accelerations.
    pub model_qdd: Vec<f64>,
    /// The joint state, rates and accelerations the constraint loads are evaluated at.
    pub load_q: Vec<f64>,
    pub load_qd: Vec<f64>,
    pub load_qdd: Vec<f64>,
    /// The kinematic joints' rate change over the step, divided by the step.
    pub rate_change: Vec<f64>,
    /// The inertial coupling on the dynamic joints.
    pub coupling: Vec<f64>,
    /// Zero rates.
    pub zero: Vec<f64>,
    /// Inverse-dynamics scratch (computed torque, coupling, constraint loads).
    pub rnea: InverseDynamics,
    /// Each joint's load over the step (N·m or N; dataset order).
    pub loads: Vec<f64>,
}
