//! Populations of random serial arms: every arm its own robot, drawn joint by joint.
//!
//! ```toml
//! model = "../models/panda.urdf"   # its [[joint]] sections are the drive templates
//! [population]
//! arms = 10000
//! excitation = "fourier"
//! fourier = { base_frequency = 0.2, harmonics = 5, coefficient = { type = "uniform", low = -0.6, high = 0.6 } }
//! [population.random]
//! joints = [2, 7]                                          # inclusive, uniform
//! axial = { type = "uniform", low = 0.0, high = 0.35 }     # d (m)
//! radial = { type = "uniform", low = 0.05, high = 0.45 }   # a (m)
//! twist = "right_angles"                                   # or "any"
//! mass = { type = "log_normal", mu = 0.7, sigma = 0.6, low = 0.2, high = 20.0 }   # kg
//! thickness = { type = "uniform", low = 0.1, high = 0.4 }  # box section / length
//! centroid = { type = "uniform", low = 0.2, high = 0.8 }   # fraction along the link
//! centroid_offset = { type = "normal", mean = 0.0, std = 0.01 }   # m, off the link
//! range = { type = "uniform", low = 1.5, high = 2.9 }      # half-range (rad)
//! payload = { probability = 0.3, mass = { type = "uniform", low = 0.1, high = 2.0 }, reach = { type = "uniform", low = 0.02, high = 0.15 } }
//! ```
//!
//! **Kinematics** (Denavit–Hartenberg geometry, stated in the world frame at the zero
//! configuration as [`crate::model`] wants): joint 1's axis is the world's `z` through the
//! origin, its frame the world's. From joint `k`'s frame `R_k` (axis `z_k`) and point `o_k`,
//! joint `k+1` sits at `o_{k+1} = o_k + d_k z_k + a_k x'_k` with `x'_k = R_k R_z(θ_k) e_x`
//! (`θ_k` uniform in `[0, 2π)`: the direction of the common normal about the axis) and its
//! frame is `R_{k+1} = R_k R_z(θ_k) R_x(α_k)`: the axis turned by the twist `α_k` about the
//! common normal, `α_k ∈ {0, +π/2, −π/2}` with equal odds (`twist = "right_angles"`, what
//! industrial arms have) or uniform in `[−π, π)` (`"any"`). The last link reaches the same way
//! to its flange.
//!
//! **Bodies.** Link `k` is a homogeneous box from `o_k` towards `o_{k+1}` (its length `ℓ` the
//! distance, at least [`MIN_LENGTH`]): mass `m` drawn, section `w = t_1 ℓ`, `h = t_2 ℓ` from
//! `thickness`, principal moments `m (w² + h²)/12`, `m (ℓ² + h²)/12`, `m (ℓ² + w²)/12`
//! (every triangle inequality strict, so every drawn body is physical), principal axes the
//! link's direction and its normal turned by a uniform angle about it, centroid at the
//! fraction `centroid` along the link plus `centroid_offset` along each of the two normals. The
//! inertia about the joint is therefore full in the joint's frame.
//!
//! **Ranges.** Joint `k` may move `±range` about 0 (rad); `velocity_limit` (rad/s) and
//! [`EFFORT_LIMIT`] close its limits. The Fourier excitation is scaled so no profile leaves
//! 0.9 of its range ([`super::FourierExcitation::draw_within`]).
//!
//! **Payload.** With probability `probability` the arm carries a tool: a point mass `mass`
//! (kg) `reach` (m) beyond the last link's flange along its direction, merged into the last
//! body ([`crate::payload::Payload::carried_by`]): part of the robot, so part of its truth.
//!
//! Draws come from the arm's own stream ([`super::arm_seed`]) in a fixed order (the joint
//! count, then per link `d, a, θ, α`, mass, `t_1, t_2`, centroid fraction and two offsets, the
//! axes' angle, the range; then the payload; then the excitation), so an arm depends on its
//! index and the seed only. The file's `model` is the drive template: an arm of `n` joints
//! takes the file's first `n` `[[joint]]` sections (control, friction, damping, noise) with
//! their motion replaced by the drawn excitation; `sim run` on the file simulates that model.

use nalgebra::{Rotation3, Unit, Vector3};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::Distribution;
use crate::model::{Base, Body, Chain, Joint, JointKind, JointLimits, Link, Shape};
use crate::param::ParamError;

/// The shortest link a box is drawn for (m): a shorter step (two joints nearly at one point)
/// still gets a body of this length.
pub const MIN_LENGTH: f64 = 0.05;

/// The effort limit of every drawn joint (N·m): not a drive's rating; drawn arms are not
/// limited in torque.
pub const EFFORT_LIMIT: f64 = 1e4;

