//! The Rapier world built from a [`Chain`] and stepped through a [`Scenario`].
//!
//! Set-up (each choice measured, see the README's physics section):
//! * one dynamic rigid body per link, no collider, exact mass properties
//!   (`MassProperties::with_principal_inertia_frame` through `additional_mass_properties`),
//!   never sleeping;
//! * links joined by `ImpulseJointSet` revolute/prismatic joints with contacts disabled
//!   (multibody joints give no force output and fail per-body Newton–Euler);
//! * the rail carriage is a massless `kinematic_position_based` body moved with
//!   `set_next_kinematic_translation`;
//! * `num_solver_iterations = 1` (one substep), `num_internal_stabilization_iterations = 0`,
//!   `num_internal_pgs_iterations` from the scenario;
//! * Rapier's first-order gyroscopic correction is disabled and `−ω × I_w ω` is applied as a
//!   torque each step, so the discrete Euler equation closes exactly;
//! * prescribed joints use a deadbeat position motor, re-targeted every step to
//!   `q_ref(t_{n+1})` with stiffness `CONSTRAINT_RIGIDITY / dt²`, no damping and unlimited
//!   force; the locked axes get the same rigidity (Rapier's default joint softness lets them
//!   yield by ~1e-3 of the impulse at dt = 1e-5, which breaks joint-level consistency).
//!
//! Joint wrenches are then recovered exactly from the velocity changes ([`crate::wrench`]).

use ::nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, Unit, UnitQuaternion, Vector3};
use indicatif::ProgressBar;
use rapier3d_f64::prelude::*;

use crate::convert::{rot_from, rot_to, vec_from, vec_to};
use crate::dataset::manifest::Integrator;
use crate::drive::{Control, Drive, Servo};
use crate::dynamics;
use crate::kinematics::{cardan_angles, cardan_rates, unwrap_angle};
use crate::model::{Chain, JointKind};
use crate::recording::{BodyRecord, JointRecord, Recording};
use crate::scenario::{JointDrive, Scenario};
use crate::wrench::{self, BodyStep};

/// Rigidity of constraints as the dimensionless product `dt² · k` of the motor stiffness
/// (`dt · ω` of the joint's spring natural angular frequency): Rapier regularizes every
/// constraint with a constraint-force-mixing term of order `1/(dt² k)`; at this value the
/// motors are deadbeat and the locked axes rigid to ~1e-12 of the transmitted impulse.
pub const CONSTRAINT_RIGIDITY: f64 = 1e12;

/// Kinematic state of one rigid body (world frame).
#[derive(Clone, Copy, Debug)]
struct State {
    rot: UnitQuaternion<f64>,
    pos: Vector3<f64>,
    vel: Vector3<f64>,
    omega: Vector3<f64>,
}

impl State {
    fn of(rb: &RigidBody) -> State {
        State {
            rot: rot_from(*rb.rotation()),
            pos: vec_from(rb.translation()),
            vel: vec_from(rb.linvel()),
            omega: vec_from(rb.angvel()),
        }
    }

    fn point_velocity(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.vel + self.omega.cross(&(p - self.pos))
    }
}

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
    base: RigidBodyHandle,
    bodies: Vec<RigidBodyHandle>,
    joints: Vec<ImpulseJointHandle>,
    info: Vec<BodyInfo>,
    /// `chain.joint_ids()` position of link 1's joint (1 with a rail, else 0).
    offset: usize,
    /// Steps taken, counted from the start of the pre-roll.
    step: usize,
    /// Pre-roll steps before `t = 0` (see [`PRE_ROLL_STEPS`]).
    origin: usize,
    /// Joint coordinates at the start of the current step, revolute ones unwrapped so that they
    /// are continuous from the initial state on: what friction and the recording both use.
    q: Vec<f64>,
    /// The actuator force of each joint's servo or torque signal over the current step (0 for
    /// prescribed and free joints).
    applied: Vec<f64>,
}

