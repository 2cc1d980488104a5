//! One integrator step: the prescribed joints' rates, the actuator, friction and coupling
//! loads on the dynamic ones, then Rapier's step.

use ::nalgebra::{Unit, Vector3};

use super::buffers::StepBuffers;
use super::{Simulation, State, joint_friction};
use crate::convert::vec_to;
use crate::drive::{Control, Drive, Servo};
use crate::dynamics::{self, InverseDynamics};
use crate::model::JointKind;

impl Simulation<'_> {
    /// Sets the prescribed joints' rates and all applied loads for the step that starts now,
    /// then steps the world.
    pub fn advance(&mut self) {
        let mut b = std::mem::take(&mut self.step_buffers);
        self.advance_in(&mut b);
        self.step_buffers = b;
    }

    fn advance_in(&mut self, b: &mut StepBuffers) {
        let (t, t_next) = (self.time(self.step), self.time(self.step + 1));
        self.states_into(&mut b.states);
        self.joint_state_into(&mut b.q, &mut b.qd);
        for h in &self.bodies {
            let rb = &mut self.world.bodies[*h];
            rb.reset_forces(false);
            rb.reset_torques(false);
        }
        let mut applied = std::mem::take(&mut self.applied);
        if self.elastic {
            self.servo_state(b);
            let (q, qd) = (&b.q_servo, &b.qd_servo);
            self.servo_torques_into(t, q, qd, &mut b.model_qdd, &mut b.rnea, &mut applied);
        } else {
            let (q, qd) = (&b.q, &b.qd);
            self.servo_torques_into(t, q, qd, &mut b.model_qdd, &mut b.rnea, &mut applied);
        }
        self.applied = applied;
        self.set_motor_torques(&b.qd);
        self.drive_kinematic(t_next, &b.q, &b.qd, &mut b.rate_change);
        self.kinematic_coupling(b);
        let mut loads = std::mem::take(&mut b.loads);
        loads.clear();
        for (j, d) in self.scenario.drives.iter().enumerate() {
            let (q, qd) = (b.q[j], b.qd[j]);
            loads.push(if self.kinematic[j] {
                0.0
            } else {
                let friction =
                    joint_friction(d, t, q, qd, self.bristle[j], self.constraint_load[j]);
                friction + self.link_torque(j, self.motor_side[j], q, qd) + b.coupling[j]
            });
        }
        if self.coupled {
            self.set_coupled_loads(&b.q, &b.qd, &mut loads);
        }
        for (j, load) in loads.iter().enumerate() {
            if !self.kinematic[j] && *load != 0.0 {
                self.apply_joint_load(j - self.offset, *load, &b.states);
            }
        }
        b.loads = loads;
        self.world.step();
        if self.friction_state || self.elastic {
            self.joint_state_into(&mut b.q_after, &mut b.qd_after);
        }
        if self.friction_state {
            self.advance_friction_state(t, &b.qd, &b.qd_after);
        }
        if self.elastic {
            self.advance_rotors(&b.q_after, &b.qd_after);
        }
        self.advance_currents();
        self.step += 1;
        let qd_before = std::mem::take(&mut b.qd);
        self.update_constraint_loads(Some(&qd_before), b);
        b.qd = qd_before;
    }

    /// The state the servos read, into `b.q_servo`, `b.qd_servo`: the motor side of elastic
    /// joints (their motor encoders), the link's (`b.q`, `b.qd`) elsewhere.
    fn servo_state(&self, b: &mut StepBuffers) {
        b.q_servo.clone_from(&b.q);
        b.qd_servo.clone_from(&b.qd);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if d.transmission.elastic().is_some() {
                let m = self.motor_side[j];
                (b.q_servo[j], b.qd_servo[j]) = (m.position, m.velocity);
            }
        }
    }

    /// Sets every kinematic joint's rate so that it lands on its profile at `t_next`
    /// (deadbeat; a rail without a profile stays put) and returns the rates' change over the
    /// step divided by the step, dataset order (0 for dynamic joints).
    fn drive_kinematic(&mut self, t_next: f64, q: &[f64], qd: &[f64], change: &mut Vec<f64>) {
        let dt = self.scenario.dt();
        change.clear();
        change.resize(q.len(), 0.0);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if !self.kinematic[j] {
                continue;
            }
            let target = match &d.drive {
                Drive::Motion(p) => p.eval(t_next).q,
                _ => q[j],
            };
            let rate = (target - q[j]) / dt;
            change[j] = (rate - qd[j]) / dt;
            let (mb, id) = (self.world.multibody_joints)
                .get_mut(self.joints[j])
                .expect("joint");
            let dof = mb.link(id).expect("link").assembly_id();
            mb.generalized_velocity_mut()[dof] = rate;
        }
    }

    /// The inertial coupling `−M_UK q̈_K` on the dynamic joints of a step in which the
    /// kinematic ones change their rates by `q̈_K · dt` (dataset order; 0 on kinematic joints),
    /// into `b.coupling`, at the step's start `b.q` with `q̈_K = b.rate_change`: Rapier sets
    /// kinematic rates without passing their acceleration on.
    fn kinematic_coupling(&self, b: &mut StepBuffers) {
        let (q, qdd_kinematic) = (&b.q, &b.rate_change);
        let nj = q.len();
        b.coupling.clear();
        b.coupling.resize(nj, 0.0);
        let mixed = self.kinematic.iter().any(|k| !k) && qdd_kinematic.iter().any(|a| *a != 0.0);
        if !mixed {
            return;
        }
        b.zero.clear();
        b.zero.resize(nj, 0.0);
        let g = Vector3::zeros();
        dynamics::rnea_into(self.chain(), q, &b.zero, qdd_kinematic, &g, &mut b.rnea);
        for j in 0..nj {
            if !self.kinematic[j] {
                b.coupling[j] = -b.rnea.tau[j];
            }
        }
    }

    /// Link `k`'s joint axis, world, from Rapier's body poses.
    fn joint_axis(&self, states: &[State], k: usize) -> Unit<Vector3<f64>> {
        let axis0 = self.chain().links[k].joint.axis();
        if k == 0 {
            return axis0;
        }
        let parent = &states[k - 1];
        Unit::new_unchecked(parent.rot * (self.info[k - 1].rot0.inverse() * axis0.into_inner()))
    }

    /// The actuator force of every torque-signal and servo joint at time `t`, from the joint
    /// state `(q, q̇)` at the start of the step.
    /// The actuator force of every torque-signal and servo joint at time `t`, from the joint
    /// state `(q, q̇)` at the start of the step, into `out` (`qdd`, `id`: the computed-torque
    /// model's scratch).
    fn servo_torques_into(
        &self,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut Vec<f64>,
        id: &mut InverseDynamics,
        out: &mut Vec<f64>,
    ) {
        let drives = &self.scenario.drives;
        let error = |p: &crate::profile::Profile, j: usize| {
            let r = p.eval(t);
            (r, r.q - q[j], r.qd - qd[j])
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
        if computed_torque {
            qdd.clear();
            qdd.extend(drives.iter().enumerate().map(|(j, d)| match &d.drive {
                Drive::Motion(p) => p.eval(t).qdd,
                Drive::Servo(Servo {
                    reference,
                    control: Control::ComputedTorque { kp, kd },
                }) => {
                    let (r, e, ed) = error(reference, j);
                    r.qdd + kp * e + kd * ed
                }
                _ => 0.0,
            }));
            dynamics::rnea_into(self.chain(), q, qd, qdd, &self.chain().gravity_vector(), id);
        }
        out.clear();
        out.extend(drives.iter().enumerate().map(|(j, d)| match &d.drive {
            Drive::Torque(s) => s.eval(t),
            Drive::Servo(Servo { reference, control }) => {
                let (_, e, ed) = error(reference, j);
                match *control {
                    Control::Pd { kp, kd } => kp * e + kd * ed,
                    Control::ComputedTorque { .. } => id.tau[j],
                    Control::PiVelocity { kp, ki } => d.gain * (kp * ed + ki * e),
                    Control::PositionServo(s) => {
                        let command = reference.command(s.commanded_at(t), self.scenario.dt());
                        s.torque(command - q[j], qd[j])
                    }
                }
            }
            Drive::Motion(_) | Drive::Free => 0.0,
        }));
    }

    /// Applies a generalized force on link `k`'s joint as equal and opposite loads on the
    /// joint's two bodies (on link 1 alone for the first joint: its parent is the ground or
    /// the prescribed carriage).
    fn apply_joint_load(&mut self, k: usize, load: f64, states: &[State]) {
        let kind = self.chain().links[k].joint.kind;
        let axis = self.joint_axis(states, k);
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
}
