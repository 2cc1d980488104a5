//! Typed identifiers of every parameter an estimator can return, and the one place that maps
//! a model's ground truth onto them ([`truth_table`]).
//!
//! Written names (CSV files, `--only`, reports) are qualified and unique across estimators:
//!
//! | identifier | name | unit |
//! |---|---|---|
//! | body `i`'s mass | `B3.m` | kg |
//! | its mass from the force balance along world axis `e_k` (MIM) | `B3.m_e1` | kg |
//! | its central principal moments | `B3.j11`, `B3.j22`, `B3.j33` | kg·m² |
//! | its first moment `m·c` along body axis `e_k`, from `O_i` | `B3.mc1`, `B3.mc2`, `B3.mc3` | kg·m |
//! | base parameter `k` of the full regressor | `base.7` | mixed |
//! | base parameter `k` of the gravity regressor | `gravity.3` | kg·m |
//! | base parameter `k` of the inertia (mass-matrix) regressor | `inertia.2` | kg·m² |
//! | a friction coefficient of joint `O_j` (eq. 15) | `O2.coulomb`, `O2.transition_velocity` | N·m, rad/s |
//! | viscous damping of joint `O_j` | `O1.damping` | N·m·s/rad |
//! | a constant torque offset of joint `O_j`'s drive | `O3.offset` | N·m |
//! | the rotor inertia of joint `O_j`'s drive, reflected through its gear | `O3.armature` | kg·m² |

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use sim::friction::PAPER_COEFFICIENTS;
use sim::model::Chain;

/// An inertial quantity of one body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inertial {
    /// Mass (kg).
    Mass,
    /// Mass from the force balance along world axis `e_k`, `k` = 1, 2, 3 (kg).
    MassAxis(u8),
    /// Central principal moment about body axis `e_k`, `k` = 1, 2, 3 (kg·m²).
    Moment(u8),
    /// First moment `m·c_k` along body axis `e_k`, `c` the centroid seen from the joint point
    /// `O_i` (kg·m): the link-frame first moment of the standard parameters.
    FirstMoment(u8),
}

/// A term of the teaching paper's friction model (eq. 15) of one joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrictionTerm {
    /// Coefficient `k` of [`PAPER_COEFFICIENTS`] (0-based).
    Coefficient(usize),
    /// Stribeck transition velocity `v_t` (rad/s).
    TransitionVelocity,
    /// Gear ratio `R` of the position ripple.
    GearRatio,
    /// A constant torque offset of the drive (N·m or N): the current sensor's offset, a
    /// cable's or a gravity compensator's torque (recorded runs' IDIM).
    Offset,
    /// The rotor's inertia reflected through the gear (kg·m² or kg), `armature · q̈`
    /// (recorded runs' IDIM).
    Armature,
}

/// Every parameter an estimator can return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParamId {
    /// An inertial quantity of body `body` (1-based).
    Body {
        /// Body number (1-based).
        body: u8,
        /// Which quantity.
        quantity: Inertial,
    },
    /// Base parameter `k` (1-based) of the full regressor
    /// ([`crate::regressor::BaseParameters::of_chain`]).
    Base(usize),
    /// Base parameter `k` (1-based) of the gravity regressor.
    GravityBase(usize),
    /// Base parameter `k` (1-based) of the inertia (mass-matrix) regressor.
    InertiaBase(usize),
    /// A friction term of joint `O_joint` (dataset joint id).
    Friction {
        /// Dataset joint id.
        joint: u8,
        /// Which term.
        term: FrictionTerm,
    },
    /// Viscous damping of joint `O_joint` (dataset joint id).
    Damping {
        /// Dataset joint id.
        joint: u8,
    },
}

impl ParamId {
    /// The body of a per-body parameter (the body of a joint's damping is the joint's).
    pub fn body(self) -> Option<u8> {
        match self {
            ParamId::Body { body, .. } => Some(body),
            ParamId::Damping { joint } => Some(joint),
            _ => None,
        }
    }

    /// Whether it is a body's central principal moment (`B<i>.j<k>`).
    pub(crate) fn is_moment(self) -> bool {
        matches!(
            self,
            ParamId::Body {
                quantity: Inertial::Moment(_),
                ..
            }
        )
    }

    /// Body `b`'s mass.
    pub fn mass(body: u8) -> Self {
        ParamId::Body {
            body,
            quantity: Inertial::Mass,
        }
    }

    /// Body `b`'s central principal moment about `e_k`.
    pub fn moment(body: u8, k: u8) -> Self {
        ParamId::Body {
            body,
            quantity: Inertial::Moment(k),
        }
    }
}

