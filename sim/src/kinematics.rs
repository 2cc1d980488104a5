//! Cardan angles of the MIM paper and their relation to the body-frame angular velocity.
//!
//! The body → world rotation is `A⁽⁰ⁱ⁾ = Rx(α)·Ry(β)·Rz(γ)` (paper eq. 9). The body-frame angular
//! velocity is `ω = D(β, γ)·θ̇` with `θ = (α, β, γ)` (eq. 11a, 12c) and
//! `ω̇ = D·θ̈ + Ḋ·θ̇` (eq. 12d).
//!
//! **Paper errata** (implemented correctly here): eq. 11b prints `Ḋ₃₃ = 1`; the derivative of
//! the constant `D₃₃ = 1` is 0. The same slip puts a spurious `+ γ̇` into `ω̇₃` in eqs. 12e and
//! 16a; the correct term is `ω̇₃ = α̇ β̇ cos β + α̈ sin β + γ̈`.

use nalgebra::{Matrix3, Rotation3, Vector3};

/// `|cos β|` below which a rotation is at gimbal lock (`β = ±π/2` to the last bits of
/// `sin β = A₁₃`): there only `α ± γ` is defined.
pub const GIMBAL_LOCK: f64 = 1e-9;

/// Cardan angles `(α, β, γ)` (rad) of a body → world rotation, `β ∈ [−π/2, π/2]`,
/// `α, γ ∈ (−π, π]`. At gimbal lock ([`GIMBAL_LOCK`]), where the paper's eq. 9 leaves `α` and
/// `γ` undetermined (only `α + γ` at `β = π/2`, `α − γ` at `−π/2`), `γ = 0` and `α` carries
/// the whole rotation about the locked axis (the convention of SciPy's `as_euler`); the
/// generic formulas would give angles of rounding noise there.
pub fn cardan_angles(r: &Rotation3<f64>) -> Vector3<f64> {
    let m = r.matrix();
    let sin_beta = m[(0, 2)].clamp(-1.0, 1.0);
    let beta = sin_beta.asin();
    if beta.cos().abs() < GIMBAL_LOCK {
        // Rx(α)·Ry(±π/2): row 2 is (±sin α, cos α, 0).
        let alpha = (sin_beta.signum() * m[(1, 0)]).atan2(m[(1, 1)]);
        return Vector3::new(alpha, beta, 0.0);
    }
    let alpha = (-m[(1, 2)]).atan2(m[(2, 2)]);
    let gamma = (-m[(0, 1)]).atan2(m[(0, 0)]);
    Vector3::new(alpha, beta, gamma)
}

/// The rotation `Rx(α)·Ry(β)·Rz(γ)` (paper eq. 9).
pub fn rotation_from_cardan(theta: &Vector3<f64>) -> Rotation3<f64> {
    Rotation3::from_axis_angle(&Vector3::x_axis(), theta[0])
        * Rotation3::from_axis_angle(&Vector3::y_axis(), theta[1])
        * Rotation3::from_axis_angle(&Vector3::z_axis(), theta[2])
}

/// `D(β, γ)` of eq. 11a: body-frame `ω = D·θ̇`.
pub(crate) fn d_matrix(theta: &Vector3<f64>) -> Matrix3<f64> {
    let (sb, cb) = theta[1].sin_cos();
    let (sg, cg) = theta[2].sin_cos();
    Matrix3::new(cb * cg, sg, 0.0, -cb * sg, cg, 0.0, sb, 0.0, 1.0)
}

/// `Ḋ` (eq. 11b with its `(3,3)` entry corrected to 0).
pub(crate) fn d_matrix_dot(theta: &Vector3<f64>, theta_d: &Vector3<f64>) -> Matrix3<f64> {
    let (sb, cb) = theta[1].sin_cos();
    let (sg, cg) = theta[2].sin_cos();
    let (bd, gd) = (theta_d[1], theta_d[2]);
    Matrix3::new(
        -bd * sb * cg - gd * cb * sg,
        gd * cg,
        0.0,
        bd * sb * sg - gd * cb * cg,
        -gd * sg,
        0.0,
        bd * cb,
        0.0,
        0.0,
    )
}

