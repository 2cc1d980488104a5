//! Prescribed motion profiles `q(t)` for position-driven joints.
//!
//! A profile gives the joint coordinate and its first two time derivatives (rad, rad/s,
//! rad/s² for revolute joints; m, m/s, m/s² for prismatic joints) at time `t` (s).

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative, positive};

pub mod held;
pub mod recorded;

pub use held::Held;
pub use recorded::RecordedMotion;

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
    /// The teaching paper's friction experiment: for each speed in turn, a forward sweep
    /// `from → to`, a dwell, a backward sweep `to → from`, a dwell. Each sweep runs at constant
    /// speed except over the first and last `blend` fraction of its path, which are parabolic
    /// blends (constant acceleration `v²/(2·blend·L)`, `L = |to − from|`). The dwell at each end
    /// lasts `dwell` seconds, by default the one-way travel time at that speed (the paper's
    /// choice). Before `t = 0` and after the last dwell the joint rests at `from`.
    Sweep {
        /// Start (and end) coordinate.
        from: f64,
        /// Far end of the sweep.
        to: f64,
        /// Sweep speeds, positive, in order (rad/s or m/s).
        speeds: Vec<f64>,
        /// Blend fraction of the path at each end of a sweep, in `(0, 0.5)`; default 0.05.
        #[serde(default = "default_blend")]
        blend: f64,
        /// Dwell at each end (s); default the one-way travel time.
        #[serde(default)]
        dwell: Option<f64>,
    },
    /// A joint of a recorded run, played back ([`recorded`]).
    Recorded(RecordedMotion),
    /// Command samples, each held until the next ([`held`]): `q` the sample holding at `t`,
    /// `q̇ = q̈ = 0`. A logged command stream (a LeRobot `action`) as a servo's reference; not
    /// a prescribed motion, whose coordinate cannot jump.
    Held(Held),
}

fn default_blend() -> f64 {
    0.05
}

/// One constant-velocity stretch of a [`Profile::Sweep`] (blends and dwells excluded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantVelocity {
    /// Start time (s).
    pub start: f64,
    /// End time (s).
    pub end: f64,
    /// The signed velocity.
    pub velocity: f64,
}

/// Timing of one speed of a sweep: one-way travel time, blend time, acceleration, dwell.
struct SweepLeg {
    travel: f64,
    blend_time: f64,
    acceleration: f64,
    dwell: f64,
}

fn sweep_leg(length: f64, speed: f64, blend: f64, dwell: Option<f64>) -> SweepLeg {
    let d_b = blend * length;
    let travel = (length + 2.0 * d_b) / speed;
    SweepLeg {
        travel,
        blend_time: 2.0 * d_b / speed,
        acceleration: speed * speed / (2.0 * d_b),
        dwell: dwell.unwrap_or(travel),
    }
}

