//! Motion families: a population whose arms each draw how they move, so that data for learned
//! identifiers cover the motions users record, not one experiment.
//!
//! ```toml
//! [[population.motion]]         # any number; each arm draws one by weight, then its parameters
//! family = "paper"              # the MIM paper's rail run: constant accelerations, O3..O6 held
//! weight = 1.0                  # default 1
//! rail_acceleration = { type = "uniform", low = 1.0, high = 3.0 }     # m/s²
//! joint_acceleration = { type = "uniform", low = 0.3, high = 0.75 }   # rad/s², O1 and O2
//!
//! [[population.motion]]
//! family = "fourier"            # every joint, the rail too, on its own prescribed Fourier series
//! base_frequency = { type = "uniform", low = 0.25, high = 1.0 }       # Hz, one per arm
//! harmonics = { low = 1, high = 4 }                                   # per arm, inclusive
//! coefficient = { type = "normal", mean = 0.0, std = 0.6 }            # rad/s (m/s on the rail)
//! max_angle = 2.5               # rad, bound of every revolute joint (default 2.5)
//! rail_travel = 0.5             # m, bound of the rail (default 0.5)
//!
//! [[population.motion]]
//! family = "point_to_point"     # servo-tracked rest-to-rest moves (quintic, over the record)
//! goal = { type = "uniform", low = -1.5, high = 1.5 }                 # rad, per joint
//! rail_goal = { type = "uniform", low = -1.0, high = 1.0 }            # m
//! bandwidth = { type = "uniform", low = 10.0, high = 30.0 }           # rad/s, per arm
//! step = 0.0005                 # s, integrator step of these arms (divides sample_period)
//! ```
//!
//! `point_to_point` arms are torque-driven: on every revolute joint a computed-torque servo (the
//! simulated arm as its model, `k_p = ω_b²`, `k_d = 2 ω_b`: critically damped at the drawn
//! bandwidth `ω_b`) tracks the reference from its initial state, so the recorded motion comes
//! out of the dynamics, not a profile; the rail's carriage is prescribed in every family (it is
//! a kinematic body in the simulation). Which family an arm drew is written in its manifest (`motion_family`). The draws
//! of an arm come from its own stream in a fixed order: the family, then its parameters joint by
//! joint (rail first).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Distribution, FourierExcitation};
use crate::drive::{Control, Drive, Servo};
use crate::param::{ParamError, positive};
use crate::profile::Profile;

pub use crate::dataset::motion_family::FamilyId;

/// An inclusive range of counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Count {
    /// Smallest.
    pub low: usize,
    /// Largest.
    pub high: usize,
}

/// One motion family of `[[population.motion]]` and the laws of its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// The paper's rail run: the rail and O1, O2 at constant accelerations from rest, O3..O6 held.
    Paper {
        /// Relative frequency of the family (default 1).
        #[serde(default = "one")]
        weight: f64,
        /// The rail's acceleration (m/s²).
        rail_acceleration: Distribution,
        /// O1's and O2's accelerations (rad/s²), one draw each.
        joint_acceleration: Distribution,
    },
    /// Every joint on a prescribed Fourier series (see [`FourierExcitation`]) with a base frequency
    /// and number of harmonics drawn per arm and coefficients per joint.
    Fourier {
        /// Relative frequency of the family (default 1).
        #[serde(default = "one")]
        weight: f64,
        /// Fundamental frequency (Hz).
        base_frequency: Distribution,
        /// Number of harmonics.
        harmonics: Count,
        /// Every coefficient `a_l`, `b_l` (rad/s; m/s on the rail).
        coefficient: Distribution,
        /// Bound of every revolute joint's angle (rad).
        #[serde(default = "max_angle")]
        max_angle: f64,
        /// Bound of the rail's travel (m).
        #[serde(default = "rail_travel")]
        rail_travel: f64,
    },
    /// Every revolute joint servo-tracks a rest-to-rest quintic move from 0 to a drawn goal over
    /// the record; the rail's carriage follows its own quintic move, prescribed.
    PointToPoint {
        /// Relative frequency of the family (default 1).
        #[serde(default = "one")]
        weight: f64,
        /// Each revolute joint's goal (rad).
        goal: Distribution,
        /// The rail's goal (m).
        rail_goal: Distribution,
        /// The servos' bandwidth `ω_b` (rad/s), one per arm.
        bandwidth: Distribution,
        /// Integrator step of these arms (s); must divide the file's `time.sample_period`.
        step: f64,
    },
}

fn one() -> f64 {
    1.0
}
fn max_angle() -> f64 {
    2.5
}
fn rail_travel() -> f64 {
    0.5
}

