//! One output sample: Rapier's state read, every other column evaluated from the continuous-time
//! dynamics at that state ([`crate::readout`]), and Rapier's discrete world measured against it.

use ::nalgebra::{Rotation3, UnitQuaternion, Vector3};

use super::consistency::Meter;
use super::{Simulation, joint_friction};
use crate::drive::Drive;
use crate::dynamics;
use crate::kinematics::{cardan_angles, cardan_rates, unwrap_angle};
use crate::readout::{self, Known, Readout};
use crate::recording::{BodyRecord, JointRecord};
use crate::wrench::{self, BodyStep};

impl Simulation<'_> {
    /// Records the current sample: Rapier's joint state now, the readings at it, the step that
    /// starts now taken (its actuator forces are the recorded ones). `previous` holds the last
    /// sample's Cardan angles, for unwrapping. `Err` names why the readings cannot be evaluated
    /// at the engine's state (the run stops there).
    pub(super) fn sample(
        &mut self,
        previous: Option<&Vec<Vector3<f64>>>,
        meter: &mut Meter,
    ) -> Result<(Vec<BodyRecord>, Vec<JointRecord>), String> {
        let dt = self.scenario.dt();
        let t = self.time(self.step);
        let before = self.states();
        let (q, rapier_qd) = self.joint_state();
        let bristle = self.bristle.clone();
        let load = self.constraint_load.clone();
        let motor_side = self.motor_side.clone();
        self.advance();
        // What reached each link over the step just taken: the spring's torque at the step's
        // start on elastic joints, the motor's delivered torque elsewhere.
        let link_torque: Vec<f64> = (0..q.len())
            .map(|j| self.link_torque(j, motor_side[j], q[j], rapier_qd[j]))
            .collect();
        let (q_after, qd_after) = self.joint_state();

        // A kinematic joint's rate in Rapier is the secant of the step just taken, not a state:
        // prescribed joints record their profile's rate (Rapier's coordinate lands on the
        // profile; checks.max_tracking_error states how closely).
        let qd: Vec<f64> = (self.scenario.drives.iter().enumerate())
            .map(|(j, d)| match &d.drive {
                Drive::Motion(p) => p.eval(t).qd,
                _ if self.kinematic[j] => 0.0,
                _ => rapier_qd[j],
            })
            .collect();
        let friction: Vec<f64> = (self.scenario.drives.iter().enumerate())
            .map(|(j, d)| joint_friction(d, t, q[j], qd[j], bristle[j], load[j]))
            .collect();
        let known = self.known(t, &friction, &link_torque);
        let readout = readout::evaluate(
            self.chain(),
            &q,
            &qd,
            &known,
            &self.armature,
            &crate::gravity_vector(),
        )
        .map_err(|e| {
            let finite = q.iter().chain(&qd).all(|v| v.is_finite());
            let why = if finite {
                ""
            } else {
                " (the engine's state is not finite)"
            };
            format!("{e}{why}")
        })?;

        let bodies = self.body_records(&readout, previous, &before);
        for (k, b) in bodies.iter().enumerate() {
            meter.pose(&before[k].pos, &before[k].rot, &b.pos, &b.quat);
        }
        // Dynamic joints only: the kinematic ones' rates are set, not integrated.
        let discrete_qdd: Vec<f64> = (0..q.len())
            .map(|j| {
                if self.kinematic[j] {
                    readout.qdd[j]
                } else {
                    (qd_after[j] - qd[j]) / dt
                }
            })
            .collect();
        meter.accelerations(&self.chain().joint_kinds(), &discrete_qdd, &readout.qdd);
        let discrete = self.discrete_wrenches(&before, [(&q, &rapier_qd), (&q_after, &qd_after)]);
        meter.wrenches(&discrete, &readout.dynamics.wrenches);

        let joints = (self.scenario.drives.iter().enumerate())
            .map(|(j, d)| {
                // The rotor's share of the motor's torque (sim::rotor): `tau` is what reaches
                // the link, the current measures the motor (written so that a joint without a
                // rotor records exactly what it did before rotors existed).
                let tau = match &d.drive {
                    Drive::Motion(_) => readout.dynamics.tau[j] - friction[j],
                    Drive::Torque(_) | Drive::Servo(_) => link_torque[j],
                    Drive::Free => 0.0,
                };
                let (tau, motor) = if d.transmission.elastic().is_some() {
                    // The spring passes `tau` to the link; the motor gives its own torque.
                    (tau, self.delivered[j])
                } else if d.transmission.armature() == 0.0 {
                    (tau, tau)
                } else {
                    let rotor = d.transmission.armature() * readout.qdd[j];
                    match &d.drive {
                        Drive::Motion(_) => (tau, tau + rotor),
                        _ => (tau - rotor, tau),
                    }
                };
                JointRecord {
                    q: q[j],
                    qd: qd[j],
                    qdd: readout.qdd[j],
                    tau,
                    tau_friction: friction[j],
                    current: match (&d.drive, d.motor) {
                        (_, None) => motor / d.gain,
                        (Drive::Motion(_), Some(m)) => {
                            m.behind_gear(motor, qd[j]) / m.torque_constant(d.gain)
                        }
                        (_, Some(_)) => self.step_current[j],
                    },
                    bristle_z: bristle[j],
                    q_motor: motor_side[j].position,
                    qd_motor: motor_side[j].velocity,
                }
            })
            .collect();
        Ok((bodies, joints))
    }

    /// What is known of every joint over the step that starts at `t`: the profile's
    /// acceleration of prescribed joints (the rail carriage, when it has no profile, stays put),
    /// the applied actuator (`link_torque`: what reaches each link) plus friction force of the
    /// others.
    fn known(&self, t: f64, friction: &[f64], link_torque: &[f64]) -> Vec<Known> {
        let rail = self.chain().rail_axis().is_some();
        (self.scenario.drives.iter().enumerate())
            .map(|(j, d)| match &d.drive {
                Drive::Motion(p) => Known::Acceleration(p.eval(t).qdd),
                _ if rail && j == 0 => Known::Acceleration(0.0),
                Drive::Torque(_) | Drive::Servo(_) => Known::Force(link_torque[j] + friction[j]),
                Drive::Free => Known::Force(friction[j]),
            })
            .collect()
    }

    /// The body columns from the readings; quaternion signs follow Rapier's (continuous) ones.
    fn body_records(
        &self,
        readout: &Readout,
        previous: Option<&Vec<Vector3<f64>>>,
        rapier: &[super::State],
    ) -> Vec<BodyRecord> {
        let id = &readout.dynamics;
        (id.bodies.iter().zip(&id.wrenches).enumerate())
            .map(|(k, (b, w))| {
                let r: Rotation3<f64> = b.rotation;
                let mut quat = UnitQuaternion::from_rotation_matrix(&r);
                if quat.coords.dot(&rapier[k].rot.coords) < 0.0 {
                    quat = UnitQuaternion::new_unchecked(-quat.into_inner());
                }
                let mut euler = cardan_angles(&r);
                if let Some(prev) = previous {
                    euler[0] = unwrap_angle(euler[0], prev[k][0]);
                    euler[2] = unwrap_angle(euler[2], prev[k][2]);
                }
                let omega = r.inverse() * b.omega;
                let omega_dot = r.inverse() * b.omega_dot;
                let nan = Vector3::repeat(f64::NAN);
                let (euler_d, euler_dd) =
                    cardan_rates(&euler, &omega, &omega_dot).unwrap_or((nan, nan));
                BodyRecord {
                    pos: b.centroid,
                    quat,
                    euler,
                    euler_d,
                    euler_dd,
                    vel: b.vel,
                    acc: b.acc,
                    omega,
                    omega_dot,
                    force: w.force,
                    moment: w.moment,
                    joint_point: b.joint_point,
                }
            })
            .collect()
    }

    /// The joint wrenches of Rapier's discrete world over the step just taken, recovered from
    /// the bodies' velocity changes ([`wrench::recover`]): first order in the step, a
    /// cross-check of the readings. `before` holds Rapier's body poses at the start of the
    /// step, `joint_states` Rapier's generalized coordinates and rates at both ends: the body
    /// velocities follow from those (Rapier refreshes a body's own velocity from the
    /// generalized rates only at the start of the next step).
    fn discrete_wrenches(
        &self,
        before: &[super::State],
        joint_states: [(&[f64], &[f64]); 2],
    ) -> Vec<wrench::JointWrench> {
        let [m0, m1] = joint_states
            .map(|(q, qd)| dynamics::kinematics(self.chain(), q, qd, &vec![0.0; q.len()]));
        let steps: Vec<BodyStep> = (0..self.bodies.len())
            .map(|k| {
                let s0 = &before[k];
                let r = s0.rot.to_rotation_matrix();
                BodyStep {
                    mass: self.info[k].mass,
                    inertia_world: r.matrix() * self.info[k].inertia * r.matrix().transpose(),
                    centroid: s0.pos,
                    joint_point: self.info[k].joint_point(s0),
                    v: [m0[k].vel, m1[k].vel],
                    omega: [m0[k].omega, m1[k].omega],
                    external_force: Vector3::zeros(),
                    external_torque: Vector3::zeros(),
                }
            })
            .collect();
        wrench::recover(&steps, self.scenario.dt(), &crate::gravity_vector())
    }
}
