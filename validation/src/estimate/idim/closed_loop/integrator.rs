//! The simulated loop's integration: classical Runge–Kutta (RK4) of the free joints at a step
//! that resolves the loop's fastest mode, the prescribed joints set on their profiles.

use sim::drive::Control;

use super::arm::Arm;
use super::{ClosedLoop, JointDrive, LoopFailure};

impl ClosedLoop {
    /// The integration step (s): half the time constant of the loop's fastest mode at the
    /// initial state (servo gains over the identified diagonal inertia), at most the sample
    /// period.
    pub(super) fn step(&self, arm: &Arm, q: &[f64], times: &[f64]) -> Result<f64, LoopFailure> {
        let m = arm.mass(q);
        let mut fastest: f64 = 0.0;
        for j in 0..q.len() {
            let inertia = m[(j, j)];
            if inertia <= 0.0 {
                return Err(LoopFailure::NonPositiveInertia {
                    joint: j + 1,
                    inertia,
                });
            }
            // The friction band damps at c / M̂; RK4 is stable to h c / M̂ ≈ 2.8.
            fastest = fastest.max(0.5 * arm.band_slope(q, j) / inertia);
        }
        for (j, d) in self.drives.iter().enumerate() {
            let JointDrive::Servo { control, gain, .. } = d else {
                continue;
            };
            let (kp, kd) = match *control {
                Control::ComputedTorque { kp, kd } => {
                    // The error dynamics ë + k_d ė + k_p e = 0, whatever the arm.
                    fastest = fastest.max(kd.max(kp.sqrt()));
                    continue;
                }
                Control::Pd { kp, kd } => (kp, kd),
                // τ = K (k_P ė + k_I e): a PD of gains K k_I, K k_P.
                Control::PiVelocity { kp, ki } => (gain * ki, gain * kp),
                Control::PositionServo(s) => (s.kp, s.kd),
            };
            let inertia = m[(j, j)];
            let rate = (kd / inertia).max((kp / inertia).sqrt());
            fastest = fastest.max(rate);
        }
        let sample = times
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        let sample = if sample.is_finite() { sample } else { 1e-2 };
        Ok(if fastest > 0.0 {
            (0.5 / fastest).min(sample)
        } else {
            sample
        })
    }

    /// One RK4 step of the free (not prescribed) joints.
    pub(super) fn rk4(
        &self,
        arm: &Arm,
        t: f64,
        q: &[f64],
        qd: &[f64],
        h: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let add = |x: &[f64], dx: &[f64], s: f64| -> Vec<f64> {
            x.iter().zip(dx).map(|(a, b)| a + s * b).collect()
        };
        let k1 = self.derivative(arm, t, q, qd).qdd;
        let (q2, qd2) = (add(q, qd, h / 2.0), add(qd, &k1, h / 2.0));
        let k2 = self.derivative(arm, t + h / 2.0, &q2, &qd2).qdd;
        let (q3, qd3) = (add(q, &qd2, h / 2.0), add(qd, &k2, h / 2.0));
        let k3 = self.derivative(arm, t + h / 2.0, &q3, &qd3).qdd;
        let (q4, qd4) = (add(q, &qd3, h), add(qd, &k3, h));
        let k4 = self.derivative(arm, t + h, &q4, &qd4).qdd;
        let combine = |x: &[f64], a: &[f64], b: &[f64], c: &[f64], d: &[f64]| -> Vec<f64> {
            (0..x.len())
                .map(|i| x[i] + h / 6.0 * (a[i] + 2.0 * b[i] + 2.0 * c[i] + d[i]))
                .collect()
        };
        let q_new = combine(q, qd, &qd2, &qd3, &qd4);
        let qd_new = combine(qd, &k1, &k2, &k3, &k4);
        self.prescribed(t + h, &q_new, &qd_new)
    }

    /// The state with prescribed joints set on their profiles at `t`.
    pub(super) fn prescribed(&self, t: f64, q: &[f64], qd: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (mut q, mut qd) = (q.to_vec(), qd.to_vec());
        for (j, d) in self.drives.iter().enumerate() {
            if let JointDrive::Prescribed(p) = d {
                let s = p.eval(t);
                (q[j], qd[j]) = (s.q, s.qd);
            }
        }
        (q, qd)
    }
}