/// Distance, speed and acceleration (all ≥ 0 along the path) `tau` seconds into a blended travel.
fn along_travel(leg: &SweepLeg, length: f64, speed: f64, tau: f64) -> (f64, f64, f64) {
    let (a, tb) = (leg.acceleration, leg.blend_time);
    if tau < tb {
        (0.5 * a * tau * tau, a * tau, a)
    } else if tau < leg.travel - tb {
        (0.5 * a * tb * tb + speed * (tau - tb), speed, 0.0)
    } else {
        let r = (leg.travel - tau).max(0.0);
        (length - 0.5 * a * r * r, a * r, -a)
    }
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
            Profile::Sweep {
                from,
                to,
                speeds,
                blend,
                dwell,
            } => {
                let (length, dir) = ((to - from).abs(), (to - from).signum());
                let rest = |q: f64| MotionState {
                    q,
                    qd: 0.0,
                    qdd: 0.0,
                };
                if t < 0.0 {
                    return rest(*from);
                }
                let mut t0 = 0.0;
                for &v in speeds {
                    let leg = sweep_leg(length, v, *blend, *dwell);
                    let tau = t - t0;
                    let (x, xd, xdd) = if tau < leg.travel {
                        along_travel(&leg, length, v, tau)
                    } else if tau < leg.travel + leg.dwell {
                        return rest(*to);
                    } else if tau < 2.0 * leg.travel + leg.dwell {
                        let (x, xd, xdd) =
                            along_travel(&leg, length, v, tau - leg.travel - leg.dwell);
                        (length - x, -xd, -xdd)
                    } else if tau < 2.0 * (leg.travel + leg.dwell) {
                        return rest(*from);
                    } else {
                        t0 += 2.0 * (leg.travel + leg.dwell);
                        continue;
                    };
                    return MotionState {
                        q: from + dir * x,
                        qd: dir * xd,
                        qdd: dir * xdd,
                    };
                }
                rest(*from)
            }
            Profile::Recorded(m) => m
                .series
                .as_ref()
                .expect("a recorded motion is read when its scenario is checked")
                .eval(t),
            Profile::Held(h) => MotionState {
                q: h.eval(t),
                qd: 0.0,
                qdd: 0.0,
            },
        }
    }

    /// The coordinate a servo is commanded over the step `[t, t + h)` (s): held command samples'
    /// mean over it (a command that switches inside the step counts for the part after the
    /// switch, so that a command delay acts at its value, not rounded to a step); any other
    /// profile's coordinate at `t`.
    pub fn command(&self, t: f64, h: f64) -> f64 {
        match self {
            Profile::Held(held) => held.mean(t, t + h),
            _ => self.eval(t).q,
        }
    }

    /// The constant-velocity stretches of a [`Profile::Sweep`] (empty for other profiles).
    pub fn constant_velocity_stretches(&self) -> Vec<ConstantVelocity> {
        let Profile::Sweep {
            from,
            to,
            speeds,
            blend,
            dwell,
        } = self
        else {
            return Vec::new();
        };
        let (length, dir) = ((to - from).abs(), (to - from).signum());
        let mut out = Vec::new();
        let mut t0 = 0.0;
        for &v in speeds {
            let leg = sweep_leg(length, v, *blend, *dwell);
            for (start, sign) in [(t0, dir), (t0 + leg.travel + leg.dwell, -dir)] {
                out.push(ConstantVelocity {
                    start: start + leg.blend_time,
                    end: start + leg.travel - leg.blend_time,
                    velocity: sign * v,
                });
            }
            t0 += 2.0 * (leg.travel + leg.dwell);
        }
        out
    }

    /// Duration of a [`Profile::Sweep`] (s); `None` for profiles without an end.
    pub fn duration(&self) -> Option<f64> {
        let Profile::Sweep {
            from,
            to,
            speeds,
            blend,
            dwell,
        } = self
        else {
            return None;
        };
        Some(
            speeds
                .iter()
                .map(|&v| {
                    let leg = sweep_leg((to - from).abs(), v, *blend, *dwell);
                    2.0 * (leg.travel + leg.dwell)
                })
                .sum(),
        )
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
            Profile::Sweep {
                from,
                to,
                speeds,
                blend,
                dwell,
            } => {
                finite("from", *from)?;
                finite("to", *to)?;
                if from == to {
                    return Err((
                        "to".into(),
                        format!("expected a value other than from = {from}"),
                    ));
                }
                if speeds.is_empty() {
                    return Err(("speeds".into(), "expected at least one speed".into()));
                }
                speeds
                    .iter()
                    .try_for_each(|v| positive("speeds", *v, "speed"))?;
                if !(*blend > 0.0 && *blend < 0.5) {
                    return Err((
                        "blend".into(),
                        format!("expected a fraction in (0, 0.5), got {blend}"),
                    ));
                }
                dwell.map_or(Ok(()), |d| non_negative("dwell", d))
            }
            Profile::Recorded(m) if m.joint == 0 => Err((
                "joint".into(),
                "expected a dataset joint id ≥ 1 of the recorded run".into(),
            )),
            Profile::Recorded(_) => Ok(()),
            Profile::Held(h) => h.validate(),
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
    fn sweep_is_continuous_and_constant_velocity_between_blends() {
        let p = Profile::Sweep {
            from: -0.5,
            to: 0.7,
            speeds: vec![0.02, 0.05],
            blend: 0.05,
            dwell: None,
        };
        p.validate().unwrap();
        let end = p.duration().unwrap();
        // Continuous position and velocity; acceleration only in the blends.
        let h = 1e-4;
        let mut t = 0.0;
        while t < end {
            let (a, b) = (p.eval(t), p.eval(t + h));
            assert!(
                (b.q - a.q).abs() <= 0.05 * h * 1.01 + 1e-12,
                "q jumps at {t}"
            );
            assert!((b.qd - a.qd).abs() <= 0.05f64.powi(2) / (2.0 * 0.06) * h * 1.01 + 1e-12);
            t += 0.37;
        }
        check_derivatives(&p);
        let stretches = p.constant_velocity_stretches();
        assert_eq!(stretches.len(), 4);
        for c in &stretches {
            for k in 1..10 {
                let s = p.eval(c.start + (c.end - c.start) * f64::from(k) / 10.0);
                assert!((s.qd - c.velocity).abs() < 1e-12 && s.qdd == 0.0, "{c:?}");
            }
        }
        // The first forward stretch covers the middle 90 % of the path.
        let c = stretches[0];
        assert!((p.eval(c.start).q - (-0.5 + 0.06)).abs() < 1e-12);
        assert!((p.eval(c.end).q - (0.7 - 0.06)).abs() < 1e-12);
        assert!((c.end - c.start - 1.08 / 0.02).abs() < 1e-9);
        // Dwell at the far end lasts one travel time (1.32 / 0.02 s); rest at `from` after the end.
        assert_eq!(p.eval(66.0 + 30.0).q, 0.7);
        assert_eq!(p.eval(end + 1.0).q, -0.5);
        assert!((end - 2.0 * 2.0 * 1.32 * (1.0 / 0.02 + 1.0 / 0.05)).abs() < 1e-9);
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
