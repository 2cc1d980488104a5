//! The Rapier world of a scenario, built in its initial state.

use ::nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use rapier3d_f64::prelude::*;

use super::{BodyInfo, Simulation};
use crate::convert::{rot_to, vec_to};
use crate::drive::{Control, Drive, Servo};
use crate::dynamics;
use crate::model::{Chain, JointKind};
use crate::scenario::Scenario;

impl<'a> Simulation<'a> {
    /// Builds the Rapier world in the scenario's initial state: profiles and servo references
    /// at `t = 0`, other joints at rest at 0.
    pub fn new(scenario: &'a Scenario) -> Self {
        let chain = &scenario.chain;
        let mut world = PhysicsWorld::new();
        world.gravity = vec_to(&chain.gravity_vector());
        let ip = &mut world.integration_parameters;
        ip.dt = scenario.dt();
        ip.num_solver_iterations = 1;
        ip.num_internal_pgs_iterations = scenario.file.solver.pgs_iterations;
        // Rapier clamps body speeds at 400 m/s by default (a game-engine safeguard): no clamp.
        ip.normalized_max_linear_velocity = f64::MAX;

        let (q, qd) = initial_state(scenario);
        let nj = q.len();
        let init = dynamics::kinematics(chain, &q, &qd, &vec![0.0; nj]);
        let offset = nj - chain.len();
        let ground = world.bodies.insert(RigidBodyBuilder::fixed());
        let mut bodies = Vec::with_capacity(chain.len());
        let mut info = Vec::with_capacity(chain.len());
        for (link, m) in chain.links.iter().zip(&init) {
            let b = &link.body;
            let mprops = MassProperties::with_principal_inertia_frame(
                Vector::ZERO,
                b.mass,
                Vector::new(b.inertia[0], b.inertia[1], b.inertia[2]),
                Rotation::IDENTITY,
            );
            let rot = UnitQuaternion::from_rotation_matrix(&m.rotation);
            // No per-step rotation cap (π/4 per step for rigid bodies by default).
            let rb = RigidBodyBuilder::dynamic()
                .allow_fast_rotation(true)
                .pose(Pose::from_parts(vec_to(&m.centroid), rot_to(&rot)))
                .linvel(vec_to(&m.vel))
                .angvel(vec_to(&m.omega))
                .additional_mass_properties(mprops)
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

        let kinematic: Vec<bool> = (scenario.drives.iter().enumerate())
            .map(|(j, d)| (j < offset) || matches!(d.drive, Drive::Motion(_)))
            .collect();
        let joints = insert_joints(&mut world, chain, ground, &bodies, &info, &kinematic);
        let axis = (chain.joint_kinds().iter())
            .map(|kind| match kind {
                JointKind::Revolute => JointAxis::AngX as usize,
                JointKind::Prismatic => JointAxis::LinX as usize,
            })
            .collect();
        let mut sim = Simulation {
            scenario,
            world,
            bodies,
            joints,
            kinematic,
            axis,
            info,
            offset,
            step: 0,
            applied: vec![0.0; nj],
            bristle: vec![0.0; nj],
            delivered: vec![0.0; nj],
            step_current: vec![0.0; nj],
            current: vec![0.0; nj],
            armature: (scenario.drives.iter())
                .zip(Self::coupled_diagonal(scenario))
                .map(|(d, c)| d.transmission.armature() + c)
                .collect(),
            coupled: !scenario.coupled.is_empty(),
            coupled_diagonal: Self::coupled_diagonal(scenario),
            coupled_inertia: vec![0.0; nj],
            friction_state: scenario
                .drives
                .iter()
                .any(|d| d.friction.as_ref().is_some_and(|f| f.has_state())),
            motor_side: vec![Default::default(); nj],
            elastic: scenario
                .drives
                .iter()
                .any(|d| d.transmission.elastic().is_some()),
            constraint_load: vec![0.0; nj],
            constraint_loads: (scenario.drives.iter()).any(|d| d.terms.need_constraint_load()),
            buffers: Default::default(),
            step_buffers: Default::default(),
        };
        sim.set_state(&q, &qd);
        sim.preload_springs(&q, &qd);
        let mut buffers = std::mem::take(&mut sim.step_buffers);
        sim.update_constraint_loads(None, &mut buffers);
        sim.step_buffers = buffers;
        sim
    }

    /// Starts every elastic joint's rotor where its spring holds the link's static load at
    /// `(q, q̇)`: `RNEA(q, q̇, 0)` (`sim::elastic`).
    fn preload_springs(&mut self, q: &[f64], qd: &[f64]) {
        if !self.elastic {
            return;
        }
        let zero = vec![0.0; q.len()];
        let load = dynamics::rnea(self.chain(), q, qd, &zero, &self.chain().gravity_vector()).tau;
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if let Some((spring, _)) = d.transmission.elastic() {
                self.motor_side[j] = spring.preloaded(q[j], qd[j], load[j]);
            }
        }
    }