impl FrictionTerm {
    /// The term's name (`coulomb`, `transition_velocity`, …).
    pub fn name(self) -> &'static str {
        match self {
            FrictionTerm::Coefficient(k) => PAPER_COEFFICIENTS[k],
            FrictionTerm::TransitionVelocity => "transition_velocity",
            FrictionTerm::GearRatio => "gear_ratio",
            FrictionTerm::Offset => "offset",
            FrictionTerm::Armature => "armature",
        }
    }

    /// The term named `name` ([`FrictionTerm::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "transition_velocity" => Some(FrictionTerm::TransitionVelocity),
            "gear_ratio" => Some(FrictionTerm::GearRatio),
            "offset" => Some(FrictionTerm::Offset),
            "armature" => Some(FrictionTerm::Armature),
            _ => PAPER_COEFFICIENTS
                .iter()
                .position(|c| *c == name)
                .map(FrictionTerm::Coefficient),
        }
    }
}

impl fmt::Display for ParamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ParamId::Body { body, quantity } => match quantity {
                Inertial::Mass => write!(f, "B{body}.m"),
                Inertial::MassAxis(k) => write!(f, "B{body}.m_e{k}"),
                Inertial::Moment(k) => write!(f, "B{body}.j{k}{k}"),
                Inertial::FirstMoment(k) => write!(f, "B{body}.mc{k}"),
            },
            ParamId::Base(k) => write!(f, "base.{k}"),
            ParamId::GravityBase(k) => write!(f, "gravity.{k}"),
            ParamId::InertiaBase(k) => write!(f, "inertia.{k}"),
            ParamId::Friction { joint, term } => write!(f, "O{joint}.{}", term.name()),
            ParamId::Damping { joint } => write!(f, "O{joint}.damping"),
        }
    }
}

/// One estimated parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate; `None` where the data cannot determine the parameter.
    pub value: Option<f64>,
    /// Its standard deviation where the method gives one (least-squares covariance), in the
    /// parameter's unit.
    pub std: Option<f64>,
}

impl Estimate {
    /// An estimate without a standard deviation.
    pub fn value(value: Option<f64>) -> Self {
        Estimate { value, std: None }
    }

    /// Whether the data determine the parameter.
    pub fn identifiable(&self) -> bool {
        self.value.is_some()
    }
}

/// Estimates by parameter: what every estimator returns, per-run algorithms included.
pub type Values = BTreeMap<ParamId, Estimate>;

/// A parameter name that is not of the form of the module's table.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "parameter `{0}`: expected a name like B3.m, B3.m_e1, B3.j11, B3.mc1, base.7, gravity.3, inertia.2, O2.coulomb or O1.damping"
)]
pub struct ParseParamError(pub String);

/// Serialized as its name (`B3.m_e1`, `base.7`), the name every output file uses.
impl serde::Serialize for ParamId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ParamId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl FromStr for ParamId {
    type Err = ParseParamError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseParamError(s.to_string());
        let (head, tail) = s.split_once('.').ok_or_else(err)?;
        let k = |t: &str| t.parse::<usize>().ok().filter(|k| *k > 0).ok_or_else(err);
        let axis = |t: &str| match t {
            "1" | "2" | "3" => Ok(t.as_bytes()[0] - b'0'),
            _ => Err(err()),
        };
        if let Some(b) = head.strip_prefix('B') {
            let body = b.parse().map_err(|_| err())?;
            let quantity = match tail {
                "m" => Inertial::Mass,
                "j11" | "j22" | "j33" => Inertial::Moment(axis(&tail[1..2])?),
                "mc1" | "mc2" | "mc3" => Inertial::FirstMoment(axis(&tail[2..3])?),
                t => Inertial::MassAxis(axis(t.strip_prefix("m_e").ok_or_else(err)?)?),
            };
            return Ok(ParamId::Body { body, quantity });
        }
        if let Some(j) = head.strip_prefix('O') {
            let joint = j.parse().map_err(|_| err())?;
            return match tail {
                "damping" => Ok(ParamId::Damping { joint }),
                t => FrictionTerm::from_name(t)
                    .map(|term| ParamId::Friction { joint, term })
                    .ok_or_else(err),
            };
        }
        match head {
            "base" => Ok(ParamId::Base(k(tail)?)),
            "gravity" => Ok(ParamId::GravityBase(k(tail)?)),
            "inertia" => Ok(ParamId::InertiaBase(k(tail)?)),
            _ => Err(err()),
        }
    }
}

