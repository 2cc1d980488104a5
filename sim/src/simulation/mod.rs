//! The Rapier world built from a [`Chain`] and stepped through a [`Scenario`].
//!
//! Set-up (each choice measured, see the guide's chapter `book/src/exact-data.md`):
//! * one dynamic rigid body per link, no collider, exact mass properties
//!   (`MassProperties::with_principal_inertia_frame` through `additional_mass_properties`),
//!   never sleeping; the links form one Rapier **multibody** (reduced coordinates) rooted at a
//!   fixed ground body, so the bodies are exactly where the joint coordinates put them (no
//!   constraint drift); the rail, where there is one, is a prismatic joint to a massless
//!   carriage body;
//! * **prescribed joints** (profiles, the rail) are Rapier's *kinematic* multibody degrees of
//!   freedom: every step their rate is set to `(q_ref(t_{n+1}) − q_n)/dt`, so Rapier lands
//!   them on the profile at every step, whatever the step;
//! * **torque-driven, servo and free joints** are dynamic degrees of freedom: Rapier's
//!   multibody forward dynamics integrates them (semi-implicit Euler with its semi-implicit
//!   Coriolis term) under gravity, the actuator and friction forces, applied as equal and
//!   opposite loads on the joint's two bodies. Rapier's kinematic degrees of freedom do not
//!   pass their accelerations on to the dynamic ones (their rates are set, not integrated), so
//!   in runs that mix both each step adds the missing inertial coupling `−M_UK Δq̇_K / dt` as
//!   a generalized force on the dynamic joints (`M` from [`crate::dynamics::rnea`]);
//! * Rapier's default multibody joint damping (0.1 on angular degrees of freedom) is removed:
//!   damping is the scenario's, applied as a load.
//!
//! Each output sample reads Rapier's joint state and evaluates every other column from the
//! continuous-time dynamics at it ([`crate::readout`]); the wrenches recovered from Rapier's
//! velocity changes ([`crate::wrench`]) are kept as a cross-check in the manifest.

use ::nalgebra::{Matrix3, UnitQuaternion, Vector3};
use indicatif::ProgressBar;
use rapier3d_f64::prelude::*;

use crate::model::Chain;
use crate::recording::Recording;
use crate::residuals::ResidualSum;
use crate::scenario::{JointDrive, Scenario};

mod buffers;
mod build;
mod consistency;
mod coupled;
mod drive_train;
mod friction_state;
mod sample;
mod state;
mod step;

pub use crate::dataset::provenance::Integrator;
use consistency::Meter;
pub use consistency::{RapierConsistency, StepDifferences};
use state::State;

/// Static description of a body as the simulation uses it.
struct BodyInfo {
    mass: f64,
    inertia: Matrix3<f64>,
    rot0: UnitQuaternion<f64>,
    centroid0: Vector3<f64>,
    /// Inner joint point, zero configuration.
    anchor0: Vector3<f64>,
}

impl BodyInfo {
    /// Displacement from the zero configuration: `x ↦ R R0ᵀ (x − c0) + c`.
    fn displace(&self, s: &State, x0: &Vector3<f64>) -> Vector3<f64> {
        s.rot * (self.rot0.inverse() * (x0 - self.centroid0)) + s.pos
    }

    fn joint_point(&self, s: &State) -> Vector3<f64> {
        self.displace(s, &self.anchor0)
    }
}