    /// Puts the multibody and its bodies at the joint state `(q, q̇)` (dataset order), with
    /// Rapier's default joint damping removed and the rotors' armature set.
    fn set_state(&mut self, q: &[f64], qd: &[f64]) {
        let (now, _) = self.joint_state();
        let (mb, _) = self
            .world
            .multibody_joints
            .get(self.joints[0])
            .expect("joint");
        let mut displacement = vec![0.0; mb.ndofs()];
        let mut velocity = vec![0.0; mb.ndofs()];
        let mut dofs = Vec::with_capacity(self.joints.len());
        for (j, h) in self.joints.iter().enumerate() {
            let (mb, id) = self.world.multibody_joints.get(*h).expect("joint");
            let dof = mb.link(id).expect("link").assembly_id();
            displacement[dof] = q[j] - now[j];
            velocity[dof] = qd[j];
            dofs.push(dof);
        }
        let (mb, _) = (self.world.multibody_joints)
            .get_mut(self.joints[0])
            .expect("joint");
        mb.damping_mut().fill(0.0);
        // The rotors' reflected inertias (sim::rotor), on the joints' own degrees of freedom.
        for (a, dof) in self.armature.iter().zip(&dofs) {
            mb.armature_mut()[*dof] = *a;
        }
        mb.apply_displacements(&displacement);
        mb.generalized_velocity_mut()
            .copy_from_slice(velocity.as_slice());
        mb.forward_kinematics(&self.world.bodies, false);
        mb.update_rigid_bodies(&mut self.world.bodies, false);
        let motion = dynamics::kinematics(self.chain(), q, qd, &vec![0.0; q.len()]);
        for (h, m) in self.bodies.iter().zip(&motion) {
            let rb = &mut self.world.bodies[*h];
            rb.set_linvel(vec_to(&m.vel), true);
            rb.set_angvel(vec_to(&m.omega), true);
        }
    }
}

/// The joint state at `t = 0` (dataset order): a stated start, else profiles and servo
/// references there (a position servo's where its delayed command is), the other joints at rest
/// at 0. A kinematic joint's rate in Rapier is the secant of the step that ends
/// at the sample: prescribed joints start with the one of the step before `t = 0`.
fn initial_state(scenario: &Scenario) -> (Vec<f64>, Vec<f64>) {
    let nj = scenario.drives.len();
    let (mut q, mut qd) = (vec![0.0; nj], vec![0.0; nj]);
    for (k, d) in scenario.drives.iter().enumerate() {
        match &d.drive {
            Drive::Motion(p) => {
                q[k] = p.eval(0.0).q;
                qd[k] = (q[k] - p.eval(-scenario.dt()).q) / scenario.dt();
            }
            Drive::Servo(Servo {
                reference: p,
                control,
            }) => {
                let s = match control {
                    Control::PositionServo(servo) => p.eval(servo.commanded_at(0.0)),
                    _ => p.eval(0.0),
                };
                (q[k], qd[k]) = (s.q, s.qd);
            }
            Drive::Torque(_) | Drive::Free => {}
        }
        if let Some(s) = d.start {
            (q[k], qd[k]) = (s.q, s.qd);
        }
    }
    (q, qd)
}

