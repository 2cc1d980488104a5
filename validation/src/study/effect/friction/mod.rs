//! The effects written into a joint's friction (`sim::friction`): LuGre in place of
//! Coulomb–viscous, a load-dependent Coulomb term, a thermal drift. The table of what each
//! writes is in [`super`].

pub(super) mod friction_drift;
pub(super) mod load_friction;
pub(super) mod lugre;
