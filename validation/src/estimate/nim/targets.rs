//! What NIM's network regresses ([`Parametrization`]): by default the logarithms of the mass
//! and of the body's principal second moments of mass `s_k = ∫ x_k² dm` (body frame, about
//! the centroid), from which
//!
//! `m = e^{z₀}`, `J₁ = s₂ + s₃`, `J₂ = s₁ + s₃`, `J₃ = s₁ + s₂` with `s_k = e^{z_k}`.
//!
//! Whatever the network outputs, the decoded mass is positive and the principal moments satisfy
//! the triangle inequalities strictly (`J_a + J_b − J_c = 2 s_c > 0`): a physically valid body
//! by construction (its pseudo-inertia, `diag(s₁, s₂, s₃, m)` in the principal frame, is positive
//! definite; Wensing et al. 2017). Pooling happens in this space too ([`super::population::pool`]),
//! so pooled estimates are valid as well.
//!
//! A label whose second moment is 0 (a rod about its axis) is floored at [`S_FLOOR`] of the
//! trace before the logarithm.

use serde::{Deserialize, Serialize};

/// Smallest second moment a label is encoded with, relative to `J₁ + J₂ + J₃ = 2 Σ s_k`.
pub const S_FLOOR: f64 = 1e-9;

/// How `(m, J₁₁, J₂₂, J₃₃)` are represented as network targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parametrization {
    /// The values themselves (models saved before the log parametrization; nothing enforces
    /// physical validity).
    #[default]
    Direct,
    /// `(ln m, ln s₁, ln s₂, ln s₃)`: valid by construction.
    LogSecondMoments,
}

impl Parametrization {
    /// Targets of the values `v = (m, J₁₁, J₂₂, J₃₃)` (kg, kg·m²).
    pub(crate) fn encode(self, v: [f64; 4]) -> [f64; 4] {
        match self {
            Parametrization::Direct => v,
            Parametrization::LogSecondMoments => {
                let [m, j1, j2, j3] = v;
                let floor = S_FLOOR * (j1 + j2 + j3);
                let s = |a: f64, b: f64, c: f64| (0.5 * (a + b - c)).max(floor).ln();
                [m.ln(), s(j2, j3, j1), s(j1, j3, j2), s(j1, j2, j3)]
            }
        }
    }

    /// The values of targets `z`.
    pub(crate) fn decode(self, z: [f64; 4]) -> [f64; 4] {
        match self {
            Parametrization::Direct => z,
            Parametrization::LogSecondMoments => {
                let [m, s1, s2, s3] = z.map(f64::exp);
                [m, s2 + s3, s1 + s3, s1 + s2]
            }
        }
    }

    /// The values' variances from the targets' (independent), to first order (delta method).
    pub fn decode_variance(self, z: [f64; 4], var: [f64; 4]) -> [f64; 4] {
        match self {
            Parametrization::Direct => var,
            Parametrization::LogSecondMoments => {
                let [m, s1, s2, s3] = z.map(f64::exp);
                let [vm, v1, v2, v3] = var;
                [
                    m * m * vm,
                    s2 * s2 * v2 + s3 * s3 * v3,
                    s1 * s1 * v1 + s3 * s3 * v3,
                    s1 * s1 * v1 + s2 * s2 * v2,
                ]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_second_moments_round_trip_and_any_targets_decode_to_a_valid_body() {
        let p = Parametrization::LogSecondMoments;
        // A cylinder: m = 2, r = 0.1, l = 0.5.
        let (m, r, l) = (2.0f64, 0.1f64, 0.5f64);
        let axial = m * r * r / 2.0;
        let transverse = m * (3.0 * r * r + l * l) / 12.0;
        let v = [m, axial, transverse, transverse];
        let back = p.decode(p.encode(v));
        for i in 0..4 {
            assert!((back[i] - v[i]).abs() <= 1e-14 * v[i], "{back:?} vs {v:?}");
        }
        for z in [[-30.0, 5.0, -40.0, 0.0], [0.0; 4], [3.0, -3.0, 10.0, -10.0]] {
            let [m, j1, j2, j3] = p.decode(z);
            // Strict in exact arithmetic; a second moment below the others' rounding leaves
            // equality (a planar body), still physically valid.
            assert!(m > 0.0 && j1 > 0.0 && j2 > 0.0 && j3 > 0.0);
            assert!(j1 <= j2 + j3 && j2 <= j1 + j3 && j3 <= j1 + j2, "{z:?}");
        }
        assert_eq!(Parametrization::Direct.decode(v), v);
    }
}
