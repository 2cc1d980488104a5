//! Coulomb friction that grows with the joint's constraint load (`[[joint]] load_friction =
//! { coefficient, smoothing }`): a joint's bearings (or a slide's guides) press with the force
//! the joint transmits, and their Coulomb friction is proportional to it, the bearing-friction
//! model `M = μ P d / 2` of rolling-bearing catalogues (SKF, "Rolling bearings", the friction
//! moment from the bearing load `P`, bore `d` and a friction coefficient `μ`):
//!
//! `τ_f = c N sgn_ε(q̇)`, with `N` the joint's constraint load (N): the magnitude of the force
//! the parent exerts on the child through the joint ([`crate::wrench::JointWrench`]), all of it
//! on a revolute joint, its part across the axis on a prismatic one (the part along the axis is
//! the actuation). `c = μ d / 2` is in metres on a revolute joint (N·m per N of load) and
//! dimensionless on a prismatic joint. Moments across a revolute axis also load bearings; they
//! are left out (their lever arm is a bearing-layout detail no model file states).
//!
//! Integration with the arm: the load depends on the acceleration the friction helps to set,
//! so it is taken explicitly, from the inverse dynamics at the start of each step with the
//! joints' accelerations over the step before (0 before the first step; a prescribed joint's
//! profile acceleration); the friction applied over the step and recorded at its start is the
//! one of that load.

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

use super::smooth_sign;
use crate::param::{ParamError, non_negative, positive};
use crate::term::{Contribution, JointNow, JointTerm, Place, PlaceError, not_on_the_rail};

/// Load-proportional Coulomb friction of one joint.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadFriction {
    /// `c`: friction per unit constraint load (m on a revolute joint, 1 on a prismatic one).
    pub coefficient: f64,
    /// Smoothing velocity `ε` of the sign (rad/s or m/s).
    pub smoothing: f64,
}

impl LoadFriction {
    /// The friction along the motion at the constraint load `load` (N) and rate `q̇`.
    pub fn magnitude(&self, load: f64, qd: f64) -> f64 {
        self.coefficient * load * smooth_sign(qd, self.smoothing)
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        non_negative("coefficient", self.coefficient)?;
        positive("smoothing", self.smoothing, "velocity scale of the sign")
    }
}

/// `load_friction` (`sim::scenario::terms`): a friction along the motion, on any joint but
/// the rail.
impl JointTerm for LoadFriction {
    fn check_params(&self) -> Result<(), ParamError> {
        self.validate()
    }

    fn check_place(&self, place: &Place) -> Result<(), PlaceError> {
        not_on_the_rail(place)
    }

    fn needs_constraint_load(&self) -> bool {
        true
    }

    fn at(&self, now: &JointNow) -> Contribution {
        Contribution::Friction(self.magnitude(now.constraint_load, now.qd))
    }
}

/// A joint's constraint load `N` (N) from the force `F` its parent exerts through it (world):
/// `|F|` on a revolute joint (`sliding_axis` none), `|F − (F·a) a|` on a prismatic one of
/// world-frame unit axis `a`.
pub fn constraint_load(force: &Vector3<f64>, sliding_axis: Option<&Vector3<f64>>) -> f64 {
    match sliding_axis {
        None => force.norm(),
        Some(a) => (force - a * force.dot(a)).norm(),
    }
}
