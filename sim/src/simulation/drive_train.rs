//! The drive train over one step: each motor's current and delivered torque through its gear
//! (`sim::motor`), the torque reaching each link (`sim::elastic` springs), and the elastic
//! joints' rotors advanced after the step.

use super::Simulation;
use crate::elastic::MotorSide;

impl Simulation<'_> {
    /// The actuator's torque on joint `j`'s link over the step that starts at `(q, q̇)` with its
    /// rotor at `motor`: the spring's on an elastic joint, the motor's delivered torque elsewhere.
    pub(super) fn link_torque(&self, j: usize, motor: MotorSide, q: f64, qd: f64) -> f64 {
        match self.scenario.drives[j].transmission.elastic() {
            Some((spring, _)) => spring.torque(motor, q, qd),
            None => self.delivered[j],
        }
    }

    /// Advances every elastic joint's rotor over the step just taken under its motor's torque,
    /// against the link's state `(q, qd)` at the step's end (`sim::elastic`).
    pub(super) fn advance_rotors(&mut self, q: &[f64], qd: &[f64]) {
        let dt = self.scenario.dt();
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if let Some((spring, inertia)) = d.transmission.elastic() {
                let m = self.motor_side[j];
                self.motor_side[j] = spring.advance(m, inertia, self.delivered[j], q[j], qd[j], dt);
            }
        }
    }

    /// Sets the torque each actuated joint's motor delivers over the step that starts at the
    /// link rates `qd`: the commanded `applied` where no motor is stated, else `K_true` times
    /// the current at the step's start (the loop starts settled on the first command; without
    /// a loop the current is the command) through the gear.
    pub(super) fn set_motor_torques(&mut self, qd: &[f64]) {
        self.delivered.clone_from(&self.applied);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            let Some(m) = d.motor.filter(|_| !self.kinematic[j]) else {
                continue;
            };
            if self.step == 0 || m.current_bandwidth.is_none() {
                self.current[j] = self.applied[j] / d.gain;
            }
            self.step_current[j] = self.current[j];
            let rate = match d.transmission.elastic() {
                Some(_) => self.motor_side[j].velocity,
                None => qd[j],
            };
            self.delivered[j] = m.through_gear(m.torque_constant(d.gain) * self.current[j], rate);
        }
    }

    /// Advances each motor's current over the step just taken toward its held command.
    pub(super) fn advance_currents(&mut self) {
        let dt = self.scenario.dt();
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if let Some(m) = d.motor.filter(|_| !self.kinematic[j]) {
                self.current[j] = m.advance(self.current[j], self.applied[j] / d.gain, dt);
            }
        }
    }
}
