//! An identified model in the loop of a run's design: the arm whose dynamics are a parameter
//! vector `x = (β, c…)` of a [`FullRegressor`], driven as the run was (its servo references and
//! control laws, prescribed profiles, torque signals), integrated from the run's start. IDIM-IV
//! takes its instruments from this simulation ([`super::iv`]) and DIDIM its output
//! ([`super::didim`]).
//!
//! The simulated arm is `M̂(q) q̈ + ĥ(q, q̇) = τ`, `ĥ` with the identified friction: rigid-body
//! terms by the inverse dynamics of a standard-parameter realization of `β`
//! ([`FullRegressor::realization`], exact for the base parameters whatever the others), the
//! mass matrix column by column (`M̂ e_i` is the inverse dynamics at `q̇ = 0`, `q̈ = e_i`, no
//! gravity). Not Rapier, as the "Rapier in the loop" would have it: a base-parameter
//! vector has no unique physical realization and the natural one is not physical (negative
//! masses and inertias), which a rigid-body engine cannot take; Gautier et al. (2013) likewise
//! simulate the identified model itself.
//!
//! Controllers are the run's ([`sim::drive::Control`]), with the identified model in the place of
//! the simulator's perfect one for computed torque (`τ = M̂_rb (q̈_r + k_p e + k_d ė) + ĥ_rb`, the
//! rigid-body part: friction is not compensated, as in the simulator), evaluated continuously
//! (the simulator holds them over its 0.5 ms step: a difference of the instruments, not of the
//! identified model). Prescribed joints follow their profile; the others are integrated by
//! classical Runge–Kutta (RK4) at a step that resolves the loop's fastest mode (half its time
//! constant, at most the sample period).

use nalgebra::{DMatrix, DVector};
use sim::drive::{Control, Signal};
use sim::profile::Profile;

pub(crate) mod arm;
mod refine;
mod sensitivity;

pub use arm::BAND;
pub use refine::{Iteration, identify};

use arm::Arm;

use super::Samples;
use super::base::FullRegressor;
use crate::dataset::Measurements;
use crate::estimate::NotApplicable;

/// How one joint is driven (the run's design).
#[derive(Clone, Debug)]
enum JointDrive {
    /// The joint follows its profile.
    Prescribed(Profile),
    /// A servo tracks the reference; `gain` is the drive's `K` (the PI velocity loop's unit).
    Servo {
        reference: Profile,
        control: Control,
        gain: f64,
    },
    /// A torque signal.
    Torque(Signal),
}

/// The run's design, ready to drive an identified model.
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    drives: Vec<JointDrive>,
}

/// The state of the simulated loop at one instant.
struct Derivative {
    qdd: Vec<f64>,
    tau: Vec<f64>,
}

impl ClosedLoop {
    /// The design of a simulated run: every joint prescribed, servoed or torque-driven.
    pub fn of_run(data: &Measurements) -> Result<Self, NotApplicable> {
        let drives = data
            .joints
            .iter()
            .map(|j| match (&j.reference, j.control, &j.excitation) {
                (Some(reference), Some(control), _) => Ok(JointDrive::Servo {
                    reference: reference.clone(),
                    control,
                    gain: j.gain,
                }),
                (Some(reference), None, _) => Ok(JointDrive::Prescribed(reference.clone())),
                (None, _, Some(signal)) => Ok(JointDrive::Torque(signal.clone())),
                (None, _, None) => Err(NotApplicable::new(format!(
                    "needs the run's drive design (a reference or a torque signal on every \
                     joint, as a simulated run states it); joint {} has none",
                    j.id
                ))),
            })
            .collect::<Result<_, _>>()?;
        Ok(ClosedLoop { drives })
    }

