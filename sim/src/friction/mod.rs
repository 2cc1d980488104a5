//! Joint friction models, applied as equal and opposite joint torques each step and recorded in
//! `tau_friction` (the generalized force the friction exerts on the joint, opposing motion).
//!
//! Sign functions are smoothed, `sgn_ε(v) = tanh(v / ε)` with a stated velocity scale `ε`
//! (`smoothing`, rad/s or m/s), so that the explicit per-step application stays stable through
//! velocity reversals. Each model gives the friction *magnitude along the motion* `τ_f(q, q̇)`;
//! the recorded generalized force is `tau_friction = −τ_f`. [`Lugre`] friction has a state, the
//! bristle deflection `z` (rad or m), integrated with the arm and recorded (`bristle_z`); the
//! stateless models ignore it.
//!
//! Beside the model, a joint may have Coulomb friction proportional to its constraint load
//! ([`LoadFriction`]) and a drift of its friction as it warms ([`Drift`]).

mod drift;
mod load;
mod lugre;

use serde::{Deserialize, Serialize};

pub use drift::Drift;
pub use load::{LoadFriction, constraint_load};
pub use lugre::Lugre;

use crate::param::{ParamError, finite, positive};

/// A joint friction model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Friction {
    /// `τ_f = F_c sgn_ε(q̇) + F_v q̇`.
    CoulombViscous {
        /// Coulomb level `F_c` (N·m or N).
        coulomb: f64,
        /// Viscous coefficient `F_v` (N·m·s/rad or N·s/m).
        viscous: f64,
        /// Smoothing velocity `ε` of the sign.
        smoothing: f64,
    },
    /// Stribeck: `τ_f = [F_c + (F_s − F_c) e^{−(q̇/v_s)²}] sgn_ε(q̇) + F_v q̇`.
    Stribeck {
        /// Coulomb level `F_c`.
        coulomb: f64,
        /// Static (breakaway) level `F_s ≥ F_c`.
        static_friction: f64,
        /// Stribeck velocity `v_s`.
        stribeck_velocity: f64,
        /// Viscous coefficient `F_v`.
        viscous: f64,
        /// Smoothing velocity `ε` of the sign.
        smoothing: f64,
    },
    /// LuGre ([`Lugre`]): `τ_f = σ0 z + σ1 ż + σ2 q̇` with the bristle state `z`.
    Lugre(Lugre),
    /// The teaching paper's eq. 15:
    /// `τ_f = τ_s sgn(i_c) (1 − S(q̇)) + [Σ Fourier(q/R) + τ_c] sgn(q̇)
    ///        + [(f₅ sin q + f₆ cos q) sgn(q̇) + τ_v1 q̇ + τ_v2 q̇|q̇|] S(q̇)`,
    /// `Fourier(q/R) = f₁ sin(q/R) + f₂ cos(q/R) + f₃ sin(2q/R) + f₄ cos(2q/R)`,
    /// with the transition `S(q̇) = 1 − e^{−|q̇|/v_t}` (the paper's "S⁻¹" read as its complement).
    /// Realizations the paper leaves open: `sgn(i_c)`, the sign of the motor current, is taken as
    /// `sgn_ε(q̇)` (the current's sign is the solver's output, not known before the step; the two
    /// agree whenever the drive moves the joint), every `sgn` is smoothed, and the paper's `q̇²`
    /// term is written `q̇|q̇|` so that it opposes motion in both directions. For the same reason
    /// the position-dependent terms `f₅ sin q + f₆ cos q` carry `sgn(q̇)`: as printed they are even
    /// in `q̇`, which makes them a conservative, gravity-like torque rather than friction (and
    /// inseparable from gravity by the paper's own forward/backward sweep method).
    Paper {
        /// Static friction `τ_s`.
        static_friction: f64,
        /// Gear ratio `R` of the position-dependent Fourier terms.
        gear_ratio: f64,
        /// `f₁..f₄`.
        fourier: [f64; 4],
        /// Coulomb level `τ_c`.
        coulomb: f64,
        /// `f₅, f₆`: position-dependent terms at the joint angle.
        position: [f64; 2],
        /// Linear viscous `τ_v1`.
        viscous: f64,
        /// Quadratic viscous `τ_v2`.
        quadratic: f64,
        /// Transition velocity `v_t` of `S`.
        transition_velocity: f64,
        /// Smoothing velocity `ε` of the signs.
        smoothing: f64,
    },
}

/// `tanh(v / ε)`.
pub(crate) fn smooth_sign(v: f64, smoothing: f64) -> f64 {
    (v / smoothing).tanh()
}

/// Names of the coefficients of the paper's model, in the order of [`paper_basis`].
pub const PAPER_COEFFICIENTS: [&str; 10] = [
    "static",
    "f1",
    "f2",
    "f3",
    "f4",
    "coulomb",
    "f5",
    "f6",
    "viscous",
    "quadratic",
];