/// What an arm's motion draw gives: its family, drives (dataset order, rail first) and, for a
/// torque-driven family, its own integrator step.
#[derive(Clone, Debug)]
pub struct MotionDraw {
    /// The family drawn.
    pub family: FamilyId,
    /// Drives of the rail and the revolute joints.
    pub drives: Vec<Drive>,
    /// The integrator step (s), where the family sets one.
    pub step: Option<f64>,
}

impl Motion {
    /// Whether its arms' joints are servo-tracked (their commands recorded as `q_cmd`).
    pub fn servo_tracked(&self) -> bool {
        matches!(self, Motion::PointToPoint { .. })
    }

    /// The family's name.
    pub fn id(&self) -> FamilyId {
        match self {
            Motion::Paper { .. } => FamilyId::Paper,
            Motion::Fourier { .. } => FamilyId::Fourier,
            Motion::PointToPoint { .. } => FamilyId::PointToPoint,
        }
    }

    /// The family's weight.
    pub fn weight(&self) -> f64 {
        match self {
            Motion::Paper { weight, .. }
            | Motion::Fourier { weight, .. }
            | Motion::PointToPoint { weight, .. } => *weight,
        }
    }

    /// Checks the family's laws against the file's `time` section; `Err` names the field
    /// (relative to the family).
    pub fn validate(&self, time: &crate::scenario::TimeSection) -> Result<(), ParamError> {
        positive("weight", self.weight(), "relative frequency")?;
        let check = |name: &str, d: &Distribution| {
            d.validate().map_err(|(f, e)| (format!("{name}.{f}"), e))
        };
        match self {
            Motion::Paper {
                rail_acceleration,
                joint_acceleration,
                ..
            } => {
                check("rail_acceleration", rail_acceleration)?;
                check("joint_acceleration", joint_acceleration)
            }
            Motion::Fourier {
                base_frequency,
                harmonics,
                coefficient,
                max_angle,
                rail_travel,
                ..
            } => {
                check("base_frequency", base_frequency)?;
                if distribution_low(base_frequency) <= 0.0 {
                    return Err((
                        "base_frequency".into(),
                        "expected a law of positive frequencies (Hz): bounded below by more than 0"
                            .into(),
                    ));
                }
                if harmonics.low == 0 || harmonics.low > harmonics.high {
                    return Err((
                        "harmonics".into(),
                        format!(
                            "expected 1 ≤ low ≤ high, got low = {}, high = {}",
                            harmonics.low, harmonics.high
                        ),
                    ));
                }
                check("coefficient", coefficient)?;
                if !(*max_angle > 0.0 && max_angle.is_finite()) {
                    return Err((
                        "max_angle".into(),
                        format!("expected a positive angle in rad, got {max_angle}"),
                    ));
                }
                positive("rail_travel", *rail_travel, "travel in m")
            }
            Motion::PointToPoint {
                goal,
                rail_goal,
                bandwidth,
                step,
                ..
            } => {
                check("goal", goal)?;
                if !distribution_bound(goal).is_finite() {
                    return Err((
                        "goal".into(),
                        "expected goals drawn from a bounded law (low and high, rad)".into(),
                    ));
                }
                check("rail_goal", rail_goal)?;
                check("bandwidth", bandwidth)?;
                if distribution_low(bandwidth) <= 0.0 {
                    return Err((
                        "bandwidth".into(),
                        "expected a law of positive bandwidths (rad/s): bounded below by more than 0"
                            .into(),
                    ));
                }
                positive("step", *step, "integrator step in s")?;
                let ratio = time.sample_period / step;
                if (ratio - ratio.round()).abs() > 1e-9 * ratio || ratio.round() < 1.0 {
                    return Err((
                        "step".into(),
                        format!(
                            "expected a step that divides time.sample_period = {} s exactly, got {step} s",
                            time.sample_period
                        ),
                    ));
                }
                let steps = time.end / step;
                if steps > crate::scenario::time::MAX_STEPS as f64 {
                    return Err((
                        "step".into(),
                        format!(
                            "expected at most {:e} integrator steps over time.end, got {steps:.3e}",
                            crate::scenario::time::MAX_STEPS
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// Draws one arm's drives (`joints` revolute joints after the rail; `end`: the record's
    /// length, s).
    pub fn draw(&self, joints: usize, end: f64, rng: &mut ChaCha8Rng) -> MotionDraw {
        let (drives, step) = match self {
            Motion::Paper {
                rail_acceleration,
                joint_acceleration,
                ..
            } => {
                let mut drives = vec![constant_acceleration(rail_acceleration.sample(rng))];
                for k in 0..joints {
                    drives.push(if k < 2 {
                        constant_acceleration(joint_acceleration.sample(rng))
                    } else {
                        Drive::Motion(Profile::Hold { position: 0.0 })
                    });
                }
                (drives, None)
            }
            Motion::Fourier {
                base_frequency,
                harmonics,
                coefficient,
                max_angle,
                rail_travel,
                ..
            } => {
                let base_frequency = base_frequency.sample(rng);
                let harmonics = rng.random_range(harmonics.low..=harmonics.high);
                let law = |bound: f64| FourierExcitation {
                    base_frequency,
                    harmonics,
                    coefficient: coefficient.clone(),
                    max_angle: bound,
                };
                let mut drives = vec![Drive::Motion(law(*rail_travel).draw(0.0, rng))];
                for _ in 0..joints {
                    drives.push(Drive::Motion(law(*max_angle).draw(0.0, rng)));
                }
                (drives, None)
            }
            Motion::PointToPoint {
                goal,
                rail_goal,
                bandwidth,
                step,
                ..
            } => {
                let w = bandwidth.sample(rng);
                let control = Control::ComputedTorque {
                    kp: w * w,
                    kd: 2.0 * w,
                };
                let servo = |g: f64| {
                    Drive::Servo(Servo {
                        reference: quintic(g, end),
                        control,
                    })
                };
                // The rail's carriage is always prescribed (it is kinematic in the simulation).
                let mut drives = vec![Drive::Motion(quintic(rail_goal.sample(rng), end))];
                for _ in 0..joints {
                    drives.push(servo(goal.sample(rng)));
                }
                (drives, Some(*step))
            }
        };
        MotionDraw {
            family: self.id(),
            drives,
            step,
        }
    }
}

/// Draws a family by weight (one uniform draw).
pub fn choose<'a>(motions: &'a [Motion], rng: &mut ChaCha8Rng) -> &'a Motion {
    let total: f64 = motions.iter().map(Motion::weight).sum();
    let mut u = total * rng.random::<f64>();
    for m in motions {
        if u < m.weight() {
            return m;
        }
        u -= m.weight();
    }
    motions.last().expect("validated: at least one family")
}

fn constant_acceleration(acceleration: f64) -> Drive {
    Drive::Motion(Profile::ConstantAcceleration {
        acceleration,
        velocity: 0.0,
        position: 0.0,
    })
}

/// The rest-to-rest quintic `q = g (10 τ³ − 15 τ⁴ + 6 τ⁵)`, `τ = t / T`, as a polynomial in `t`.
pub fn quintic(goal: f64, duration: f64) -> Profile {
    let t = duration;
    Profile::Polynomial {
        coefficients: vec![
            0.0,
            0.0,
            0.0,
            10.0 * goal / t.powi(3),
            -15.0 * goal / t.powi(4),
            6.0 * goal / t.powi(5),
        ],
    }
}

/// The smallest value a law can draw (`−∞` when unbounded below).
fn distribution_low(d: &Distribution) -> f64 {
    match d {
        Distribution::Constant { value } => *value,
        Distribution::Uniform { low, .. } => *low,
        Distribution::Normal { low, .. } => low.unwrap_or(f64::NEG_INFINITY),
        Distribution::LogNormal { low, .. } => low.unwrap_or(0.0),
    }
}

/// The largest magnitude a law can draw (`∞` when unbounded).
fn distribution_bound(d: &Distribution) -> f64 {
    match d {
        Distribution::Constant { value } => value.abs(),
        Distribution::Uniform { low, high } => low.abs().max(high.abs()),
        Distribution::Normal { low, high, .. } | Distribution::LogNormal { low, high, .. } => {
            match (low, high) {
                (Some(l), Some(h)) => l.abs().max(h.abs()),
                _ => f64::INFINITY,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_quintic_moves_from_rest_to_rest() {
        let p = quintic(1.2, 2.0);
        let (s0, s1, mid) = (p.eval(0.0), p.eval(2.0), p.eval(1.0));
        assert!(s0.q.abs() < 1e-15 && s0.qd.abs() < 1e-15 && s0.qdd.abs() < 1e-15);
        assert!((s1.q - 1.2).abs() < 1e-12 && s1.qd.abs() < 1e-12 && s1.qdd.abs() < 1e-12);
        // Peak speed at the middle: 15/8 of the mean speed.
        assert!((mid.qd - 1.875 * 0.6).abs() < 1e-12, "{}", mid.qd);
    }

    #[test]
    fn families_are_drawn_by_weight() {
        let law = Distribution::Uniform {
            low: 0.5,
            high: 1.0,
        };
        let motions = [
            Motion::Paper {
                weight: 1.0,
                rail_acceleration: law.clone(),
                joint_acceleration: law.clone(),
            },
            Motion::Fourier {
                weight: 3.0,
                base_frequency: law.clone(),
                harmonics: Count { low: 1, high: 3 },
                coefficient: law,
                max_angle: 2.5,
                rail_travel: 0.5,
            },
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 20_000;
        let fourier = (0..n)
            .filter(|_| choose(&motions, &mut rng).id() == FamilyId::Fourier)
            .count();
        assert!((fourier as f64 / n as f64 - 0.75).abs() < 0.01, "{fourier}");
    }
}
