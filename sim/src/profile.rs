//! Prescribed motion profiles `q(t)` for position-driven joints.
//!
//! A profile gives the joint coordinate and its first two time derivatives (rad, rad/s,
//! rad/s² for revolute joints; m, m/s, m/s² for prismatic joints) at time `t` (s).

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, positive};

/// A prescribed joint motion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Profile {
    /// Held at a constant coordinate (default 0).
    Hold {
        /// The held coordinate.
        #[serde(default)]
        position: f64,
    },
    /// Constant acceleration from an initial state: `q = q0 + v0 t + a t²/2`.
    ConstantAcceleration {
        /// Acceleration `a`.
        acceleration: f64,
        /// Initial velocity `v0` (default 0: from rest).
        #[serde(default)]
        velocity: f64,
        /// Initial coordinate `q0` (default 0).
        #[serde(default)]
        position: f64,
    },
    /// Polynomial `q = Σ c_k t^k`, coefficients from the constant term up.
    Polynomial {
        /// Coefficients `c_0, c_1, …`.
        coefficients: Vec<f64>,
    },
    /// Finite Fourier series (Swevers et al. 1997):
    /// `q = q0 + Σ_{l=1..L} [a_l/(l ω_f) sin(l ω_f t) − b_l/(l ω_f) cos(l ω_f t)]`,
    /// `ω_f = 2π · base_frequency`.
    Fourier {
        /// Fundamental frequency (Hz).
        base_frequency: f64,
        /// Offset `q0`.
        #[serde(default)]
        offset: f64,
        /// Sine coefficients `a_l`.
        a: Vec<f64>,
        /// Cosine coefficients `b_l` (same length as `a`).
        b: Vec<f64>,
    },
}

/// Coordinate and derivatives at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MotionState {
    /// Coordinate `q`.
    pub q: f64,
    /// Velocity `q̇`.
    pub qd: f64,
    /// Acceleration `q̈`.
    pub qdd: f64,
}

impl Profile {
    /// Evaluates the profile at `t` (s).
    pub fn eval(&self, t: f64) -> MotionState {
        match self {
            Profile::Hold { position } => MotionState {
                q: *position,
                qd: 0.0,
                qdd: 0.0,
            },
            Profile::ConstantAcceleration {
                acceleration: a,
                velocity: v,
                position: p,
            } => MotionState {
                q: p + v * t + 0.5 * a * t * t,
                qd: v + a * t,
                qdd: *a,
            },
            Profile::Polynomial { coefficients } => {
                let mut s = MotionState::default();
                for (k, c) in coefficients.iter().enumerate() {
                    let k = k as i32;
                    s.q += c * t.powi(k);
                    if k >= 1 {
                        s.qd += c * f64::from(k) * t.powi(k - 1);
                    }
                    if k >= 2 {
                        s.qdd += c * f64::from(k * (k - 1)) * t.powi(k - 2);
                    }
                }
                s
            }
            Profile::Fourier {
                base_frequency,
                offset,
                a,
                b,
            } => {
                let wf = 2.0 * std::f64::consts::PI * base_frequency;
                let mut s = MotionState {
                    q: *offset,
                    qd: 0.0,
                    qdd: 0.0,
                };
                for (l, (al, bl)) in a.iter().zip(b).enumerate() {
                    let w = wf * (l + 1) as f64;
                    let (sn, cs) = (w * t).sin_cos();
                    s.q += al / w * sn - bl / w * cs;
                    s.qd += al * cs + bl * sn;
                    s.qdd += w * (-al * sn + bl * cs);
                }
                s
            }
        }
    }

    /// Checks the parameters; `Err` holds the offending field (relative to the profile) and
    /// what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            Profile::Hold { position } => finite("position", *position),
            Profile::ConstantAcceleration {
                acceleration,
                velocity,
                position,
            } => {
                finite("acceleration", *acceleration)?;
                finite("velocity", *velocity)?;
                finite("position", *position)
            }
            Profile::Polynomial { coefficients } => coefficients
                .iter()
                .try_for_each(|c| finite("coefficients", *c)),
            Profile::Fourier {
                base_frequency,
                offset,
                a,
                b,
            } => {
                positive("base_frequency", *base_frequency, "frequency in Hz")?;
                finite("offset", *offset)?;
                if a.len() != b.len() {
                    return Err((
                        "b".into(),
                        format!(
                            "expected as many coefficients as `a` ({}), got {}",
                            a.len(),
                            b.len()
                        ),
                    ));
                }
                a.iter().chain(b).try_for_each(|c| finite("a/b", *c))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_derivatives(p: &Profile) {
        let h = 1e-5;
        for &t in &[0.1, 0.7, 1.9] {
            let (m, s, pl) = (p.eval(t - h), p.eval(t), p.eval(t + h));
            assert!(
                ((pl.q - m.q) / (2.0 * h) - s.qd).abs() < 1e-6,
                "{p:?} qd at {t}"
            );
            assert!(
                ((pl.qd - m.qd) / (2.0 * h) - s.qdd).abs() < 1e-6,
                "{p:?} qdd at {t}"
            );
        }
    }

    #[test]
    fn derivatives_are_consistent() {
        check_derivatives(&Profile::ConstantAcceleration {
            acceleration: 0.5,
            velocity: 0.1,
            position: 0.2,
        });
        check_derivatives(&Profile::Polynomial {
            coefficients: vec![0.1, -0.2, 0.3, 0.05],
        });
        check_derivatives(&Profile::Fourier {
            base_frequency: 0.3,
            offset: 0.1,
            a: vec![0.2, -0.1, 0.05],
            b: vec![0.1, 0.3, -0.02],
        });
    }

    #[test]
    fn constant_acceleration_from_rest() {
        let p = Profile::ConstantAcceleration {
            acceleration: 2.0,
            velocity: 0.0,
            position: 0.0,
        };
        let s = p.eval(2.0);
        assert_eq!((s.q, s.qd, s.qdd), (4.0, 4.0, 2.0));
    }
}