/// The paper's model is linear in its ten coefficients once `R`, `v_t` and `ε` are fixed:
/// `τ_f = Σ c_k φ_k(q, q̇)` with `c = (τ_s, f₁, f₂, f₃, f₄, τ_c, f₅, f₆, τ_v1, τ_v2)` and these
/// `φ_k` ([`Friction::Paper`] states the formula).
pub fn paper_basis(
    q: f64,
    qd: f64,
    gear_ratio: f64,
    transition_velocity: f64,
    smoothing: f64,
) -> [f64; 10] {
    let sign = smooth_sign(qd, smoothing);
    let s = 1.0 - (-qd.abs() / transition_velocity).exp();
    let x = q / gear_ratio;
    [
        sign * (1.0 - s),
        x.sin() * sign,
        x.cos() * sign,
        (2.0 * x).sin() * sign,
        (2.0 * x).cos() * sign,
        sign,
        q.sin() * sign * s,
        q.cos() * sign * s,
        qd * s,
        qd * qd.abs() * s,
    ]
}

impl Friction {
    /// Friction magnitude along the motion, `τ_f(q, q̇)`, the joint feels `−τ_f`; for LuGre at
    /// its steady bristle state (sliding: the Stribeck curve), see [`Friction::with_state`].
    pub fn magnitude(&self, q: f64, qd: f64) -> f64 {
        self.with_state(q, qd, self.steady_state(qd))
    }

    /// The friction curve's slope at rest, `|dτ_f/dq̇|` at `q̇ = 0` at `q` (N·m·s/rad or
    /// N·s/m; for LuGre along its steady state): how stiff the friction is for an explicit
    /// integrator (`F_c / ε` for a Coulomb friction smoothed over `ε`). A central difference
    /// over ±1e-6 rad/s, well inside every smoothing the models allow.
    pub fn slope_at_rest(&self, q: f64) -> f64 {
        const H: f64 = 1e-6;
        ((self.magnitude(q, H) - self.magnitude(q, -H)) / (2.0 * H)).abs()
    }

    /// The part of [`Friction::slope_at_rest`] that is a smoothed sign's: `F_c / ε` of
    /// Coulomb friction, `F_s / ε` of Stribeck's, 0 for the other models. Near rest such a
    /// friction acts as a steep damper that only stops the joint (a sliding joint sees a
    /// constant level): an explicit step resolves it once it stops the joint within a step
    /// without reversing it, which asks far less of the step than an accurate damping does
    /// (`crate::rollout`'s step rule).
    pub fn sign_slope_at_rest(&self) -> f64 {
        match *self {
            Friction::CoulombViscous {
                coulomb, smoothing, ..
            } => coulomb / smoothing,
            Friction::Stribeck {
                static_friction,
                smoothing,
                ..
            } => static_friction / smoothing,
            _ => 0.0,
        }
    }

    /// Friction magnitude along the motion at bristle state `z` (ignored by the stateless
    /// models).
    pub fn with_state(&self, q: f64, qd: f64, z: f64) -> f64 {
        match *self {
            Friction::Lugre(l) => l.magnitude(z, qd),
            Friction::CoulombViscous {
                coulomb,
                viscous,
                smoothing,
            } => coulomb * smooth_sign(qd, smoothing) + viscous * qd,
            Friction::Stribeck {
                coulomb,
                static_friction,
                stribeck_velocity,
                viscous,
                smoothing,
            } => {
                let level = coulomb
                    + (static_friction - coulomb) * (-(qd / stribeck_velocity).powi(2)).exp();
                level * smooth_sign(qd, smoothing) + viscous * qd
            }
            Friction::Paper {
                gear_ratio,
                transition_velocity,
                smoothing,
                ..
            } => paper_basis(q, qd, gear_ratio, transition_velocity, smoothing)
                .iter()
                .zip(self.paper_coefficients().expect("the paper's model"))
                .map(|(b, c)| b * c)
                .sum(),
        }
    }

    /// The bristle state of steady sliding at `q̇` (0 for the stateless models).
    pub fn steady_state(&self, qd: f64) -> f64 {
        match self {
            Friction::Lugre(l) => l.steady(qd),
            _ => 0.0,
        }
    }

    /// The bristle state `z` after `h` seconds at the held rate `q̇` (unchanged for the
    /// stateless models).
    pub fn advance(&self, z: f64, qd: f64, h: f64) -> f64 {
        match self {
            Friction::Lugre(l) => l.advance(z, qd, h),
            _ => z,
        }
    }

    /// Whether the model has a state ([`Lugre`]).
    pub(crate) fn has_state(&self) -> bool {
        matches!(self, Friction::Lugre(_))
    }