/// Cardan-angle rates `(θ̇, θ̈)` from the body-frame `ω` and `ω̇`: `θ̇ = D⁻¹ω`,
/// `θ̈ = D⁻¹(ω̇ − Ḋθ̇)`. At gimbal lock ([`GIMBAL_LOCK`]) `D` has rank 2 and no rates give an
/// `ω` with a component along `(cos γ, −sin γ, 0)`; there the rates are the least-squares
/// solutions of least norm (`D`'s pseudo-inverse), exact wherever `ω` and `ω̇` can be
/// represented — a body at rest, or turning about the locked axis — which is how a recorded
/// arm meets gimbal lock (a joint resting at the angle); passing through it while turning
/// about the other axis is a single instant no sample lands on to `1e-9`. `None` only if `D`
/// cannot be decomposed (non-finite angles).
pub fn cardan_rates(
    theta: &Vector3<f64>,
    omega: &Vector3<f64>,
    omega_dot: &Vector3<f64>,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let d = d_matrix(theta);
    let d_inv = if theta[1].cos().abs() < GIMBAL_LOCK {
        d.pseudo_inverse(1e-12).ok()?
    } else {
        d.try_inverse()?
    };
    let theta_d = d_inv * omega;
    let theta_dd = d_inv * (omega_dot - d_matrix_dot(theta, &theta_d) * theta_d);
    Some((theta_d, theta_dd))
}

/// Body-frame `(ω, ω̇)` from Cardan angles and their rates (eqs. 12c–12d, corrected).
pub fn body_rates(
    theta: &Vector3<f64>,
    theta_d: &Vector3<f64>,
    theta_dd: &Vector3<f64>,
) -> (Vector3<f64>, Vector3<f64>) {
    let d = d_matrix(theta);
    (
        d * theta_d,
        d * theta_dd + d_matrix_dot(theta, theta_d) * theta_d,
    )
}

/// Adds the multiple of 2π to `angle` that brings it closest to `previous` (unwrapping).
pub fn unwrap_angle(angle: f64, previous: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    angle + tau * ((previous - angle) / tau).round()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_gimbal_lock_gamma_is_zero_and_rates_are_exact_where_representable() {
        for beta in [std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2] {
            // α + γ (or α − γ) = 0.9: any split is the same rotation.
            let r = rotation_from_cardan(&Vector3::new(0.5, beta, 0.4 * beta.signum()));
            let theta = cardan_angles(&r);
            assert_eq!(theta[2], 0.0);
            assert!((rotation_from_cardan(&theta).matrix() - r.matrix()).norm() < 1e-14);
            assert!((theta[0] - 0.9).abs() < 1e-14, "{theta}");
            // At rest: zero rates. Turning about the locked axis (body z): a finite split.
            let z = Vector3::zeros();
            assert_eq!(cardan_rates(&theta, &z, &z), Some((z, z)));
            let omega = Vector3::new(0.0, 0.0, 1.3);
            let (td, tdd) = cardan_rates(&theta, &omega, &z).unwrap();
            let (w, wd) = body_rates(&theta, &td, &tdd);
            assert!((w - omega).norm() < 1e-12 && wd.norm() < 1e-12, "{w} {wd}");
        }
    }

    #[test]
    fn cardan_round_trip() {
        let theta = Vector3::new(0.4, -1.1, 2.5);
        let back = cardan_angles(&rotation_from_cardan(&theta));
        assert!((back - theta).norm() < 1e-12);
    }

    #[test]
    fn d_matrix_maps_rates_to_body_angular_velocity() {
        // Differentiate the rotation numerically: ω_body^ = Rᵀ Ṙ.
        let theta = Vector3::new(0.3, 0.5, -0.8);
        let theta_d = Vector3::new(0.7, -0.2, 1.3);
        let h = 1e-6;
        let r = rotation_from_cardan(&theta);
        let rp = rotation_from_cardan(&(theta + theta_d * h));
        let rm = rotation_from_cardan(&(theta - theta_d * h));
        let w = r.matrix().transpose() * (rp.matrix() - rm.matrix()) / (2.0 * h);
        let omega = Vector3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]);
        assert!((d_matrix(&theta) * theta_d - omega).norm() < 1e-8);
    }

    #[test]
    fn d_dot_is_the_time_derivative_of_d() {
        let theta = Vector3::new(0.3, 0.5, -0.8);
        let theta_d = Vector3::new(0.7, -0.2, 1.3);
        let h = 1e-6;
        let num = (d_matrix(&(theta + theta_d * h)) - d_matrix(&(theta - theta_d * h))) / (2.0 * h);
        assert!((num - d_matrix_dot(&theta, &theta_d)).norm() < 1e-8);
    }

    #[test]
    fn rates_round_trip() {
        let theta = Vector3::new(0.3, 0.5, -0.8);
        let (w, wd) = (Vector3::new(0.2, -0.4, 0.9), Vector3::new(-1.0, 0.3, 0.5));
        let (td, tdd) = cardan_rates(&theta, &w, &wd).unwrap();
        let (w2, wd2) = body_rates(&theta, &td, &tdd);
        assert!((w2 - w).norm() < 1e-14 && (wd2 - wd).norm() < 1e-14);
    }
}