/// How the axis of the next joint is turned about the common normal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Twist {
    /// `0`, `+π/2` or `−π/2` with equal odds (industrial arms).
    #[default]
    RightAngles,
    /// Uniform in `[−π, π)`.
    Any,
}

/// The tool an arm may carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolPayload {
    /// The odds that an arm carries one, in `[0, 1]`.
    pub probability: f64,
    /// Its mass (kg).
    pub mass: Distribution,
    /// Its distance beyond the flange, along the last link (m).
    pub reach: Distribution,
}

/// `[population.random]`: the laws of a random serial arm (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomArms {
    /// The fewest and most joints, inclusive, drawn uniformly.
    pub joints: [usize; 2],
    /// The offset `d` along a joint's axis to the next joint (m).
    pub axial: Distribution,
    /// The offset `a` along the common normal (m).
    pub radial: Distribution,
    /// The twist `α` between consecutive axes.
    #[serde(default)]
    pub twist: Twist,
    /// A link's mass (kg).
    pub mass: Distribution,
    /// A box section's side over its length (each of two sides drawn).
    pub thickness: Distribution,
    /// The centroid's fraction along the link.
    pub centroid: Distribution,
    /// The centroid's offset off the link, along each of its two normals (m).
    pub centroid_offset: Distribution,
    /// A joint's half-range about 0 (rad).
    pub range: Distribution,
    /// A joint's velocity limit (rad/s), default 3.
    #[serde(default = "default_velocity_limit")]
    pub velocity_limit: f64,
    /// The tool, if arms may carry one.
    pub payload: Option<ToolPayload>,
}

fn default_velocity_limit() -> f64 {
    3.0
}

impl RandomArms {
    /// Checks every law against `templates`, the number of the file's joint sections; `Err`
    /// names the field (relative to `population.random`).
    pub fn validate(&self, templates: usize) -> Result<(), ParamError> {
        let [low, high] = self.joints;
        if low < 2 || low > high || high > templates {
            return Err((
                "joints".into(),
                format!(
                    "expected [fewest, most] with 2 ≤ fewest ≤ most ≤ {templates} (the model's \
                     joints, the drive templates), got [{low}, {high}]"
                ),
            ));
        }
        for (name, d) in self.laws() {
            d.validate().map_err(|(f, e)| (format!("{name}.{f}"), e))?;
        }
        for (name, d) in [("mass", &self.mass), ("thickness", &self.thickness)] {
            at_least(name, d, f64::MIN_POSITIVE)?;
        }
        for (name, d) in [("axial", &self.axial), ("radial", &self.radial)] {
            at_least(name, d, 0.0)?;
        }
        at_least("range", &self.range, 1e-3)?;
        if !(self.velocity_limit > 0.0 && self.velocity_limit.is_finite()) {
            return Err((
                "velocity_limit".into(),
                format!(
                    "expected a positive speed in rad/s, got {}",
                    self.velocity_limit
                ),
            ));
        }
        if let Some(p) = &self.payload {
            if !(0.0..=1.0).contains(&p.probability) {
                return Err((
                    "payload.probability".into(),
                    format!("expected odds in [0, 1], got {}", p.probability),
                ));
            }
            for (name, d) in [("payload.mass", &p.mass), ("payload.reach", &p.reach)] {
                d.validate().map_err(|(f, e)| (format!("{name}.{f}"), e))?;
                at_least(name, d, 0.0)?;
            }
        }
        Ok(())
    }

