//! A joint's motor rotor behind its gear (`[[joint]] rotor = { inertia, gear_ratio }`), for rigid
//! joints: the rotor turns at `G q̇`, so its inertia `J_m` enters the joint's equation reflected,
//! `J_m G²` on the diagonal of the joint-space inertia matrix (the "armature" of MuJoCo and of
//! Rapier's multibodies, `Multibody::armature_mut`). The gyroscopic coupling of the spinning rotor
//! with the links' rotation is neglected, as in every rigid-drive identification model.
//!
//! What the dataset records (the contract `RNEA(q, q̇, q̈) = tau + tau_friction` holds): `tau` is
//! the torque the drive delivers to the link, the motor's torque less what accelerates the rotor,
//! `tau = τ_m − J_m G² q̈`; the motor current measures the motor's torque, `i = τ_m / K`. So a
//! torque-driven joint with signal `u = τ_m` records `tau = u − J_m G² q̈` and `i = u / K`, and a
//! prescribed joint records `tau = RNEA − tau_friction` and `i = (tau + J_m G² q̈) / K`.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, positive};

/// A motor rotor behind a gear (revolute joints: kg·m², rad; prismatic: kg and a ratio in rad/m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rotor {
    /// The rotor's inertia about its own axis `J_m` (kg·m², motor side).
    pub inertia: f64,
    /// The gear ratio `G` (motor turns per joint turn).
    pub gear_ratio: f64,
}

impl Rotor {
    /// The inertia reflected to the joint, `J_m G²` (kg·m²).
    pub fn reflected(&self) -> f64 {
        self.inertia * self.gear_ratio * self.gear_ratio
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("inertia", self.inertia, "rotor inertia in kg·m²")?;
        positive("gear_ratio", self.gear_ratio, "gear ratio")
    }
}
