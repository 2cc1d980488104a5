//! One integrator step: the prescribed joints' rates, the actuator, friction and coupling
//! loads on the dynamic ones, then Rapier's step.

use ::nalgebra::{Unit, Vector3};

use super::{Simulation, State, joint_friction};
use crate::convert::vec_to;
use crate::drive::{Control, Drive, Servo};
use crate::dynamics;
use crate::model::JointKind;

impl Simulation<'_> {
    /// Sets the prescribed joints' rates and all applied loads for the step that starts now,
    /// then steps the world.
    pub fn advance(&mut self) {
        let (t, t_next) = (self.time(self.step), self.time(self.step + 1));
        let states = self.states();
        let (q, qd) = self.joint_state();
        for h in &self.bodies {
            let rb = &mut self.world.bodies[*h];
            rb.reset_forces(false);
            rb.reset_torques(false);
        }
        self.applied = if self.elastic {
            let (q_servo, qd_servo) = self.servo_state(&q, &qd);
            self.servo_torques(t, &q_servo, &qd_servo)
        } else {
            self.servo_torques(t, &q, &qd)
        };
        self.set_motor_torques(&qd);
        let rate_change = self.drive_kinematic(t_next, &q, &qd);
        let coupling = self.kinematic_coupling(&q, &rate_change);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if self.kinematic[j] {
                continue;
            }
            let friction =
                joint_friction(d, t, q[j], qd[j], self.bristle[j], self.constraint_load[j]);
            let load =
                friction + self.link_torque(j, self.motor_side[j], q[j], qd[j]) + coupling[j];
            if load != 0.0 {
                self.apply_joint_load(j - self.offset, load, &states);
            }
        }
        self.world.step();
        if self.friction_state {
            let (_, qd_after) = self.joint_state();
            self.advance_friction_state(t, &qd, &qd_after);
        }
        if self.elastic {
            self.advance_rotors();
        }
        self.advance_currents();
        self.step += 1;
        self.update_constraint_loads(Some(&qd));
    }

    /// The state the servos read: the motor side of elastic joints (their motor encoders),
    /// the link's elsewhere.
    fn servo_state(&self, q: &[f64], qd: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (mut q, mut qd) = (q.to_vec(), qd.to_vec());
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if d.transmission.elastic().is_some() {
                (q[j], qd[j]) = (self.motor_side[j].position, self.motor_side[j].velocity);
            }
        }
        (q, qd)
    }

    /// Sets every kinematic joint's rate so that it lands on its profile at `t_next`
    /// (deadbeat; a rail without a profile stays put) and returns the rates' change over the
    /// step divided by the step, dataset order (0 for dynamic joints).
    fn drive_kinematic(&mut self, t_next: f64, q: &[f64], qd: &[f64]) -> Vec<f64> {
        let dt = self.scenario.dt();
        let mut change = vec![0.0; q.len()];
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
        change
    }

    /// The inertial coupling `−M_UK q̈_K` on the dynamic joints of a step in which the
    /// kinematic ones change their rates by `q̈_K · dt` (dataset order; 0 on kinematic joints):
    /// Rapier sets kinematic rates without passing their acceleration on.
    fn kinematic_coupling(&self, q: &[f64], qdd_kinematic: &[f64]) -> Vec<f64> {
        let nj = q.len();
        let mixed = self.kinematic.iter().any(|k| !k) && qdd_kinematic.iter().any(|a| *a != 0.0);
        if !mixed {
            return vec![0.0; nj];
        }
        let zero = vec![0.0; nj];
        let m_a = dynamics::rnea(self.chain(), q, &zero, qdd_kinematic, &Vector3::zeros()).tau;
        (0..nj)
            .map(|j| if self.kinematic[j] { 0.0 } else { -m_a[j] })
            .collect()
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
    fn servo_torques(&self, t: f64, q: &[f64], qd: &[f64]) -> Vec<f64> {
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
            dynamics::rnea(self.chain(), q, qd, &qdd, &crate::gravity_vector()).tau
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
