//! Joint terms: generator effects that put a generalized force on one joint from its state
//! (load-proportional friction, the friction's thermal drift, cogging), each stated by one
//! field of the scenario's `[[joint]]` section.
//!
//! A term is one type implementing [`JointTerm`]: its parameters (serde's form of its field),
//! its checks ([`JointTerm::check_params`], [`JointTerm::check_place`]) and what it adds to
//! the joint at an instant ([`JointTerm::at`]). The one list of terms is
//! `sim::scenario::terms` (the `registered!` macro): its line gives the term its `[[joint]]`
//! field ([`crate::scenario::JointSection`]), its place in the checked drive
//! ([`crate::scenario::JointTerms`]), its checks in every scenario, and its force in every
//! integrator step and in every sample's `tau_friction`.
//!
//! # Sign and units
//! The joint's passive generalized force (N·m on a revolute joint, N on a prismatic one, along
//! the joint axis on the child, the convention of `tau_friction` in [`crate`]) is
//!
//! `τ_passive = −c q̇ − k (q − q₀) − (f + Σ f_k) · Π s_k + Σ F_k`,
//!
//! `c` the joint's viscous damping, `k` and `q₀` the model's joint spring (MJCF's `stiffness`
//! and `springref`; `sim::simulation` adds it beside the terms), `f` its friction model
//! (`sim::friction::Friction`), and each registered term contributing one of [`Contribution`]: a friction `f_k` (a magnitude
//! along the motion, opposing it), a scale `s_k` of the friction (not of the damping), or a
//! force `F_k` added as it is. Each term is evaluated once per instant; the frictions are
//! added in the list's order, the scales multiplied, then the forces summed.

use crate::param::ParamError;

/// Where a term is stated: the joint and how it is driven.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    /// The dataset joint id (0: the rail, a kinematic carriage).
    pub id: u8,
    /// Whether the joint follows a prescribed motion (a kinematic degree of freedom).
    pub prescribed: bool,
    /// Whether a drive acts on the joint (a motion, a torque signal or a servo; not `free`).
    pub actuated: bool,
}

impl Place {
    /// Whether the joint is the rail (joint 0).
    pub(crate) fn is_rail(&self) -> bool {
        self.id == 0
    }
}

/// The joint's state a term reads at an instant.
#[derive(Clone, Copy, Debug)]
pub struct JointNow {
    /// Time since the start of the run (s).
    pub t: f64,
    /// Joint coordinate (rad or m).
    pub q: f64,
    /// Joint rate (rad/s or m/s).
    pub qd: f64,
    /// The joint's constraint load (N; `sim::friction::constraint_load`), computed only where
    /// some term of the scenario asks for it ([`JointTerm::needs_constraint_load`]), else 0.
    pub constraint_load: f64,
}

/// What a term adds to the joint's passive force at an instant (the module's sign convention).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Contribution {
    /// A friction magnitude along the motion (N·m or N), added to the friction model's and
    /// scaled with it; the joint feels its negative.
    Friction(f64),
    /// A scale of the joint's friction (the model's and every [`Contribution::Friction`]).
    Scale(f64),
    /// A generalized force on the joint (N·m or N), added as it is.
    Force(f64),
}

/// A generator effect acting on one joint (the module's docs).
pub trait JointTerm: std::fmt::Debug + Send + Sync {
    /// Checks the parameters; `Err` names the offending parameter and what was expected.
    fn check_params(&self) -> Result<(), ParamError>;

    /// Checks that the term can act where it is stated; `Err` says what was expected.
    fn check_place(&self, place: &Place) -> Result<(), PlaceError> {
        let _ = place;
        Ok(())
    }

    /// Whether the term reads [`JointNow::constraint_load`] (the simulation then computes every
    /// joint's constraint load at each step, from the inverse dynamics).
    fn needs_constraint_load(&self) -> bool {
        false
    }

    /// What the term adds at `now`.
    fn at(&self, now: &JointNow) -> Contribution;
}

/// Why a term cannot act on the joint it is stated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// The term acts through a joint's load or position, which the kinematic rail (joint 0, a
    /// prescribed carriage) does not have.
    #[error("expected none for the kinematic rail")]
    OnTheRail,
}

/// The one kinematic rail refusal of the terms that cannot act on it.
pub fn not_on_the_rail(place: &Place) -> Result<(), PlaceError> {
    if place.is_rail() {
        Err(PlaceError::OnTheRail)
    } else {
        Ok(())
    }
}
