//! How each joint is driven: a prescribed motion, an applied torque (force) signal, or nothing.
//!
//! Applied torques act as equal and opposite generalized forces on the two bodies of the joint
//! (world frame, along the joint's current axis). Viscous joint damping `tau_friction = −c·q̇`
//! is applied the same way; its coefficient `c` is N·m·s/rad (revolute) or N·s/m (prismatic).

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative, positive};

use crate::profile::{Held, Profile};

/// The actuation of one joint.
#[derive(Clone, Debug, PartialEq)]
pub enum Drive {
    /// The joint follows a prescribed motion: a kinematic degree of freedom of Rapier's multibody
    /// that lands on the profile at every step ([`crate::simulation`]).
    Motion(Profile),
    /// A generalized force `tau(t)` is applied along the joint axis.
    Torque(Signal),
    /// A closed-loop drive: a controller computes the joint torque from the measured state and a
    /// reference, so the motion comes out of the dynamics, friction and controller together.
    Servo(Servo),
    /// Unactuated.
    Free,
}

/// A joint's state at `t = 0` (`[[joint]] start`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointStart {
    /// Coordinate (rad or m).
    pub q: f64,
    /// Rate (rad/s or m/s).
    #[serde(default)]
    pub qd: f64,
}

/// A joint servo: a reference motion and the control law that tracks it.
///
/// The controller reads the joint state at the start of each integrator step (exact, no
/// sensor noise: recorded noise models the *measurement*, not the feedback) and holds its
/// torque over the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Servo {
    /// The reference `q_r(t)` (with its derivatives).
    pub reference: Profile,
    /// The control law.
    pub control: Control,
}

/// Control laws of a [`Servo`] (`e = q_r − q`, `ė = q̇_r − q̇`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Control {
    /// `τ = k_p e + k_d ė` (N·m/rad, N·m·s/rad).
    Pd {
        /// Position gain `k_p`.
        kp: f64,
        /// Velocity gain `k_d`.
        kd: f64,
    },
    /// Computed torque with the simulated links' rigid-body model (exact), friction and the
    /// rotors' reflected inertia (`rotor`, `sim::rotor`) not compensated:
    /// `τ = RNEA(q, q̇, q̈_r + k_p e + k_d ė)`, every computed-torque joint solved together and
    /// the other joints' accelerations taken as zero (or as their profile's, if prescribed). On
    /// an elastic joint it reads the motor side (`θ, θ̇` in place of `q, q̇`).
    ComputedTorque {
        /// Position gain `k_p` (1/s²).
        kp: f64,
        /// Velocity gain `k_d` (1/s).
        kd: f64,
    },
    /// A position servo's firmware loop ([`crate::position_servo`]): delayed command, dead band,
    /// stiffness and damping, torque limit.
    PositionServo(crate::position_servo::PositionServo),
    /// The teaching paper's inner PI velocity loop (its eq. 19) in motor current:
    /// `i = −K_P (q̇ − q̇_c) − K_I (q − q_c)`, `τ = K i` with the joint's drive gain `K`.
    PiVelocity {
        /// `K_P` (A·s/rad).
        kp: f64,
        /// `K_I` (A/rad).
        ki: f64,
    },
}

impl Control {
    /// Checks the gains; `Err` names the offending field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let (a, b) = match *self {
            Control::Pd { kp, kd } | Control::ComputedTorque { kp, kd } => (("kp", kp), ("kd", kd)),
            Control::PiVelocity { kp, ki } => (("kp", kp), ("ki", ki)),
            Control::PositionServo(s) => return s.validate(),
        };
        non_negative(a.0, a.1)?;
        non_negative(b.0, b.1)
    }
}

/// A scalar signal of time (N·m for revolute joints, N for prismatic).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Signal {
    /// A constant.
    Constant {
        /// The value.
        value: f64,
    },
    /// A step from `before` to `after` at `time` (s).
    Step {
        /// Switching time (s).
        time: f64,
        /// Value for `t < time`.
        before: f64,
        /// Value for `t ≥ time`.
        after: f64,
    },
    /// A multisine `Σ d_i cos(k_i ω0 t + φ_i)`, `ω0 = 2π · base_frequency`.
    Multisine {
        /// Fundamental frequency (Hz).
        base_frequency: f64,
        /// Harmonic numbers `k_i`.
        harmonics: Vec<u32>,
        /// Amplitudes `d_i`.
        amplitudes: Vec<f64>,
        /// Phases `φ_i` (rad); default all 0.
        #[serde(default)]
        phases: Vec<f64>,
    },
    /// The sum of several signals.
    Sum {
        /// The terms.
        terms: Vec<Signal>,
    },
    /// Samples held between their times (zero-order hold): `values[k]` over
    /// `[start + k·period, start + (k+1)·period)`, the first before `start`, the last after the
    /// end. What a logged torque is when a model is driven as the robot was: the drive applied
    /// each sample until the next (`crate::rollout`).
    Held(Held),
}