/// The true values of the whole-arm identifiers' parameters ([`crate::estimate::idim`]): the
/// full, gravity and inertia base parameters mapped from the arm's standard parameters, and the
/// friction terms of joints with the paper's or the Coulomb + viscous model. The bases are those
/// the identifiers build from the same kinematics, so the identifiers refer to the same
/// combinations.
pub fn arm_truth(arm: &sim::model::Chain) -> BTreeMap<ParamId, f64> {
    use crate::regressor::{BaseParameters, standard_vector};
    let geometry = arm.kinematics_only();
    let pi = standard_vector(arm);
    let mut out = BTreeMap::new();
    type Id = fn(usize) -> ParamId;
    let bases: [(Id, BaseParameters); 3] = [
        (ParamId::Base, BaseParameters::of_chain(&geometry)),
        (ParamId::GravityBase, BaseParameters::of_gravity(&geometry)),
        (ParamId::InertiaBase, BaseParameters::of_inertia(&geometry)),
    ];
    for (id, base) in bases {
        for (k, v) in base.map(&pi).iter().enumerate() {
            out.insert(id(k + 1), *v);
        }
    }
    for (link, joint) in arm.links.iter().zip(1u8..) {
        let term = |term| ParamId::Friction { joint, term };
        if let Some(
            f @ sim::friction::Friction::Paper {
                gear_ratio,
                transition_velocity,
                ..
            },
        ) = &link.joint.friction
        {
            let values = f.paper_coefficients().expect("the paper's model");
            for (k, v) in values.into_iter().enumerate() {
                out.insert(term(FrictionTerm::Coefficient(k)), v);
            }
            out.insert(term(FrictionTerm::TransitionVelocity), *transition_velocity);
            out.insert(term(FrictionTerm::GearRatio), *gear_ratio);
        }
        if let Some(sim::friction::Friction::CoulombViscous {
            coulomb, viscous, ..
        }) = &link.joint.friction
        {
            for (name, v) in [("coulomb", coulomb), ("viscous", viscous)] {
                let t = FrictionTerm::from_name(name).expect("a coefficient of the paper's model");
                out.insert(term(t), *v);
            }
        }
    }
    out
}

/// The true value of every parameter of a model (the scenario's arm, from the run's
/// manifest): the only place that maps ground truth to identifiers. Only the scorer reads it.
pub fn truth_table(model: &Chain) -> BTreeMap<ParamId, f64> {
    let mut out = BTreeMap::new();
    for (link, body) in model.links.iter().zip(1u8..) {
        out.insert(ParamId::mass(body), link.body.mass);
        for k in 1..=3u8 {
            let quantity = Inertial::MassAxis(k);
            out.insert(ParamId::Body { body, quantity }, link.body.mass);
            out.insert(ParamId::moment(body, k), link.body.inertia[k as usize - 1]);
        }
        let standard = sim::dynamics::StandardParameters::of_link(model, body as usize - 1);
        for k in 1..=3u8 {
            let quantity = Inertial::FirstMoment(k);
            out.insert(ParamId::Body { body, quantity }, standard.0[k as usize]);
        }
        out.insert(ParamId::Damping { joint: body }, link.joint.damping);
    }
    out.extend(arm_truth(model));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_explained() {
        let ids = [
            ParamId::mass(3),
            ParamId::moment(3, 1),
            ParamId::Body {
                body: 2,
                quantity: Inertial::MassAxis(1),
            },
            ParamId::Body {
                body: 4,
                quantity: Inertial::FirstMoment(2),
            },
            ParamId::Base(7),
            ParamId::GravityBase(3),
            ParamId::InertiaBase(2),
            ParamId::Friction {
                joint: 2,
                term: FrictionTerm::Coefficient(5),
            },
            ParamId::Friction {
                joint: 1,
                term: FrictionTerm::TransitionVelocity,
            },
            ParamId::Damping { joint: 1 },
        ];
        let names: Vec<String> = ids.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "B3.m",
                "B3.j11",
                "B2.m_e1",
                "B4.mc2",
                "base.7",
                "gravity.3",
                "inertia.2",
                "O2.coulomb",
                "O1.transition_velocity",
                "O1.damping"
            ]
        );
        for (id, name) in ids.iter().zip(&names) {
            assert_eq!(&name.parse::<ParamId>().unwrap(), id);
        }
        for bad in ["B3.j12", "base.0", "m1", "O2.sticky", "B3.m_e4", "B3.mc4"] {
            assert!(
                bad.parse::<ParamId>()
                    .unwrap_err()
                    .to_string()
                    .contains(bad)
            );
        }
    }
}