    fn laws(&self) -> [(&'static str, &Distribution); 7] {
        [
            ("axial", &self.axial),
            ("radial", &self.radial),
            ("mass", &self.mass),
            ("thickness", &self.thickness),
            ("centroid", &self.centroid),
            ("centroid_offset", &self.centroid_offset),
            ("range", &self.range),
        ]
    }

    /// Draws one arm from `rng` (module docs), named `name`.
    pub fn draw(&self, name: &str, rng: &mut ChaCha8Rng) -> Chain {
        let [low, high] = self.joints;
        let n = rng.random_range(low..=high);
        let mut frame = Rotation3::identity();
        let mut point = Vector3::zeros();
        let mut links = Vec::with_capacity(n);
        for k in 0..n {
            let (d, a) = (self.axial.sample(rng), self.radial.sample(rng));
            let theta = std::f64::consts::TAU * rng.random::<f64>();
            let alpha = self.twist_angle(rng);
            let normal_frame = frame * Rotation3::from_axis_angle(&Vector3::z_axis(), theta);
            let next = point + d * frame.matrix().column(2) + a * normal_frame.matrix().column(0);
            let axis = frame.matrix().column(2).into_owned();
            let body = self.body(point, next, axis, rng);
            let half = self.range.sample(rng);
            links.push(Link {
                name: format!("L{}", k + 1),
                joint: Joint {
                    kind: JointKind::Revolute,
                    axis: axis.into(),
                    anchor: point.into(),
                    damping: 0.0,
                    friction: None,
                    armature: 0.0,
                    stiffness: 0.0,
                    spring_rest: 0.0,
                    limits: Some(JointLimits {
                        lower: -half,
                        upper: half,
                        velocity: self.velocity_limit,
                        effort: EFFORT_LIMIT,
                    }),
                },
                body,
            });
            frame = normal_frame * Rotation3::from_axis_angle(&Vector3::x_axis(), alpha);
            point = next;
        }
        let mut chain = Chain {
            name: name.into(),
            base: Base::Fixed,
            links,
            gravity: crate::model::STANDARD_GRAVITY,
        };
        self.carry_tool(&mut chain, point, rng);
        chain
    }

    fn twist_angle(&self, rng: &mut ChaCha8Rng) -> f64 {
        use std::f64::consts::{FRAC_PI_2, PI};
        match self.twist {
            Twist::RightAngles => [0.0, FRAC_PI_2, -FRAC_PI_2][rng.random_range(0..3)],
            Twist::Any => -PI + 2.0 * PI * rng.random::<f64>(),
        }
    }

    /// The box from `from` towards `to` of a link whose joint axis is `axis` (module docs).
    fn body(
        &self,
        from: Vector3<f64>,
        to: Vector3<f64>,
        axis: Vector3<f64>,
        rng: &mut ChaCha8Rng,
    ) -> Body {
        let step = to - from;
        let length = step.norm().max(MIN_LENGTH);
        let mass = self.mass.sample(rng);
        let (w, h) = (
            self.thickness.sample(rng) * length,
            self.thickness.sample(rng) * length,
        );
        let along = self.centroid.sample(rng);
        let (o2, o3) = (
            self.centroid_offset.sample(rng),
            self.centroid_offset.sample(rng),
        );
        let e1 = Unit::try_new(step, 1e-9 * length).unwrap_or(Unit::new_normalize(axis));
        let phi = std::f64::consts::TAU * rng.random::<f64>();
        let e2 = Rotation3::from_axis_angle(&e1, phi) * any_normal(&e1);
        let e3 = e1.cross(&e2);
        let centroid = from + along * step + o2 * e2 + o3 * e3;
        let moments = [
            mass * (w * w + h * h) / 12.0,
            mass * (length * length + h * h) / 12.0,
            mass * (length * length + w * w) / 12.0,
        ];
        Body {
            mass,
            inertia: moments,
            centroid: centroid.into(),
            frame: [e1.into_inner().into(), e2.into(), e3.into()],
            shape: Shape::Rod { length },
        }
    }

    /// Merges a drawn tool into the last body, `flange` the last link's far end (module docs).
    fn carry_tool(&self, chain: &mut Chain, flange: Vector3<f64>, rng: &mut ChaCha8Rng) {
        let Some(p) = &self.payload else { return };
        if rng.random::<f64>() >= p.probability {
            return;
        }
        let (mass, reach) = (p.mass.sample(rng), p.reach.sample(rng));
        let last = chain.links.last_mut().expect("at least two links");
        let direction = Unit::try_new(flange - last.joint.anchor().coords, 1e-9)
            .unwrap_or(Unit::new_normalize(Vector3::from(last.joint.axis)));
        let tool = crate::payload::Payload {
            mass,
            centroid: (flange + reach * direction.into_inner()).into(),
            inertia: [0.0; 6],
        };
        last.body = tool.carried_by(&last.body);
    }
}

/// A unit vector normal to `v`.
fn any_normal(v: &Unit<Vector3<f64>>) -> Vector3<f64> {
    let helper = if v.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    v.cross(&helper).normalize()
}

/// `Err` naming `name` where the law can draw below `floor`.
pub(super) fn at_least(name: &str, d: &Distribution, floor: f64) -> Result<(), ParamError> {
    let lowest = match d {
        Distribution::Constant { value } => Some(*value),
        Distribution::Uniform { low, .. } => Some(*low),
        Distribution::Normal { low, .. } => *low,
        Distribution::LogNormal { low, .. } => Some(low.unwrap_or(f64::MIN_POSITIVE)),
    };
    match lowest {
        Some(l) if l >= floor => Ok(()),
        _ => Err((
            name.into(),
            format!("expected a law that never draws below {floor} (a `low` bound ≥ {floor})"),
        )),
    }
}

/// The share of a joint's half-range its drawn motion may use.
pub(super) const RANGE_SHARE: f64 = 0.9;
