//! The simulated loop's dynamics at one instant: what the run's drives command of the identified
//! model (their control laws, computed torque with the model in the place of the simulator's),
//! and the accelerations that follow.

use nalgebra::{DMatrix, DVector};
use sim::drive::Control;
use sim::profile::Profile;

use super::arm::Arm;
use super::{ClosedLoop, JointDrive};

/// The state of the simulated loop at one instant.
pub(super) struct Derivative {
    /// Every joint's acceleration (rad/s², m/s² on a prismatic joint).
    pub(super) qdd: Vec<f64>,
    /// The actuator torques (N·m, N on a prismatic joint).
    pub(super) tau: Vec<f64>,
}

impl ClosedLoop {
    /// `q̈` of every joint and the actuator torques at `(t, q, q̇)`: the prescribed joints'
    /// accelerations from their profiles, the others' from `M̂_FF q̈_F = τ_F − ĥ_F − M̂_FP q̈_P`.
    pub(super) fn derivative(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64]) -> Derivative {
        let n = q.len();
        let m = arm.mass(q);
        let h = arm.bias(q, qd);
        let commanded = self.commands(arm, t, q, qd);
        let free = self.free_joints();
        let mut qdd = vec![0.0; n];
        for (j, d) in self.drives.iter().enumerate() {
            if let JointDrive::Prescribed(p) = d {
                qdd[j] = p.eval(t).qdd;
            }
        }
        if !free.is_empty() {
            let rhs = DVector::from_fn(free.len(), |r, _| {
                let j = free[r];
                let coupled: f64 = (0..n).map(|i| m[(j, i)] * qdd[i]).sum();
                commanded[j] - h[j] - coupled
            });
            let m_ff = DMatrix::from_fn(free.len(), free.len(), |r, c| m[(free[r], free[c])]);
            let a = m_ff
                .lu()
                .solve(&rhs)
                .unwrap_or_else(|| DVector::from_element(free.len(), f64::NAN));
            for (r, &j) in free.iter().enumerate() {
                qdd[j] = a[r];
            }
        }
        let needed = &m * DVector::from_column_slice(&qdd) + &h;
        let tau = (0..n)
            .map(|j| match self.drives[j] {
                JointDrive::Prescribed(_) => needed[j],
                _ => commanded[j],
            })
            .collect();
        Derivative { qdd, tau }
    }

    /// The acceleration a computed-torque law asks of the model at `(t, q, q̇)`
    /// (`q̈_r + k_p e + k_d ė` on its joints, the profile's `q̈` on prescribed joints, 0
    /// elsewhere); `None` if no joint is under computed torque.
    pub(super) fn computed_acceleration(&self, t: f64, q: &[f64], qd: &[f64]) -> Option<Vec<f64>> {
        let computed = self.drives.iter().any(|d| {
            matches!(
                d,
                JointDrive::Servo {
                    control: Control::ComputedTorque { .. },
                    ..
                }
            )
        });
        computed.then(|| {
            (self.drives.iter().enumerate())
                .map(|(j, d)| match d {
                    JointDrive::Prescribed(p) => p.eval(t).qdd,
                    JointDrive::Servo {
                        reference,
                        control: Control::ComputedTorque { kp, kd },
                        ..
                    } => {
                        let r = reference.eval(t);
                        r.qdd + kp * (r.q - q[j]) + kd * (r.qd - qd[j])
                    }
                    _ => 0.0,
                })
                .collect()
        })
    }

    /// The drives' torques at `(t, q, q̇)` (0 on prescribed joints).
    pub(super) fn commands(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64]) -> Vec<f64> {
        let error = |p: &Profile, j: usize| {
            let r = p.eval(t);
            (r.q - q[j], r.qd - qd[j])
        };
        let model = (self.computed_acceleration(t, q, qd)).map(|a| arm.rigid(q, qd, &a, true));
        (self.drives.iter().enumerate())
            .map(|(j, d)| match d {
                JointDrive::Prescribed(_) => 0.0,
                JointDrive::Torque(s) => s.eval(t),
                JointDrive::Servo {
                    reference,
                    control,
                    gain,
                } => {
                    let (e, ed) = error(reference, j);
                    match *control {
                        Control::Pd { kp, kd } => kp * e + kd * ed,
                        Control::ComputedTorque { .. } => model.as_ref().expect("computed")[j],
                        Control::PiVelocity { kp, ki } => gain * (kp * ed + ki * e),
                        Control::PositionServo(s) => {
                            s.torque(reference.eval(s.commanded_at(t)).q - q[j], qd[j])
                        }
                    }
                }
            })
            .collect()
    }
}
