//! One output sample: Rapier's state read, every other column evaluated from the continuous-time
//! dynamics at that state ([`crate::readout`]), and Rapier's discrete world measured against it.

use ::nalgebra::{Rotation3, UnitQuaternion, Vector3};

use super::buffers::SampleBuffers;
use super::consistency::Meter;
use super::{Simulation, joint_friction};
use crate::drive::Drive;
use crate::dynamics;
use crate::kinematics::{cardan_angles, cardan_rates, unwrap_angle};
use crate::profile::MotionState;
use crate::readout::{self, Known, Readout};
use crate::recording::{BodyRecord, JointRecord, Recording};
use crate::residuals::ResidualSum;
use crate::wrench::{self, BodyStep};

impl Simulation<'_> {
    /// Records the current sample into `rec`: Rapier's joint state now, the readings at it, the
    /// step that starts now taken (its actuator forces are the recorded ones). The last sample
    /// of `rec` gives the Cardan angles to unwrap against. `Err` names why the readings cannot
    /// be evaluated at the engine's state (the run stops there; nothing is recorded). Works in
    /// the simulation's [`SampleBuffers`]: no allocation after the first sample.
    pub(super) fn sample(
        &mut self,
        rec: &mut Recording,
        meter: &mut Meter,
        residuals: &mut ResidualSum,
    ) -> Result<(), Unreadable> {
        let mut b = std::mem::take(&mut self.buffers);
        let result = self.sample_in(&mut b, rec, meter, residuals);
        self.buffers = b;
        result
    }

    fn sample_in(
        &mut self,
        b: &mut SampleBuffers,
        rec: &mut Recording,
        meter: &mut Meter,
        residuals: &mut ResidualSum,
    ) -> Result<(), Unreadable> {
        let dt = self.scenario.dt();
        let t = self.time(self.step);
        self.states_into(&mut b.before);
        self.joint_state_into(&mut b.q, &mut b.rapier_qd);
        b.bristle.clone_from(&self.bristle);
        b.load.clone_from(&self.constraint_load);
        b.motor_side.clone_from(&self.motor_side);
        self.advance();
        // What reached each link over the step just taken: the spring's torque at the step's
        // start on elastic joints, the motor's delivered torque elsewhere.
        let (q, rapier_qd, motor_side) = (&b.q, &b.rapier_qd, &b.motor_side);
        b.link_torque.clear();
        b.link_torque
            .extend((0..q.len()).map(|j| self.link_torque(j, motor_side[j], q[j], rapier_qd[j])));
        self.joint_state_into(&mut b.q_after, &mut b.qd_after);

        // A kinematic joint's rate in Rapier is the secant of the step just taken, not a state:
        // prescribed joints record their profile's rate (Rapier's coordinate lands on the
        // profile; checks.max_tracking_error states how closely).
        b.reference.clear();
        b.reference
            .extend(self.scenario.drives.iter().map(|d| match &d.drive {
                Drive::Motion(p) => p.eval(t),
                _ => MotionState::default(),
            }));
        b.qd.clear();
        b.qd.extend(
            (self.scenario.drives.iter().enumerate()).map(|(j, d)| match &d.drive {
                Drive::Motion(_) => b.reference[j].qd,
                _ if self.kinematic[j] => 0.0,
                _ => rapier_qd[j],
            }),
        );
        b.friction.clear();
        b.friction.extend(
            (self.scenario.drives.iter().enumerate())
                .map(|(j, d)| joint_friction(d, t, q[j], b.qd[j], b.bristle[j], b.load[j])),
        );
        if self.coupled {
            // The coupled drives' friction is friction; their off-diagonal inertial load of the
            // step just taken reached the link with the actuator's torque (`coupled.rs`).
            for j in 0..b.friction.len() {
                b.friction[j] += self.coupled_friction(j, &b.qd);
                b.link_torque[j] += self.coupled_inertia[j];
            }
        }
        self.known_into(b);
        let q = &b.q;
        readout::evaluate_into(
            self.chain(),
            q,
            &b.qd,
            &b.known,
            &self.armature,
            &self.chain().gravity_vector(),
            &mut b.readout,
        )
        .map_err(|source| Unreadable {
            source,
            finite: q.iter().chain(&b.qd).all(|v| v.is_finite()),
        })?;

        let first_body = rec.bodies.len();
        self.push_body_records(&b.readout.readout, &b.before, rec);
        for (k, body) in rec.bodies[first_body..].iter().enumerate() {
            meter.pose(&b.before[k].pos, &b.before[k].rot, &body.pos, &body.quat);
        }
        let readout = &b.readout.readout;
        // Dynamic joints only: the kinematic ones' rates are set, not integrated.
        b.discrete_qdd.clear();
        b.discrete_qdd.extend((0..q.len()).map(|j| {
            if self.kinematic[j] {
                readout.qdd[j]
            } else {
                (b.qd_after[j] - b.qd[j]) / dt
            }
        }));
        meter.accelerations(&b.discrete_qdd, &readout.qdd);
        self.discrete_wrenches(b);
        let readout = &b.readout.readout;
        meter.wrenches(&b.discrete.wrenches, &readout.dynamics.wrenches);
        let first_joint = rec.joints.len();
        self.push_joint_records(t, b, rec);
        add_residuals(b, &rec.joints[first_joint..], residuals);
        Ok(())
    }

    /// The joint columns of the sample at time `t` (s) into `rec`.
    fn push_joint_records(&self, t: f64, b: &SampleBuffers, rec: &mut Recording) {
        let readout = &b.readout.readout;
        for (j, d) in self.scenario.drives.iter().enumerate() {
            // The rotor's share of the motor's torque (sim::rotor): `tau` is what reaches
            // the link, the current measures the motor (written so that a joint without a
            // rotor records exactly what it did before rotors existed).
            let tau = match &d.drive {
                Drive::Motion(_) => readout.dynamics.tau[j] - b.friction[j],
                // The coupled drives' rotors take their diagonal share (`coupled.rs`).
                Drive::Torque(_) | Drive::Servo(_) => {
                    b.link_torque[j] - self.coupled_diagonal[j] * readout.qdd[j]
                }
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
            let qd = b.qd[j];
            rec.joints.push(JointRecord {
                q: b.q[j],
                qd,
                qdd: readout.qdd[j],
                tau,
                tau_friction: b.friction[j],
                current: match (&d.drive, d.motor) {
                    (_, None) => motor / d.gain,
                    (Drive::Motion(_), Some(m)) => {
                        m.behind_gear(motor, qd) / m.torque_constant(d.gain)
                    }
                    (_, Some(_)) => self.step_current[j],
                },
                bristle_z: b.bristle[j],
                q_motor: b.motor_side[j].position,
                qd_motor: b.motor_side[j].velocity,
                q_cmd: match &d.drive {
                    Drive::Motion(_) => b.reference[j].q,
                    Drive::Servo(s) => s.reference.eval(t).q,
                    Drive::Torque(_) | Drive::Free => f64::NAN,
                },
            });
        }
    }

    /// What is known of every joint over the step that starts at the sample, into `b.known`:
    /// the profile's acceleration of prescribed joints (the rail carriage, when it has no
    /// profile, stays put), the applied actuator (`b.link_torque`: what reaches each link) plus
    /// friction force (`b.friction`) of the others.
    fn known_into(&self, b: &mut SampleBuffers) {
        let rail = self.chain().rail_axis().is_some();
        let (friction, link_torque) = (&b.friction, &b.link_torque);
        b.known.clear();
        b.known.extend(
            (self.scenario.drives.iter().enumerate()).map(|(j, d)| match &d.drive {
                Drive::Motion(_) => Known::Acceleration(b.reference[j].qdd),
                _ if rail && j == 0 => Known::Acceleration(0.0),
                Drive::Torque(_) | Drive::Servo(_) => Known::Force(link_torque[j] + friction[j]),
                Drive::Free => Known::Force(friction[j]),
            }),
        );
    }

    /// The body columns from the readings into `rec`; quaternion signs follow Rapier's
    /// (continuous) ones, Cardan angles are unwrapped against `rec`'s last sample.
    fn push_body_records(&self, readout: &Readout, rapier: &[super::State], rec: &mut Recording) {
        let id = &readout.dynamics;
        let n = id.bodies.len();
        let previous = rec.bodies.len().checked_sub(n);
        for (k, (b, w)) in id.bodies.iter().zip(&id.wrenches).enumerate() {
            let r: Rotation3<f64> = b.rotation;
            let mut quat = UnitQuaternion::from_rotation_matrix(&r);
            if quat.coords.dot(&rapier[k].rot.coords) < 0.0 {
                quat = UnitQuaternion::new_unchecked(-quat.into_inner());
            }
            let mut euler = cardan_angles(&r);
            if let Some(first) = previous {
                let prev = rec.bodies[first + k].euler;
                euler[0] = unwrap_angle(euler[0], prev[0]);
                euler[2] = unwrap_angle(euler[2], prev[2]);
            }
            let omega = r.inverse() * b.omega;
            let omega_dot = r.inverse() * b.omega_dot;
            let nan = Vector3::repeat(f64::NAN);
            let (euler_d, euler_dd) =
                cardan_rates(&euler, &omega, &omega_dot).unwrap_or((nan, nan));
            rec.bodies.push(BodyRecord {
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
            });
        }
    }

    /// The joint wrenches of Rapier's discrete world over the step just taken, recovered from
    /// the bodies' velocity changes ([`wrench::recover`]) into `b.discrete.wrenches`: first
    /// order in the step, a cross-check of the readings. `b.before` holds Rapier's body poses at
    /// the start of the step, `b.q`, `b.rapier_qd` and `b.q_after`, `b.qd_after` Rapier's
    /// generalized coordinates and rates at both ends: the body velocities follow from those
    /// (Rapier refreshes a body's own velocity from the generalized rates only at the start of
    /// the next step).
    fn discrete_wrenches(&self, b: &mut SampleBuffers) {
        let chain = self.chain();
        let d = &mut b.discrete;
        d.zero.clear();
        d.zero.resize(b.q.len(), 0.0);
        if same_bits(&d.end_state.0, &b.q) && same_bits(&d.end_state.1, &b.rapier_qd) {
            // The last sample's step ended here: its end is this step's start.
            std::mem::swap(&mut d.start, &mut d.end);
        } else {
            dynamics::kinematics_into(chain, &b.q, &b.rapier_qd, &d.zero, &mut d.start);
        }
        dynamics::kinematics_into(chain, &b.q_after, &b.qd_after, &d.zero, &mut d.end);
        d.end_state.0.clone_from(&b.q_after);
        d.end_state.1.clone_from(&b.qd_after);
        d.steps.clear();
        d.steps.extend((0..self.bodies.len()).map(|k| {
            let s0 = &b.before[k];
            let r = s0.rot.to_rotation_matrix();
            BodyStep {
                mass: self.info[k].mass,
                inertia_world: r.matrix() * self.info[k].inertia * r.matrix().transpose(),
                centroid: s0.pos,
                joint_point: self.info[k].joint_point(s0),
                v: [d.start[k].vel, d.end[k].vel],
                omega: [d.start[k].omega, d.end[k].omega],
                external_force: Vector3::zeros(),
                external_torque: Vector3::zeros(),
            }
        }));
        wrench::recover_into(
            &d.steps,
            self.scenario.dt(),
            &self.chain().gravity_vector(),
            &mut d.wrenches,
        );
    }
}