/// Steps simulated before `t = 0` when every joint follows a reference (a prescribed profile or
/// a servo's): the references are followed from `t = −PRE_ROLL_STEPS · dt`, so the state at
/// `t = 0` is the profiles' own (a servo's, up to its tracking error), but Rapier's constraint
/// stabilization has settled by then. Started directly with a
/// nonzero velocity, the first few steps lack the centripetal accelerations that the
/// velocity-level joint constraints only pick up from the position error one step later
/// (measured on `mim_cyl2`: 2.0 N·m against 0.6 N·m by RNEA at sample 0, settled within ~10 steps).
pub const PRE_ROLL_STEPS: usize = 100;

/// Runs a scenario to completion and returns its recording and integrator settings.
pub fn run(scenario: &Scenario, progress: Option<&ProgressBar>) -> (Recording, Integrator) {
    let mut sim = Simulation::new(scenario);
    let mut rec = sim.new_recording();
    let mut previous: Option<Vec<Vector3<f64>>> = None;
    for k in 0..scenario.samples {
        // Advance to the sample's step, then record over the step that starts there.
        let target = sim.origin + k * scenario.steps_per_sample;
        while sim.step < target {
            sim.advance();
        }
        let (bodies, joints) = sim.sample(previous.as_ref());
        previous = Some(bodies.iter().map(|b| b.euler).collect());
        rec.t.push(scenario.sample_time(k));
        rec.bodies.extend(bodies);
        rec.joints.extend(joints);
        if let Some(pb) = progress {
            pb.inc(1);
        }
    }
    (rec, sim.integrator())
}

impl<'a> Simulation<'a> {
    /// Builds the Rapier world in the scenario's initial state (profiles at `t = 0`, other joints
    /// at rest at 0).
    pub fn new(scenario: &'a Scenario) -> Self {
        let chain = &scenario.chain;
        let mut world = PhysicsWorld::new();
        world.gravity = vec_to(&crate::gravity_vector());
        let ip = &mut world.integration_parameters;
        ip.dt = scenario.dt();
        ip.num_solver_iterations = 1;
        ip.num_internal_stabilization_iterations = 0;
        ip.num_internal_pgs_iterations = scenario.file.solver.pgs_iterations;
        ip.warmstart_joints = scenario.file.solver.warmstart;

        // Initial state from the drives at the start time, through the reference forward
        // kinematics.
        let all_prescribed = scenario
            .drives
            .iter()
            .all(|d| matches!(d.drive, Drive::Motion(_) | Drive::Servo(_)));
        let origin = if all_prescribed { PRE_ROLL_STEPS } else { 0 };
        let t_start = -(origin as f64) * scenario.dt();
        let nj = chain.joint_ids().len();
        let (mut q, mut qd) = (vec![0.0; nj], vec![0.0; nj]);
        for (k, d) in scenario.drives.iter().enumerate() {
            if let Drive::Motion(p) | Drive::Servo(Servo { reference: p, .. }) = &d.drive {
                let s = p.eval(t_start);
                (q[k], qd[k]) = (s.q, s.qd);
            }
        }
        let init = dynamics::rnea(chain, &q, &qd, &vec![0.0; nj], &Vector3::zeros());

        let offset = nj - chain.len();
        let base = match chain.rail_axis() {
            Some(axis) => world.bodies.insert(
                RigidBodyBuilder::kinematic_position_based()
                    .translation(vec_to(&(axis.into_inner() * q[0]))),
            ),
            None => world.bodies.insert(RigidBodyBuilder::fixed()),
        };
        let mut bodies = Vec::with_capacity(chain.len());
        let mut info = Vec::with_capacity(chain.len());
        for (link, m) in chain.links.iter().zip(&init.bodies) {
            let b = &link.body;
            let mprops = MassProperties::with_principal_inertia_frame(
                Vector::ZERO,
                b.mass,
                Vector::new(b.inertia[0], b.inertia[1], b.inertia[2]),
                Rotation::IDENTITY,
            );
            let rot = UnitQuaternion::from_rotation_matrix(&m.rotation);
            let rb = RigidBodyBuilder::dynamic()
                .pose(Pose::from_parts(vec_to(&m.centroid), rot_to(&rot)))
                .linvel(vec_to(&m.vel))
                .angvel(vec_to(&m.omega))
                .additional_mass_properties(mprops)
                .gyroscopic_forces_enabled(false)
                .can_sleep(false);
            bodies.push(world.bodies.insert(rb));
            info.push(BodyInfo {
                mass: b.mass,
                inertia: b.inertia_body(),
                rot0: UnitQuaternion::from_rotation_matrix(&b.rotation()),
                centroid0: b.centroid().coords,
                anchor0: link.joint.anchor().coords,
            });
        }

        // Joints, with their frames defined at the zero configuration.
        let ip_dt = scenario.dt();
        let mut joints = Vec::with_capacity(chain.len());
        for (k, link) in chain.links.iter().enumerate() {
            let axis = link.joint.axis();
            let frame_rot = UnitQuaternion::rotation_between_axis(&Vector3::x_axis(), &axis)
                .unwrap_or_else(|| {
                    UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI)
                });
            let frame =
                Isometry3::from_parts(Translation3::from(link.joint.anchor().coords), frame_rot);
            let body_zero = |i: usize| {
                Isometry3::from_parts(Translation3::from(info[i].centroid0), info[i].rot0)
            };
            let parent_zero = if k == 0 {
                Isometry3::identity()
            } else {
                body_zero(k - 1)
            };
            let (l1, l2) = (
                parent_zero.inverse() * frame,
                body_zero(k).inverse() * frame,
            );
            let pose = |iso: Isometry3<f64>| {
                Pose::from_parts(vec_to(&iso.translation.vector), rot_to(&iso.rotation))
            };
            let locked = match link.joint.kind {
                JointKind::Revolute => JointAxesMask::LOCKED_REVOLUTE_AXES,
                JointKind::Prismatic => JointAxesMask::LOCKED_PRISMATIC_AXES,
            };
            let rigid =
                SpringCoefficients::new(CONSTRAINT_RIGIDITY / (std::f64::consts::TAU * ip_dt), 1.0);
            let joint = GenericJointBuilder::new(locked)
                .local_frame1(pose(l1))
                .local_frame2(pose(l2))
                .contacts_enabled(false)
                .softness(rigid)
                .build();
            let parent = if k == 0 { base } else { bodies[k - 1] };
            joints.push(world.impulse_joints.insert(parent, bodies[k], joint, true));
        }

