//! LuGre friction (Canudas de Wit, Olsson, Åström & Lischinsky, "A new model for control of
//! systems with friction", IEEE TAC 1995): the contact as bristles of mean deflection `z`,
//!
//! `ż = q̇ − σ0 |q̇| z / g(q̇)`,  `g(q̇) = F_c + (F_s − F_c) e^{−(q̇/v_s)²}`,
//! `τ_f = σ0 z + σ1 ż + σ2 q̇`,  `z(0) = 0`,
//!
//! `τ_f` the friction along the motion (the joint feels `−τ_f`). At rest under a load below
//! `F_s` the bristles deflect and hold (pre-sliding, stiffness `σ0`); sliding at constant `q̇`
//! they settle at `z = sgn(q̇) g(q̇)/σ0`, where `τ_f` is the Stribeck curve `g(q̇) sgn(q̇) + σ2 q̇`.
//!
//! Integration with the arm: the friction applied over an integrator step of length `h`, and
//! recorded at its start, is `τ_f(z(t), q̇(t))` (the arm's integrator holds every load over the
//! step). Once the step is taken, `z` is advanced over it at the step's mean rate
//! `q̄ = (q̇(t) + q̇(t + h))/2`, with which the bristle equation is linear in `z` and is solved
//! exactly, `z(t + h) = z_ss + (z(t) − z_ss) e^{−a h}`, `a = σ0 |q̄| / g(q̄)`, `z_ss = q̄ / a`
//! ([`Lugre::advance`]): unconditionally stable however stiff the bristles are (`a h` reaches
//! 10² and more at the stiffnesses real joints have), and second-order in `h` where the rate
//! changes (holding the starting rate instead put `z` 5 % of its range off an RK4 integration
//! on the recorded velocities, `sim/tests/suite/lugre.rs`).

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative, positive};

/// The LuGre model's parameters (revolute joints: N·m, rad; prismatic: N, m).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lugre {
    /// Coulomb level `F_c > 0` (N·m).
    pub coulomb: f64,
    /// Static (breakaway) level `F_s ≥ F_c` (N·m).
    pub static_friction: f64,
    /// Stribeck velocity `v_s > 0` (rad/s).
    pub stribeck_velocity: f64,
    /// Bristle stiffness `σ0 > 0` (N·m/rad).
    pub bristle_stiffness: f64,
    /// Bristle damping `σ1 ≥ 0` (N·m·s/rad).
    pub bristle_damping: f64,
    /// Viscous coefficient `σ2 ≥ 0` (N·m·s/rad).
    pub viscous: f64,
}

impl Lugre {
    /// `g(q̇)`, the sliding friction level (N·m).
    pub fn level(&self, qd: f64) -> f64 {
        let (fc, fs) = (self.coulomb, self.static_friction);
        fc + (fs - fc) * (-(qd / self.stribeck_velocity).powi(2)).exp()
    }

    /// `ż` at bristle deflection `z` and rate `q̇` (rad/s).
    pub fn rate(&self, z: f64, qd: f64) -> f64 {
        qd - self.bristle_stiffness * qd.abs() * z / self.level(qd)
    }

    /// The friction along the motion `τ_f = σ0 z + σ1 ż + σ2 q̇` (N·m).
    pub fn magnitude(&self, z: f64, qd: f64) -> f64 {
        self.bristle_stiffness * z + self.bristle_damping * self.rate(z, qd) + self.viscous * qd
    }

    /// The deflection at which sliding at `q̇` is steady, `sgn(q̇) g(q̇)/σ0` (rad).
    pub fn steady(&self, qd: f64) -> f64 {
        qd.signum() * self.level(qd) / self.bristle_stiffness * f64::from(qd != 0.0)
    }

    /// `z` after `h` seconds at the held rate `q̇`, exactly (module docs).
    pub fn advance(&self, z: f64, qd: f64, h: f64) -> f64 {
        if qd == 0.0 {
            return z;
        }
        let a = self.bristle_stiffness * qd.abs() / self.level(qd);
        let z_ss = qd / a;
        z_ss + (z - z_ss) * (-a * h).exp()
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("coulomb", self.coulomb, "number")?;
        positive("stribeck_velocity", self.stribeck_velocity, "number")?;
        positive("bristle_stiffness", self.bristle_stiffness, "number")?;
        finite("static_friction", self.static_friction)?;
        if self.static_friction < self.coulomb {
            return Err((
                "static_friction".into(),
                format!(
                    "expected F_s ≥ F_c = {}, got {}",
                    self.coulomb, self.static_friction
                ),
            ));
        }
        non_negative("bristle_damping", self.bristle_damping)?;
        non_negative("viscous", self.viscous)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Lugre = Lugre {
        coulomb: 1.0,
        static_friction: 1.5,
        stribeck_velocity: 0.1,
        bristle_stiffness: 1e4,
        bristle_damping: 50.0,
        viscous: 0.4,
    };

    #[test]
    fn sliding_settles_on_the_stribeck_curve() {
        for qd in [-2.0, -0.05, 0.02, 0.3, 1.0] {
            let z = L.advance(0.0, qd, 10.0);
            assert!((z - L.steady(qd)).abs() < 1e-15, "{qd}");
            assert!(L.rate(z, qd).abs() < 1e-12, "{qd}");
            let stribeck = L.level(qd) * qd.signum() + L.viscous * qd;
            assert!((L.magnitude(z, qd) - stribeck).abs() < 1e-9, "{qd}");
        }
    }

    #[test]
    fn the_exact_step_agrees_with_many_small_rk4_steps() {
        let (qd, h, n) = (0.2, 1e-3, 1000);
        let dt = h / n as f64;
        let mut z = -3e-5;
        for _ in 0..n {
            let k1 = L.rate(z, qd);
            let k2 = L.rate(z + 0.5 * dt * k1, qd);
            let k3 = L.rate(z + 0.5 * dt * k2, qd);
            let k4 = L.rate(z + dt * k3, qd);
            z += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        }
        assert!((L.advance(-3e-5, qd, h) - z).abs() < 1e-9 * L.steady(qd).abs());
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = Lugre {
            static_friction: 0.5,
            ..L
        };
        assert_eq!(bad.validate().unwrap_err().0, "static_friction");
        let bad = Lugre {
            bristle_damping: -1.0,
            ..L
        };
        assert_eq!(bad.validate().unwrap_err().0, "bristle_damping");
    }
}