/// Inserts the chain's joints as one multibody rooted at `ground` (dataset order; the rail to a
/// carriage body first where there is one), each with its frames at the zero configuration and
/// its free axis along the joint's `x`. `kinematic` marks the prescribed ones.
fn insert_joints(
    world: &mut PhysicsWorld,
    chain: &Chain,
    ground: RigidBodyHandle,
    bodies: &[RigidBodyHandle],
    info: &[BodyInfo],
    kinematic: &[bool],
) -> Vec<MultibodyJointHandle> {
    let mut joints = Vec::with_capacity(kinematic.len());
    let mut insert = |world: &mut PhysicsWorld, parent, child, joint: GenericJoint, j: usize| {
        let set = &mut world.multibody_joints;
        let handle = if kinematic[j] {
            set.insert_kinematic(parent, child, joint, true)
        } else {
            set.insert(parent, child, joint, true)
        };
        joints.push(handle.expect("a serial chain is a valid multibody"));
    };
    let mut root = ground;
    if let Some(axis) = chain.rail_axis() {
        // The carriage's mass never matters: the rail is always prescribed (kinematic), and a
        // kinematic degree of freedom's own row drops out of Rapier's dynamics.
        let carriage = world.bodies.insert(
            RigidBodyBuilder::dynamic()
                .additional_mass_properties(MassProperties::new(Vector::ZERO, 1.0, Vector::ONE))
                .can_sleep(false),
        );
        let frame = joint_frame(&Vector3::zeros(), &axis);
        let joint = joint_between(JointKind::Prismatic, frame, frame);
        insert(world, ground, carriage, joint, 0);
        root = carriage;
    }
    let offset = kinematic.len() - chain.len();
    let body_zero =
        |i: usize| Isometry3::from_parts(Translation3::from(info[i].centroid0), info[i].rot0);
    for (k, link) in chain.links.iter().enumerate() {
        let frame = joint_frame(&link.joint.anchor().coords, &link.joint.axis());
        let parent_zero = if k == 0 {
            Isometry3::identity()
        } else {
            body_zero(k - 1)
        };
        let joint = joint_between(
            link.joint.kind,
            parent_zero.inverse() * frame,
            body_zero(k).inverse() * frame,
        );
        let parent = if k == 0 { root } else { bodies[k - 1] };
        insert(world, parent, bodies[k], joint, k + offset);
    }
    joints
}

/// The joint frame at the zero configuration: origin at `anchor`, `x` along `axis` (world).
fn joint_frame(anchor: &Vector3<f64>, axis: &nalgebra::Unit<Vector3<f64>>) -> Isometry3<f64> {
    let rot =
        UnitQuaternion::rotation_between_axis(&Vector3::x_axis(), axis).unwrap_or_else(|| {
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI)
        });
    Isometry3::from_parts(Translation3::from(*anchor), rot)
}

/// A revolute or prismatic joint with its frames in the parent's (`local1`) and the child's
/// (`local2`) body frames.
fn joint_between(kind: JointKind, local1: Isometry3<f64>, local2: Isometry3<f64>) -> GenericJoint {
    let pose = |iso: Isometry3<f64>| {
        Pose::from_parts(vec_to(&iso.translation.vector), rot_to(&iso.rotation))
    };
    let locked = match kind {
        JointKind::Revolute => JointAxesMask::LOCKED_REVOLUTE_AXES,
        JointKind::Prismatic => JointAxesMask::LOCKED_PRISMATIC_AXES,
    };
    GenericJointBuilder::new(locked)
        .local_frame1(pose(local1))
        .local_frame2(pose(local2))
        .contacts_enabled(false)
        .build()
}