        Simulation {
            scenario,
            world,
            base,
            bodies,
            joints,
            info,
            offset,
            step: 0,
            origin,
            applied: vec![0.0; q.len()],
            q,
        }
    }

    /// The integrator settings in force, as the manifest records them.
    pub fn integrator(&self) -> Integrator {
        let ip = &self.world.integration_parameters;
        let solver = &self.scenario.file.solver;
        Integrator {
            method: "symplectic_euler (rapier3d-f64)".into(),
            dt: ip.dt,
            num_solver_iterations: ip.num_solver_iterations,
            num_internal_pgs_iterations: solver.pgs_iterations,
            first_step_pgs_iterations: solver.first_step_pgs_iterations,
            warmstart_joints: ip.warmstart_joints,
            num_internal_stabilization_iterations: ip.num_internal_stabilization_iterations,
            constraint_rigidity: CONSTRAINT_RIGIDITY,
            pre_roll_steps: self.origin,
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
        }
    }

    fn states(&self) -> Vec<State> {
        self.bodies
            .iter()
            .map(|h| State::of(&self.world.bodies[*h]))
            .collect()
    }

    /// The parent state of link `k` (0-based): the carriage or ground for `k = 0`.
    fn parent_state(&self, states: &[State], k: usize) -> (State, UnitQuaternion<f64>) {
        if k == 0 {
            let carriage = State::of(&self.world.bodies[self.base]);
            (carriage, UnitQuaternion::identity())
        } else {
            (states[k - 1], self.info[k - 1].rot0)
        }
    }

    /// Joint coordinate rate of link `k`'s joint and its current world axis.
    fn link_joint_rate(&self, states: &[State], k: usize) -> (f64, Unit<Vector3<f64>>) {
        let link = &self.chain().links[k];
        let (parent, parent_rot0) = self.parent_state(states, k);
        let axis = Unit::new_unchecked(
            parent.rot * (parent_rot0.inverse() * link.joint.axis().into_inner()),
        );
        let child = &states[k];
        let rate = match link.joint.kind {
            JointKind::Revolute => (child.omega - parent.omega).dot(&axis),
            JointKind::Prismatic => {
                let p = self.info[k].joint_point(child);
                (child.point_velocity(&p) - parent.point_velocity(&p)).dot(&axis)
            }
        };
        (rate, axis)
    }

    /// `(q, q̇)` of every joint in dataset order; `q` of revolute joints in `(−π, π]`.
    fn joint_coordinates(&self, states: &[State]) -> Vec<(f64, f64)> {
        let chain = self.chain();
        let mut out = Vec::with_capacity(chain.len() + self.offset);
        if let Some(axis) = chain.rail_axis() {
            let p = self.info[0].joint_point(&states[0]);
            let v = states[0].point_velocity(&p);
            out.push(((p - self.info[0].anchor0).dot(&axis), v.dot(&axis)));
        }
        for (k, link) in chain.links.iter().enumerate() {
            let (rate, axis) = self.link_joint_rate(states, k);
            let (parent, parent_rot0) = self.parent_state(states, k);
            let q = match link.joint.kind {
                JointKind::Revolute => {
                    // Relative displacement of the child with respect to the parent's.
                    let rel = (parent.rot * parent_rot0.inverse()).inverse()
                        * (states[k].rot * self.info[k].rot0.inverse());
                    let a0 = link.joint.axis();
                    2.0 * rel.imag().dot(&a0).atan2(rel.w)
                }
                JointKind::Prismatic => {
                    let pc = self.info[k].joint_point(&states[k]);
                    let pp = if k == 0 {
                        parent.pos + link.joint.anchor().coords
                    } else {
                        self.info[k - 1].displace(&parent, &link.joint.anchor().coords)
                    };
                    (pc - pp).dot(&axis)
                }
            };
            out.push((q, rate));
        }
        out
    }

    /// Simulated time now (s); negative during the pre-roll.
    fn time(&self, step: usize) -> f64 {
        (step as f64 - self.origin as f64) * self.scenario.dt()
    }

    /// Sets motor targets, the carriage's next position and all applied torques for the step
    /// that starts now, then steps the world.
    pub fn advance(&mut self) {
        let dt = self.scenario.dt();
        let t = self.time(self.step);
        let t_next = self.time(self.step + 1);
        let states = self.states();

        // Reset applied loads, then add the gyroscopic torque −ω × I_w ω.
        for (k, h) in self.bodies.iter().enumerate() {
            let rb = &mut self.world.bodies[*h];
            rb.reset_forces(false);
            rb.reset_torques(false);
            let s = &states[k];
            let r = s.rot.to_rotation_matrix();
            let i_w = r.matrix() * self.info[k].inertia * r.matrix().transpose();
            let gyro = -s.omega.cross(&(i_w * s.omega));
            rb.add_torque(vec_to(&gyro), false);
        }

        // Joint coordinates now, continuous with the previous step's.
        let coords = self.joint_coordinates(&states);
        for (j, (q, _)) in coords.iter().enumerate() {
            let revolute = j >= self.offset
                && self.chain().links[j - self.offset].joint.kind == JointKind::Revolute;
            self.q[j] = if revolute {
                unwrap_angle(*q, self.q[j])
            } else {
                *q
            };
        }

        self.applied = self.servo_torques(t, &coords);
        let rail = self.chain().rail_axis();
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if rail.is_some() && j == 0 {
                if let (Drive::Motion(p), Some(axis)) = (&d.drive, rail) {
                    let x = axis.into_inner() * p.eval(t_next).q;
                    self.world.bodies[self.base].set_next_kinematic_translation(vec_to(&x));
                }
                continue;
            }
            let k = j - self.offset;
            let kind = self.chain().links[k].joint.kind;
            let mut load = joint_friction(d, self.q[j], coords[j].1);
            match &d.drive {
                Drive::Motion(p) => {
                    let target = p.eval(t_next).q;
                    let motor_axis = match kind {
                        JointKind::Revolute => JointAxis::AngX,
                        JointKind::Prismatic => JointAxis::LinX,
                    };
                    let joint = self
                        .world
                        .impulse_joints
                        .get_mut(self.joints[k], false)
                        .expect("joint");
                    joint.data.set_motor(
                        motor_axis,
                        target,
                        0.0,
                        CONSTRAINT_RIGIDITY / (dt * dt),
                        0.0,
                    );
                    joint.data.motors[motor_axis as usize].max_force = f64::MAX;
                }
                Drive::Torque(_) | Drive::Servo(_) => load += self.applied[j],
                Drive::Free => {}
            }
            if load != 0.0 {
                let (_, axis) = self.link_joint_rate(&states, k);
                self.apply_joint_load(k, kind, load, &axis, &states);
            }
        }
        // The first step starts the solver from zero impulses: give it enough iterations to
        // converge. Later steps converge in far fewer (measured), although re-targeting the
        // motors through `get_mut` resets Rapier's joint warm start every step.
        let pgs = self.scenario.file.solver.pgs_iterations;
        let first = self.scenario.file.solver.first_step_pgs_iterations;
        self.world
            .integration_parameters
            .num_internal_pgs_iterations = if self.step == 0 { first } else { pgs };
        self.world.step();
        self.step += 1;
    }

    /// The actuator force of every torque-signal and servo joint at time `t`, from the joint
    /// state `(self.q, coords.1)` at the start of the step.
    fn servo_torques(&self, t: f64, coords: &[(f64, f64)]) -> Vec<f64> {
        let drives = &self.scenario.drives;
        let qd: Vec<f64> = coords.iter().map(|c| c.1).collect();
        let error = |p: &crate::profile::Profile, j: usize| {
            let r = p.eval(t);
            (r, r.q - self.q[j], r.qd - qd[j])
        };
        let computed_torque = drives.iter().any(|d| {
            matches!(
                d.drive,
                Drive::Servo(Servo {
                    control: Control::ComputedTorque { .. },
                    ..
                })
            )
        });
        let model_tau = computed_torque.then(|| {
            let qdd: Vec<f64> = drives
                .iter()
                .enumerate()
                .map(|(j, d)| match &d.drive {
                    Drive::Motion(p) => p.eval(t).qdd,
                    Drive::Servo(Servo {
                        reference,
                        control: Control::ComputedTorque { kp, kd },
                    }) => {
                        let (r, e, ed) = error(reference, j);
                        r.qdd + kp * e + kd * ed
                    }
                    _ => 0.0,
                })
                .collect();
            dynamics::rnea(self.chain(), &self.q, &qd, &qdd, &crate::gravity_vector()).tau
        });
        drives
            .iter()
            .enumerate()
            .map(|(j, d)| match &d.drive {
                Drive::Torque(s) => s.eval(t),
                Drive::Servo(Servo { reference, control }) => {
                    let (_, e, ed) = error(reference, j);
                    match *control {
                        Control::Pd { kp, kd } => kp * e + kd * ed,
                        Control::ComputedTorque { .. } => model_tau.as_ref().expect("computed")[j],
                        Control::PiVelocity { kp, ki } => d.gain * (kp * ed + ki * e),
                    }
                }
                Drive::Motion(_) | Drive::Free => 0.0,
            })
            .collect()
    }

    /// Applies a generalized joint force as equal and opposite loads on the joint's two bodies.
    fn apply_joint_load(
        &mut self,
        k: usize,
        kind: JointKind,
        load: f64,
        axis: &Unit<Vector3<f64>>,
        states: &[State],
    ) {
        let parent = (k > 0).then(|| self.bodies[k - 1]);
        match kind {
            JointKind::Revolute => {
                let torque = axis.into_inner() * load;
                self.world.bodies[self.bodies[k]].add_torque(vec_to(&torque), false);
                if let Some(p) = parent {
                    self.world.bodies[p].add_torque(vec_to(&-torque), false);
                }
            }
            JointKind::Prismatic => {
                let force = axis.into_inner() * load;
                let at = vec_to(&self.info[k].joint_point(&states[k]));
                self.world.bodies[self.bodies[k]].add_force_at_point(vec_to(&force), at, false);
                if let Some(p) = parent {
                    self.world.bodies[p].add_force_at_point(vec_to(&-force), at, false);
                }
            }
        }
    }

    /// Records the current sample: state now, accelerations and wrenches over the next step.
    fn sample(
        &mut self,
        previous: Option<&Vec<Vector3<f64>>>,
    ) -> (Vec<BodyRecord>, Vec<JointRecord>) {
        let dt = self.scenario.dt();
        let before = self.states();
        let coords = self.joint_coordinates(&before);
        self.advance();
        let after = self.states();
        let coords_after = self.joint_coordinates(&after);

        let steps: Vec<BodyStep> = (0..self.bodies.len())
            .map(|k| {
                let (s0, s1) = (&before[k], &after[k]);
                let r = s0.rot.to_rotation_matrix();
                BodyStep {
                    mass: self.info[k].mass,
                    inertia_world: r.matrix() * self.info[k].inertia * r.matrix().transpose(),
                    centroid: s0.pos,
                    joint_point: self.info[k].joint_point(s0),
                    v: [s0.vel, s1.vel],
                    omega: [s0.omega, s1.omega],
                    external_force: Vector3::zeros(),
                    external_torque: Vector3::zeros(),
                }
            })
            .collect();
        let wrenches = wrench::recover(&steps, dt, &crate::gravity_vector());

        let bodies: Vec<BodyRecord> = steps
            .iter()
            .zip(&wrenches)
            .enumerate()
            .map(|(k, (st, w))| {
                let r: Rotation3<f64> = before[k].rot.to_rotation_matrix();
                let mut euler = cardan_angles(&r);
                if let Some(prev) = previous {
                    euler[0] = unwrap_angle(euler[0], prev[k][0]);
                    euler[2] = unwrap_angle(euler[2], prev[k][2]);
                }
                let omega = r.inverse() * st.omega[0];
                let omega_dot = r.inverse() * st.angular_acceleration(dt);
                let nan = Vector3::repeat(f64::NAN);
                let (euler_d, euler_dd) =
                    cardan_rates(&euler, &omega, &omega_dot).unwrap_or((nan, nan));
                BodyRecord {
                    pos: st.centroid,
                    quat: before[k].rot,
                    euler,
                    euler_d,
                    euler_dd,
                    vel: st.v[0],
                    acc: st.acceleration(dt),
                    omega,
                    omega_dot,
                    force: w.force,
                    moment: w.moment,
                    joint_point: st.joint_point,
                }
            })
            .collect();

        let chain = self.chain();
        let rail = chain.rail_axis();
        let mut joints = Vec::with_capacity(coords.len());
        for (j, d) in self.scenario.drives.iter().enumerate() {
            let (q, qd) = (self.q[j], coords[j].1);
            let qdd = (coords_after[j].1 - qd) / dt;
            let (total, motor) = if let (Some(axis), 0) = (rail, j) {
                (wrenches[0].force.dot(&axis), f64::NAN)
            } else {
                let k = j - self.offset;
                let (_, axis) = self.link_joint_rate(&before, k);
                let w = &wrenches[k];
                let joint = &self
                    .world
                    .impulse_joints
                    .get(self.joints[k])
                    .expect("joint")
                    .data;
                let (total, motor_axis) = match chain.links[k].joint.kind {
                    JointKind::Revolute => (w.moment.dot(&axis), JointAxis::AngX),
                    JointKind::Prismatic => (w.force.dot(&axis), JointAxis::LinX),
                };
                let motor = if matches!(d.drive, Drive::Motion(_)) {
                    joint.motors[motor_axis as usize].impulse / dt
                } else {
                    f64::NAN
                };
                (total, motor)
            };
            let tau_friction = joint_friction(d, q, qd);
            let tau = match &d.drive {
                Drive::Motion(_) => total - tau_friction,
                Drive::Torque(_) | Drive::Servo(_) => self.applied[j],
                Drive::Free => 0.0,
            };
            joints.push(JointRecord {
                q,
                qd,
                qdd,
                tau,
                tau_friction,
                tau_motor: motor,
                current: tau / d.gain,
            });
        }
        (bodies, joints)
    }
}

/// The generalized friction force on a joint (`tau_friction`): viscous damping plus the joint's
/// friction model, opposing the motion.
fn joint_friction(drive: &JointDrive, q: f64, qd: f64) -> f64 {
    -drive.damping * qd - drive.friction.as_ref().map_or(0.0, |f| f.magnitude(q, qd))
}