impl Signal {
    /// Value at `t` (s).
    pub fn eval(&self, t: f64) -> f64 {
        match self {
            Signal::Constant { value } => *value,
            Signal::Step {
                time,
                before,
                after,
            } => {
                if t < *time {
                    *before
                } else {
                    *after
                }
            }
            Signal::Multisine {
                base_frequency,
                harmonics,
                amplitudes,
                phases,
            } => {
                let w0 = 2.0 * std::f64::consts::PI * base_frequency;
                harmonics
                    .iter()
                    .zip(amplitudes)
                    .enumerate()
                    .map(|(i, (k, d))| {
                        d * (f64::from(*k) * w0 * t + phases.get(i).copied().unwrap_or(0.0)).cos()
                    })
                    .sum()
            }
            Signal::Sum { terms } => terms.iter().map(|s| s.eval(t)).sum(),
            Signal::Held(h) => h.eval(t),
        }
    }

    /// The signal multiplied by `k`.
    pub fn scaled(&self, k: f64) -> Signal {
        match self {
            Signal::Constant { value } => Signal::Constant { value: value * k },
            Signal::Step {
                time,
                before,
                after,
            } => Signal::Step {
                time: *time,
                before: before * k,
                after: after * k,
            },
            Signal::Multisine {
                base_frequency,
                harmonics,
                amplitudes,
                phases,
            } => Signal::Multisine {
                base_frequency: *base_frequency,
                harmonics: harmonics.clone(),
                amplitudes: amplitudes.iter().map(|a| a * k).collect(),
                phases: phases.clone(),
            },
            Signal::Sum { terms } => Signal::Sum {
                terms: terms.iter().map(|t| t.scaled(k)).collect(),
            },
            Signal::Held(h) => Signal::Held(h.scaled(k)),
        }
    }

    /// The period (s) of a signal built from multisines of one fundamental (constants allowed
    /// in a sum); `None` for anything else.
    pub fn period(&self) -> Option<f64> {
        match self {
            Signal::Multisine { base_frequency, .. } => Some(1.0 / base_frequency),
            Signal::Sum { terms } => {
                let periodic: Vec<&Signal> = terms
                    .iter()
                    .filter(|t| !matches!(t, Signal::Constant { .. }))
                    .collect();
                let first = periodic.first()?.period()?;
                periodic
                    .iter()
                    .all(|t| {
                        t.period()
                            .is_some_and(|p| (p - first).abs() <= 1e-12 * first)
                    })
                    .then_some(first)
            }
            _ => None,
        }
    }

    /// Checks the parameters; `Err` holds the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            Signal::Constant { value } => finite("value", *value),
            Signal::Multisine {
                base_frequency,
                harmonics,
                amplitudes,
                phases,
            } => {
                positive("base_frequency", *base_frequency, "frequency in Hz")?;
                if amplitudes.len() != harmonics.len() {
                    return Err((
                        "amplitudes".into(),
                        format!(
                            "expected one amplitude per harmonic ({}), got {}",
                            harmonics.len(),
                            amplitudes.len()
                        ),
                    ));
                }
                if !phases.is_empty() && phases.len() != harmonics.len() {
                    return Err((
                        "phases".into(),
                        format!(
                            "expected no phases or one per harmonic ({}), got {}",
                            harmonics.len(),
                            phases.len()
                        ),
                    ));
                }
                Ok(())
            }
            Signal::Sum { terms } => terms.iter().try_for_each(Signal::validate),
            Signal::Held(h) => h.validate(),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multisine_sums_cosines() {
        let s = Signal::Multisine {
            base_frequency: 0.5,
            harmonics: vec![1, 3],
            amplitudes: vec![2.0, 1.0],
            phases: vec![],
        };
        let t = 0.3;
        let w0 = std::f64::consts::PI;
        assert!((s.eval(t) - (2.0 * (w0 * t).cos() + (3.0 * w0 * t).cos())).abs() < 1e-15);
    }

    #[test]
    fn held_samples_last_until_the_next() {
        let s = Signal::Held(Held {
            start: 1.0,
            period: 0.1,
            values: vec![1.0, 2.0, 3.0],
        });
        // Before the first sample, at and after each, past the last.
        for (t, v) in [
            (0.0, 1.0),
            (1.0, 1.0),
            (1.05, 1.0),
            (1.1, 2.0),
            (1.0 + 3.0 * 0.1 / 3.0, 2.0),
            (1.2, 3.0),
            (9.0, 3.0),
        ] {
            assert_eq!(s.eval(t), v, "t = {t}");
        }
        // A step time computed as k·dt lands on its sample, not one short.
        let dt = 0.1 / 7.0;
        assert_eq!(s.eval(1.0 + 14.0 * dt), 3.0);
        assert_eq!(s.scaled(2.0).eval(1.15), 4.0);
        assert!(s.validate().is_ok());
        let empty = Signal::Held(Held {
            start: 0.0,
            period: 0.1,
            values: vec![],
        });
        assert_eq!(empty.validate().unwrap_err().0, "values");
    }
}