    /// The ten linear coefficients of the paper's model in the order of [`paper_basis`]
    /// ([`PAPER_COEFFICIENTS`]); `None` for the other models.
    pub fn paper_coefficients(&self) -> Option<[f64; 10]> {
        match *self {
            Friction::Paper {
                static_friction,
                fourier: [f1, f2, f3, f4],
                coulomb,
                position: [f5, f6],
                viscous,
                quadratic,
                ..
            } => Some([
                static_friction,
                f1,
                f2,
                f3,
                f4,
                coulomb,
                f5,
                f6,
                viscous,
                quadratic,
            ]),
            _ => None,
        }
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        let positive = |field: &str, v: f64| positive(field, v, "number");
        match *self {
            Friction::Lugre(l) => l.validate(),
            Friction::CoulombViscous {
                coulomb,
                viscous,
                smoothing,
            } => {
                finite("coulomb", coulomb)?;
                finite("viscous", viscous)?;
                positive("smoothing", smoothing)
            }
            Friction::Stribeck {
                coulomb,
                static_friction,
                stribeck_velocity,
                viscous,
                smoothing,
            } => {
                finite("coulomb", coulomb)?;
                finite("static_friction", static_friction)?;
                finite("viscous", viscous)?;
                positive("stribeck_velocity", stribeck_velocity)?;
                positive("smoothing", smoothing)
            }
            Friction::Paper {
                static_friction,
                gear_ratio,
                fourier,
                coulomb,
                position,
                viscous,
                quadratic,
                transition_velocity,
                smoothing,
            } => {
                for (name, v) in [
                    ("static_friction", static_friction),
                    ("coulomb", coulomb),
                    ("viscous", viscous),
                    ("quadratic", quadratic),
                ] {
                    finite(name, v)?;
                }
                fourier
                    .iter()
                    .chain(&position)
                    .try_for_each(|v| finite("fourier/position", *v))?;
                positive("gear_ratio", gear_ratio)?;
                positive("transition_velocity", transition_velocity)?;
                positive("smoothing", smoothing)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_model_matches_its_formula() {
        let cv = Friction::CoulombViscous {
            coulomb: 2.0,
            viscous: 0.5,
            smoothing: 1e-3,
        };
        assert!((cv.magnitude(0.3, 0.4) - (2.0 * (400.0f64).tanh() + 0.2)).abs() < 1e-15);
        assert!((cv.magnitude(0.3, -0.4) + cv.magnitude(0.3, 0.4)).abs() < 1e-15);
        assert_eq!(cv.magnitude(1.0, 0.0), 0.0);

        let st = Friction::Stribeck {
            coulomb: 2.0,
            static_friction: 3.0,
            stribeck_velocity: 0.1,
            viscous: 0.5,
            smoothing: 1e-4,
        };
        let v: f64 = 0.05;
        let expect = (2.0 + 1.0 * (-(0.5f64).powi(2)).exp()) * (v / 1e-4).tanh() + 0.5 * v;
        assert!((st.magnitude(0.0, v) - expect).abs() < 1e-15);
        // Breakaway at low speed, Coulomb + viscous at high speed.
        assert!((st.magnitude(0.0, 1e-2) - 3.0).abs() < 0.05);
        assert!((st.magnitude(0.0, 2.0) - (2.0 + 1.0)).abs() < 1e-9);

        let p = Friction::Paper {
            static_friction: 1.5,
            gear_ratio: 100.0,
            fourier: [0.1, -0.2, 0.05, 0.03],
            coulomb: 2.0,
            position: [0.3, -0.1],
            viscous: 0.8,
            quadratic: 0.2,
            transition_velocity: 0.02,
            smoothing: 1e-4,
        };
        let (q, qd): (f64, f64) = (0.7, 0.3);
        let (sign, s, x) = ((qd / 1e-4).tanh(), 1.0 - (-qd / 0.02).exp(), q / 100.0);
        let expect = 1.5 * sign * (1.0 - s)
            + (0.1 * x.sin() - 0.2 * x.cos()
                + 0.05 * (2.0 * x).sin()
                + 0.03 * (2.0 * x).cos()
                + 2.0)
                * sign
            + ((0.3 * q.sin() - 0.1 * q.cos()) * sign + 0.8 * qd + 0.2 * qd * qd) * s;
        assert!((p.magnitude(q, qd) - expect).abs() < 1e-14);
        // Every term opposes motion: the model is odd in the velocity.
        for (q, v) in [(0.0, 3.0), (0.7, 0.3), (-1.2, 0.01), (2.0, 1e-5)] {
            assert!((p.magnitude(q, -v) + p.magnitude(q, v)).abs() < 1e-14);
        }
    }
}