/// The inverse-dynamics residual `|RNEA(q, q̇, q̈) − (tau + tau_friction)|` of the joints just
/// `recorded` ([`crate::residuals::Residuals`]): the readings' RNEA where the recorded `(q, q̇, q̈)`
/// are its inputs to the bit (then it is the RNEA of the recorded columns), else the RNEA of the
/// recorded columns evaluated anew.
fn add_residuals(b: &mut SampleBuffers, recorded: &[JointRecord], residuals: &mut ResidualSum) {
    b.applied.clear();
    b.applied
        .extend(recorded.iter().map(|r| r.tau + r.tau_friction));
    let readout = &b.readout.readout;
    let inputs = |j: usize| [b.q[j], b.qd[j], readout.qdd[j]];
    let evaluated = recorded.len() == b.q.len()
        && (recorded.iter().enumerate()).all(|(j, r)| same_bits(&[r.q, r.qd, r.qdd], &inputs(j)));
    if evaluated {
        residuals.add_evaluated(&readout.dynamics.tau, &b.applied);
    } else {
        let column = |c: fn(&JointRecord) -> f64| recorded.iter().map(c).collect::<Vec<f64>>();
        let (q, qd, qdd) = (column(|r| r.q), column(|r| r.qd), column(|r| r.qdd));
        residuals.add(&q, &qd, &qdd, &b.applied);
    }
}

/// Whether two vectors hold the same numbers to the bit (so that anything computed from one is
/// what the other would give).
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Why the readings cannot be evaluated at the engine's state.
#[derive(Debug)]
pub(super) struct Unreadable {
    /// The readout's failure.
    source: crate::readout::ReadoutError,
    /// Whether the engine's joint state was finite.
    finite: bool,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.source)?;
        if !self.finite {
            f.write_str(" (the engine's state is not finite)")?;
        }
        Ok(())
    }
}

impl std::error::Error for Unreadable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}
