//! What the sweep analysis ([`super::friction_sweep`]) identifies: each joint's friction (the
//! teaching paper's eq. 15) and the gravity base parameters, together a torque model.

use nalgebra::{DMatrix, DVector};
use sim::friction::paper_basis;
use sim::model::Chain;

use super::TorqueModel;
use crate::param::{FrictionTerm, ParamId};
use crate::regressor::{BaseParameters, regressor};

/// Sign smoothing used by the estimator's model: effectively a plain sign.
pub(crate) const SIGN: f64 = 1e-12;

/// The paper's friction model of one joint, identified.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct JointFriction {
    /// Gear ratio `R` of the ripple terms.
    pub gear_ratio: f64,
    /// Transition velocity `v_t` (rad/s).
    pub transition_velocity: f64,
    /// `(τ_s, f₁..f₄, τ_c, f₅, f₆, τ_v1, τ_v2)` ([`sim::friction::PAPER_COEFFICIENTS`]).
    pub coefficients: [f64; 10],
}

impl JointFriction {
    /// The linear basis at `(q, q̇)` with this joint's `R` and `v_t`.
    pub(crate) fn basis(&self, q: f64, qd: f64) -> [f64; 10] {
        paper_basis(q, qd, self.gear_ratio, self.transition_velocity, SIGN)
    }

    /// Friction magnitude along the motion (N·m): the drive must add it.
    pub fn torque(&self, q: f64, qd: f64) -> f64 {
        self.basis(q, qd)
            .iter()
            .zip(&self.coefficients)
            .map(|(b, c)| b * c)
            .sum()
    }
}

/// Gravity torques `Y_g(q) β_g` on the base parameters of the gravity regressor.
#[derive(Clone, Debug)]
pub struct Gravity {
    pub(crate) geometry: Chain,
    /// The gravity regressor's base.
    pub base: BaseParameters,
    /// Its parameters `β_g`.
    pub beta: DVector<f64>,
}

/// The gravity regressor's base columns at `q` (joints × base).
pub(crate) fn gravity_regressor(
    geometry: &Chain,
    base: &BaseParameters,
    q: &[f64],
) -> DMatrix<f64> {
    let z = vec![0.0; q.len()];
    base.regressor(&regressor(geometry, q, &z, &z, &geometry.gravity_vector()))
}

impl Gravity {
    /// Gravity torques at `q` (dataset joint order).
    pub fn torque(&self, q: &[f64]) -> DVector<f64> {
        gravity_regressor(&self.geometry, &self.base, q) * &self.beta
    }
}

/// Friction of every joint (`None` where it was not swept) and gravity.
#[derive(Clone, Debug)]
pub struct FrictionGravity {
    /// Per dataset joint.
    pub friction: Vec<Option<JointFriction>>,
    /// Gravity.
    pub gravity: Gravity,
}

impl FrictionGravity {
    /// The estimates: every joint's friction terms, then the gravity base parameters.
    pub fn parameters(&self, ids: &[u8]) -> Vec<(ParamId, f64)> {
        let mut out = Vec::new();
        for (f, &joint) in self.friction.iter().zip(ids) {
            if let Some(f) = f {
                let term = |term| ParamId::Friction { joint, term };
                for (k, c) in f.coefficients.iter().enumerate() {
                    out.push((term(FrictionTerm::Coefficient(k)), *c));
                }
                out.push((
                    term(FrictionTerm::TransitionVelocity),
                    f.transition_velocity,
                ));
                out.push((term(FrictionTerm::GearRatio), f.gear_ratio));
            }
        }
        for (k, b) in self.gravity.beta.iter().enumerate() {
            out.push((ParamId::GravityBase(k + 1), *b));
        }
        out
    }

    /// The friction torque vector the drives must add at `(q, q̇)` (0 for unswept joints).
    pub(crate) fn friction_torque(&self, q: &[f64], qd: &[f64]) -> Vec<f64> {
        self.friction
            .iter()
            .enumerate()
            .map(|(j, f)| f.as_ref().map_or(0.0, |f| f.torque(q[j], qd[j])))
            .collect()
    }
}

impl TorqueModel for FrictionGravity {
    fn torque(&self, q: &[f64], qd: &[f64], _qdd: &[f64]) -> Vec<f64> {
        let g = self.gravity.torque(q);
        self.friction_torque(q, qd)
            .iter()
            .zip(g.iter())
            .map(|(f, g)| f + g)
            .collect()
    }
}