    /// The simulated loop of the model `x` sampled at `times` (increasing, s), from the run's
    /// initial state at `t = 0`: `q, q̇, q̈` and the actuator torques (`τ` of a prescribed joint
    /// is what the model needs to follow its profile). `Err` says where the loop diverged.
    pub fn simulate(
        &self,
        regressor: &FullRegressor,
        x: &DVector<f64>,
        times: &[f64],
        period: f64,
    ) -> Result<Samples, String> {
        let arm = Arm::new(regressor, x);
        let (mut q, mut qd) = self.initial_state();
        let step = self.step(&arm, &q, times)?;
        let mut out = Samples {
            period,
            ..Samples::default()
        };
        let mut t = 0.0;
        for &target in times {
            let intervals = ((target - t) / step).ceil().max(0.0) as usize;
            let h = if intervals > 0 {
                (target - t) / intervals as f64
            } else {
                0.0
            };
            for _ in 0..intervals {
                (q, qd) = self.rk4(&arm, t, &q, &qd, h);
                t += h;
                if q.iter().chain(&qd).any(|v| !v.is_finite() || v.abs() > 1e6) {
                    return Err(format!(
                        "the identified model's loop diverged at t = {t:.4} s"
                    ));
                }
            }
            t = target;
            let d = self.derivative(&arm, t, &q, &qd);
            let (qs, qds) = self.prescribed(t, &q, &qd);
            out.t.push(t);
            out.q.push(qs);
            out.qd.push(qds);
            out.qdd.push(d.qdd);
            out.tau.push(d.tau);
        }
        Ok(out)
    }

    /// The joint state at `t = 0`: profiles and references there, the other joints at rest at
    /// 0 (as the simulator starts).
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        self.drives
            .iter()
            .map(|d| match d {
                JointDrive::Prescribed(p) | JointDrive::Servo { reference: p, .. } => {
                    let s = p.eval(0.0);
                    (s.q, s.qd)
                }
                JointDrive::Torque(_) => (0.0, 0.0),
            })
            .unzip()
    }

    /// The integration step (s): half the time constant of the loop's fastest mode at the
    /// initial state (servo gains over the identified diagonal inertia), at most the sample
    /// period.
    fn step(&self, arm: &Arm, q: &[f64], times: &[f64]) -> Result<f64, String> {
        let m = arm.mass(q);
        let mut fastest: f64 = 0.0;
        for j in 0..q.len() {
            let inertia = m[(j, j)];
            if inertia <= 0.0 {
                return Err(format!(
                    "the identified inertia of joint {} is not positive ({inertia:.3e})",
                    j + 1
                ));
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
    fn rk4(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64], h: f64) -> (Vec<f64>, Vec<f64>) {
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
    fn prescribed(&self, t: f64, q: &[f64], qd: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (mut q, mut qd) = (q.to_vec(), qd.to_vec());
        for (j, d) in self.drives.iter().enumerate() {
            if let JointDrive::Prescribed(p) = d {
                let s = p.eval(t);
                (q[j], qd[j]) = (s.q, s.qd);
            }
        }
        (q, qd)
    }

    /// `q̈` of every joint and the actuator torques at `(t, q, q̇)`: the prescribed joints'
    /// accelerations from their profiles, the others' from `M̂_FF q̈_F = τ_F − ĥ_F − M̂_FP q̈_P`.
    fn derivative(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64]) -> Derivative {
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
    fn computed_acceleration(&self, t: f64, q: &[f64], qd: &[f64]) -> Option<Vec<f64>> {
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

    /// The joints whose motion depends on the model (servoed or torque-driven, not prescribed).
    pub fn free_joints(&self) -> Vec<usize> {
        (0..self.drives.len())
            .filter(|&j| !self.is_prescribed(j))
            .collect()
    }

    /// Whether joint `j` follows its profile whatever the model (a prescribed joint).
    fn is_prescribed(&self, j: usize) -> bool {
        matches!(self.drives[j], JointDrive::Prescribed(_))
    }

    /// The drives' torques at `(t, q, q̇)` (0 on prescribed joints).
    fn commands(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64]) -> Vec<f64> {
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
                    }
                }
            })
            .collect()
    }
}
