//! The one list of joint terms (`sim::term`): each line a `[[joint]]` field and the type that
//! reads it. A new term is its module (its type implementing [`crate::term::JointTerm`]) and one
//! line here; the line gives it its field in a `[[joint]]` section (`JointSection`), its place in
//! [`JointTerms`], its checks in every scenario and its force in every step and sample.

use crate::term::{Contribution, JointNow, JointTerm};

/// Calls the macro `$then` with the registered terms, `field: Type`, each with its docs, in
/// the order a step adds them.
macro_rules! registered {
    ($then:ident) => {
        $then! {
            /// Coulomb friction proportional to the joint's constraint load
            /// (`sim::friction::LoadFriction`); default none.
            load_friction: crate::friction::LoadFriction,
            /// The friction's drift as the joint warms (`sim::friction::Drift`); default none.
            friction_drift: crate::friction::Drift,
            /// The motor's cogging torque, periodic in the joint's coordinate
            /// (`sim::cogging::Cogging`); default none.
            cogging: crate::cogging::Cogging,
        }
    };
}
pub(super) use registered;

/// Defines [`JointTerms`] from the list.
macro_rules! joint_terms {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// The registered terms a joint's section states (`sim::term`), checked.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct JointTerms {
            $($(#[$doc])* pub $field: Option<$ty>,)*
        }

        impl JointTerms {
            /// The stated terms with their fields, in the list's order.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, &dyn JointTerm)> {
                [$(self.$field.as_ref().map(|t| (stringify!($field), t as &dyn JointTerm)),)*]
                    .into_iter()
                    .flatten()
            }
        }
    };
}
registered!(joint_terms);

impl JointTerms {
    /// Whether some term reads the joint's constraint load.
    pub(crate) fn need_constraint_load(&self) -> bool {
        self.iter().any(|(_, t)| t.needs_constraint_load())
    }

    /// The joint's passive generalized force at `now` (`sim::term`'s sign convention) with
    /// viscous damping `damping` and the friction model's force `friction` along the motion:
    /// each term evaluated once, the frictions added in the list's order, then the product of
    /// the scales applied, then the sum of the forces added.
    pub fn passive_force(&self, damping: f64, friction: f64, now: &JointNow) -> f64 {
        let (mut model, mut scale, mut forces) = (friction, None, None);
        for (_, term) in self.iter() {
            match term.at(now) {
                Contribution::Friction(f) => model += f,
                Contribution::Scale(s) => scale = Some(scale.map_or(s, |p: f64| p * s)),
                Contribution::Force(f) => forces = Some(forces.map_or(f, |p: f64| p + f)),
            }
        }
        if let Some(s) = scale {
            model *= s;
        }
        let passive = -damping * now.qd - model;
        forces.map_or(passive, |f| passive + f)
    }
}