/// A running simulation.
pub struct Simulation<'a> {
    scenario: &'a Scenario,
    world: PhysicsWorld,
    /// The link bodies `1..n`.
    bodies: Vec<RigidBodyHandle>,
    /// Every joint's multibody joint, dataset order (the rail first where there is one).
    joints: Vec<MultibodyJointHandle>,
    /// Whether each joint (dataset order) is a kinematic degree of freedom (prescribed).
    kinematic: Vec<bool>,
    /// The index of each joint's free axis in Rapier's 6-vector of joint coordinates.
    axis: Vec<usize>,
    info: Vec<BodyInfo>,
    /// `chain.joint_ids()` position of link 1's joint (1 with a rail, else 0).
    offset: usize,
    /// Steps taken.
    step: usize,
    /// The actuator force of each joint's servo or torque signal over the current step (0 for
    /// prescribed and free joints).
    applied: Vec<f64>,
    /// The motor torque delivered over the current step (`applied` through the motor's current
    /// loop and true torque constant, `sim::motor`; `applied` itself where no motor is stated).
    delivered: Vec<f64>,
    /// Each motor's current at the start of the current step (A).
    step_current: Vec<f64>,
    /// Each motor's current now (A).
    current: Vec<f64>,
    /// Whether some joint's friction has a state (LuGre).
    friction_state: bool,
    /// Each joint's rotor inertia reflected to it (kg·m², `sim::rotor`; dataset order).
    armature: Vec<f64>,
    /// Each joint's friction state now (the bristle deflection `z` of LuGre friction; 0 for
    /// stateless friction).
    bristle: Vec<f64>,
    /// Each elastic joint's motor side now (`sim::elastic`; default for rigid joints).
    motor_side: Vec<crate::elastic::MotorSide>,
    /// Whether some joint is elastic.
    elastic: bool,
    /// Each joint's constraint load at the start of the current step (N; computed only where
    /// some joint's term reads it, `sim::term::JointTerm::needs_constraint_load`).
    constraint_load: Vec<f64>,
    /// Whether some joint's term reads its constraint load.
    constraint_loads: bool,
    /// Whether the scenario has coupled drives (`coupled.rs`).
    coupled: bool,
    /// Each joint's share of the coupled drives' rotor inertia on Rapier's diagonal (kg·m²).
    coupled_diagonal: Vec<f64>,
    /// The coupled drives' off-diagonal inertial load on each joint over the current step.
    coupled_inertia: Vec<f64>,
    /// The scratch of [`Simulation::sample`], reused from sample to sample.
    buffers: buffers::SampleBuffers,
    /// The scratch of [`Simulation::advance`], reused from step to step.
    step_buffers: buffers::StepBuffers,
}

/// A scenario simulated to completion.
pub struct Simulated {
    /// The recorded samples.
    pub recording: Recording,
    /// The integrator settings in force.
    pub integrator: Integrator,
    /// Rapier's discrete world against the recorded readings.
    pub consistency: RapierConsistency,
    /// The engine's step against the recorded accelerations, per sample and joint.
    pub steps: StepDifferences,
    /// The inverse-dynamics residuals of the recorded samples: the same numbers as
    /// [`crate::checks::recording_residuals`] of the recording, from the readings' RNEA where it
    /// was evaluated at the recorded joint values to the bit.
    pub residuals: crate::residuals::Residuals,
    /// The sample at which the readings could not be evaluated, if any: the recording stops
    /// before it.
    pub unevaluable: Option<Unevaluable>,
}

/// A sample whose readings cannot be evaluated at the engine's state (a non-finite state, a
/// free joint carrying no mass): the run stops there and is invalid
/// ([`crate::validity::Gate::Dynamics`]).
#[derive(Clone, Debug)]
pub struct Unevaluable {
    /// The sample (its index had it been recorded).
    pub sample: usize,
    /// Its time (s).
    pub time: f64,
    /// Why.
    pub reason: String,
}

/// Runs a scenario to completion.
pub fn run(scenario: &Scenario, progress: Option<&ProgressBar>) -> Simulated {
    let mut sim = Simulation::new(scenario);
    let mut rec = sim.new_recording();
    let mut meter = Meter::new(scenario.chain.joint_kinds(), scenario.samples);
    let mut residuals = ResidualSum::new(&scenario.chain, scenario.samples);
    let mut unevaluable = None;
    for k in 0..scenario.samples {
        // Advance to the sample's step, then record over the step that starts there.
        let target = k * scenario.steps_per_sample;
        while sim.step < target {
            sim.advance();
        }
        if let Err(reason) = sim.sample(&mut rec, &mut meter, &mut residuals) {
            let time = scenario.sample_time(k);
            unevaluable = Some(Unevaluable {
                sample: k,
                time,
                reason: reason.to_string(),
            });
            break;
        }
        rec.t.push(scenario.sample_time(k));
        if let Some(pb) = progress {
            pb.inc(1);
        }
    }
    Simulated {
        recording: rec,
        integrator: sim.integrator(),
        consistency: meter.finish(),
        steps: meter.step_differences(),
        residuals: residuals.finish(),
        unevaluable,
    }
}

