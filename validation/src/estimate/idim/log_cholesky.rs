//! The log-Cholesky parametrization of a body's inertial parameters (Rucker & Wensing 2022,
//! "Smooth parameterization of rigid-body inertia"): ten unconstrained numbers `θ` whose every
//! value is a physically consistent body, and every consistent body (pseudo-inertia `J ≻ 0`,
//! [`sim::physical`]) is reached by exactly one `θ`.
//!
//! `J = U Uᵀ` with `U` upper triangular,
//!
//! ```text
//! U = e^α [ e^d₁  s₁₂   s₁₃   t₁ ]
//!         [  0    e^d₂  s₂₃   t₂ ]
//!         [  0     0    e^d₃  t₃ ]
//!         [  0     0     0    1  ]
//! ```
//!
//! so `m = e^{2α}`. `θ = [α, d₁, d₂, d₃, s₁₂, s₂₃, s₁₃, t₁, t₂, t₃]`. Least squares over `θ` is
//! unconstrained and yields consistent parameters by construction; [`jacobian`] gives
//! `∂π/∂θ` exactly (the map `J ↦ π` is linear).

use nalgebra::{Matrix4, SMatrix};
use sim::dynamics::StandardParameters;

/// The entries of `U` (row, column) that `θ₁..θ₉` set; `θ₀ = α` scales all of `U`.
const ENTRIES: [(usize, usize); 9] = [
    (0, 0),
    (1, 1),
    (2, 2),
    (0, 1),
    (1, 2),
    (0, 2),
    (0, 3),
    (1, 3),
    (2, 3),
];

/// `U(θ)`.
fn factor(theta: &[f64; 10]) -> Matrix4<f64> {
    let mut u = Matrix4::zeros();
    u[(3, 3)] = 1.0;
    for (k, &(i, j)) in ENTRIES.iter().enumerate() {
        u[(i, j)] = if i == j {
            theta[1 + k].exp()
        } else {
            theta[1 + k]
        };
    }
    u * theta[0].exp()
}

/// The standard parameters of `θ` (always physically consistent).
pub fn standard(theta: &[f64; 10]) -> StandardParameters {
    let u = factor(theta);
    StandardParameters::from_pseudo_inertia(&(u * u.transpose()))
}

/// `∂π/∂θ` (10 × 10): column `k` is the derivative of the standard parameters by `θ_k`.
pub fn jacobian(theta: &[f64; 10]) -> SMatrix<f64, 10, 10> {
    let u = factor(theta);
    let scale = theta[0].exp();
    let mut d = SMatrix::<f64, 10, 10>::zeros();
    for k in 0..10 {
        let du = if k == 0 {
            u
        } else {
            let (i, j) = ENTRIES[k - 1];
            let mut du = Matrix4::zeros();
            du[(i, j)] = if i == j { u[(i, j)] } else { scale };
            du
        };
        let dj = du * u.transpose() + u * du.transpose();
        d.set_column(
            k,
            &nalgebra::SVector::<f64, 10>::from(StandardParameters::from_pseudo_inertia(&dj).0),
        );
    }
    d
}

/// The `θ` of consistent parameters, `None` if the pseudo-inertia is not positive definite.
pub(crate) fn from_standard(p: &StandardParameters) -> Option<[f64; 10]> {
    // J = U Uᵀ with U upper triangular: Cholesky of J with rows and columns reversed.
    let j = p.pseudo_inertia();
    let reverse = |m: &Matrix4<f64>| Matrix4::from_fn(|r, c| m[(3 - r, 3 - c)]);
    let l = reverse(&j).cholesky()?.l();
    let u = reverse(&l);
    let scale = u[(3, 3)];
    let mut theta = [0.0; 10];
    theta[0] = scale.ln();
    for (k, &(i, j)) in ENTRIES.iter().enumerate() {
        let v = u[(i, j)] / scale;
        theta[1 + k] = if i == j { v.ln() } else { v };
    }
    Some(theta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix3, Vector3};

    fn body() -> StandardParameters {
        let r = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1);
        let i_c = r * Matrix3::from_diagonal(&Vector3::new(0.02, 0.05, 0.06)) * r.inverse();
        StandardParameters::from_central(3.5, &Vector3::new(0.1, -0.2, 0.05), &i_c)
    }

    #[test]
    fn round_trip_and_every_theta_is_consistent() {
        let p = body();
        let theta = from_standard(&p).unwrap();
        for (a, b) in standard(&theta).0.iter().zip(p.0) {
            assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{a} vs {b}");
        }
        for k in 0..50 {
            let t: [f64; 10] = std::array::from_fn(|i| ((k * 7 + i * 3) as f64).sin() * 2.0);
            sim::physical::check(&standard(&t)).unwrap();
        }
    }

    #[test]
    fn the_jacobian_matches_finite_differences() {
        let theta = from_standard(&body()).unwrap();
        let d = jacobian(&theta);
        for k in 0..10 {
            let h = 1e-6;
            let (mut up, mut down) = (theta, theta);
            up[k] += h;
            down[k] -= h;
            let (a, b) = (standard(&up).0, standard(&down).0);
            for i in 0..10 {
                let fd = (a[i] - b[i]) / (2.0 * h);
                assert!(
                    (fd - d[(i, k)]).abs() <= 1e-7,
                    "∂π{i}/∂θ{k}: {fd} vs {}",
                    d[(i, k)]
                );
            }
        }
    }
}