impl Simulation<'_> {
    /// The integrator settings in force, as the manifest records them.
    pub fn integrator(&self) -> Integrator {
        let ip = &self.world.integration_parameters;
        Integrator {
            method: "rapier3d-f64 multibody (reduced coordinates), semi-implicit Euler; \
                     prescribed joints as kinematic degrees of freedom"
                .into(),
            dt: ip.dt,
            num_solver_iterations: ip.num_solver_iterations,
            num_internal_pgs_iterations: ip.num_internal_pgs_iterations,
            steps_per_sample: self.scenario.steps_per_sample,
        }
    }

    fn chain(&self) -> &Chain {
        &self.scenario.chain
    }

    fn new_recording(&self) -> Recording {
        let chain = self.chain();
        let n = self.scenario.samples;
        Recording {
            run_id: self.scenario.file.name.clone(),
            t: Vec::with_capacity(n),
            n_bodies: chain.len(),
            joint_ids: chain.joint_ids(),
            joint_kinds: chain.joint_kinds(),
            bodies: Vec::with_capacity(n * chain.len()),
            joints: Vec::with_capacity(n * (chain.len() + self.offset)),
            measured: Vec::new(),
            measured_bodies: Vec::new(),
            friction_state: self.friction_state,
            elastic: self.elastic,
            commanded: (self.scenario.drives.iter())
                .any(|d| matches!(d.drive, crate::drive::Drive::Servo(_))),
        }
    }

    /// Rapier's pose of every link body into `states` (replaced).
    fn states_into(&self, states: &mut Vec<State>) {
        states.clear();
        states.extend(
            self.bodies
                .iter()
                .map(|h| State::of(&self.world.bodies[*h])),
        );
    }

    /// `(q, q̇)` of every joint in dataset order: Rapier's generalized coordinates and rates
    /// (revolute angles accumulate, they are not wrapped).
    fn joint_state(&self) -> (Vec<f64>, Vec<f64>) {
        let (mut q, mut qd) = (
            Vec::with_capacity(self.joints.len()),
            Vec::with_capacity(self.joints.len()),
        );
        self.joint_state_into(&mut q, &mut qd);
        (q, qd)
    }

    /// [`Simulation::joint_state`] into `q`, `qd` (replaced).
    fn joint_state_into(&self, q: &mut Vec<f64>, qd: &mut Vec<f64>) {
        q.clear();
        qd.clear();
        for (j, h) in self.joints.iter().enumerate() {
            let (mb, id) = self.world.multibody_joints.get(*h).expect("joint");
            let link = mb.link(id).expect("link");
            q.push(link.joint.coords()[self.axis[j]]);
            qd.push(mb.generalized_velocity()[link.assembly_id()]);
        }
    }

    /// Simulated time at the start of step `step` (s).
    fn time(&self, step: usize) -> f64 {
        step as f64 * self.scenario.dt()
    }
}

/// The generalized passive force on a joint (`tau_friction`) at time `t`: viscous damping, the
/// model's joint spring `−k (q − q₀)`, the joint's friction model at its state `z` and its
/// registered terms (`sim::term`; `load` the constraint load, N), in `sim::term`'s sign
/// convention.
fn joint_friction(drive: &JointDrive, t: f64, q: f64, qd: f64, z: f64, load: f64) -> f64 {
    let friction = drive
        .friction
        .as_ref()
        .map_or(0.0, |f| f.with_state(q, qd, z));
    let now = crate::term::JointNow {
        t,
        q,
        qd,
        constraint_load: load,
    };
    let passive = drive.terms.passive_force(drive.damping, friction, &now);
    // Without a spring the force is the terms' to the bit (a −0.0 stays −0.0).
    match drive.spring {
        (0.0, _) => passive,
        (k, rest) => passive - k * (q - rest),
    }
}
