//! MIM, the MIM paper's model identification method (its eqs. 15–20).
//!
//! For body `B_i` the multibody Newton–Euler equations are linear in its inertial parameters
//! `X_i = (m(e1), m(e2), m(e3), J11, J22, J33)` once the joint wrenches and the body's motion
//! are measured:
//!
//! ```text
//! m(e_k) · (r̈_i + g e3)_k = (f_i − f_{i+1})_k                           (eq. 15, world axes)
//! S(ω, ω̇) · (J11, J22, J33)ᵀ = A⁽ⁱ⁰⁾ [n_i − n_{i+1} + (O_i − r_i) × f_i − (O_{i+1} − r_i) × f_{i+1}]
//! ```
//!
//! with `S` the Euler-equation regressor of eq. 16a, rows
//! `(ω̇1, −ω2ω3, ω2ω3)`, `(ω1ω3, ω̇2, −ω1ω3)`, `(−ω1ω2, ω1ω2, ω̇3)`, and the body-frame `ω`, `ω̇`
//! obtained from the Cardan angles and their rates (eq. 12c–d). Our wrench columns are the
//! parent-on-child wrench (the paper's `F^e` with the opposite sign), so the signs above differ
//! from eq. 15a accordingly.
//!
//! **Assumed known** (as in the paper): the centroid position `r_i` and the joint points `O_i`,
//! `O_{i+1}` (the paper's body-joint vectors `C`, eq. 5); here they are read from the measured
//! `pos` and `o` columns. **Estimated**: the six parameters above, nothing else.
//!
//! **Paper errata**: eqs. 12e and 16a carry a spurious `+ γ̇` in `ω̇3` (from `Ḋ₃₃ = 1` in eq. 11b,
//! which should be 0); we use the correct `ω̇3 = α̇β̇ cos β + α̈ sin β + γ̈`
//! ([`sim::kinematics`]).
//!
//! **Identifiability**: each system is solved by [`crate::lsq::solve_identifiable`]: a
//! parameter is reported only where its condition in the column-scaled system is within
//! `1 / tolerance`. Where the data cannot determine a parameter (B1's `m(e2)`, `J22`, `J33` in
//! `paper_rail`) the estimate is `None`, never a number.
//!
//! This module assembles the equations; the estimators that solve them (at one instant, stacked
//! body by body, as one whole-arm system) are [`crate::estimate::mim::estimator`]'s.

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use sim::kinematics::{body_rates, rotation_from_cardan};

use crate::param::{Inertial, ParamId, Values};
use sim::reading::Measurements;

/// The parameters of one body, in the order of `X_i`: the mass from the force balance along
/// each world axis, the central principal moments.
pub const PARAMETERS: [Inertial; 6] = [
    Inertial::MassAxis(1),
    Inertial::MassAxis(2),
    Inertial::MassAxis(3),
    Inertial::Moment(1),
    Inertial::Moment(2),
    Inertial::Moment(3),
];

/// Parameter `k` of [`PARAMETERS`] of body `body` (1-based).
pub fn param(body: u8, k: usize) -> ParamId {
    ParamId::Body {
        body,
        quantity: PARAMETERS[k],
    }
}

/// MIM's mass of body `body` in `values`: its force balance along the first world axis
/// (`e1`, `e2`, `e3` in turn) that the motion determines.
pub fn mass(values: &Values, body: u8) -> Option<f64> {
    (0..3).find_map(|k| values.get(&param(body, k))?.value)
}

/// Default relative singular-value threshold: excitation below 1e-4 of the strongest is treated
/// as absent.
pub(crate) const DEFAULT_TOLERANCE: f64 = 1e-4;

/// The Euler-equation regressor `S(ω, ω̇)` of eq. 16a (body frame).
pub(crate) fn euler_regressor(w: &Vector3<f64>, wd: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(
        wd.x,
        -w.y * w.z,
        w.y * w.z,
        w.x * w.z,
        wd.y,
        -w.x * w.z,
        -w.x * w.y,
        w.x * w.y,
        wd.z,
    )
}

/// The resultant wrench on body `b` (0-based) at sample `k` from its two joints: the force
/// (world, N) and the moment about its centroid (body frame, N·m), the right-hand sides of
/// eq. 15. Reads only measured columns (wrenches, joint points, centroid, Cardan angles).
pub fn centroidal_wrench(data: &Measurements, b: usize, k: usize) -> (Vector3<f64>, Vector3<f64>) {
    let body = &data.bodies[b];
    let (f, n, o, c) = (
        body.force[k],
        body.moment[k],
        body.joint_point[k],
        body.pos[k],
    );
    let (fc, nc, oc) = match data.bodies.get(b + 1) {
        Some(ch) => (ch.force[k], ch.moment[k], ch.joint_point[k]),
        None => (Vector3::zeros(), Vector3::zeros(), Vector3::zeros()),
    };
    let moment_world = n - nc + (o - c).cross(&f) - (oc - c).cross(&fc);
    (
        f - fc,
        rotation_from_cardan(&body.euler[k]).inverse() * moment_world,
    )
}

/// The six equations of body `b` (0-based) at sample `k`: `(Y, Z)` with `Y X_i = Z`, or `None`
/// where the Cardan rates are undefined (gimbal lock).
pub fn body_equations(
    data: &Measurements,
    b: usize,
    k: usize,
) -> Option<(nalgebra::SMatrix<f64, 6, 6>, nalgebra::SVector<f64, 6>)> {
    let body = &data.bodies[b];
    let (w, wd) = body_rates(&body.euler[k], &body.euler_d[k], &body.euler_dd[k]);
    if !(w.iter().chain(wd.iter()).all(|v| v.is_finite())) {
        return None;
    }
    let a = body.acc[k] - data.geometry.gravity_vector();
    let (force, moment) = centroidal_wrench(data, b, k);
    let mut y = nalgebra::SMatrix::<f64, 6, 6>::zeros();
    for axis in 0..3 {
        y[(axis, axis)] = a[axis];
    }
    y.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&euler_regressor(&w, &wd));
    let mut z = nalgebra::SVector::<f64, 6>::zeros();
    z.fixed_rows_mut::<3>(0).copy_from(&force);
    z.fixed_rows_mut::<3>(3).copy_from(&moment);
    Some((y, z))
}

/// Stacks body `b`'s equations over `samples` (skipping undefined ones): `(Y, Z)`.
pub fn stacked(
    data: &Measurements,
    b: usize,
    samples: impl Iterator<Item = usize>,
) -> (DMatrix<f64>, DVector<f64>) {
    let rows: Vec<_> = samples.filter_map(|k| body_equations(data, b, k)).collect();
    let mut y = DMatrix::zeros(6 * rows.len(), 6);
    let mut z = DVector::zeros(6 * rows.len());
    for (r, (yi, zi)) in rows.iter().enumerate() {
        y.view_mut((6 * r, 0), (6, 6)).copy_from(yi);
        z.rows_mut(6 * r, 6).copy_from(zi);
    }
    (y, z)
}

/// The block-diagonal system of every body over every sample (eqs. 19–20): `(Y, Z)` with the
/// parameters of body `b` in columns `6b..6b+6`.
pub(crate) fn whole_arm_system(data: &Measurements) -> (DMatrix<f64>, DVector<f64>) {
    let n = data.bodies.len();
    let blocks: Vec<_> = (0..n)
        .map(|b| stacked(data, b, 0..data.samples()))
        .collect();
    let rows: usize = blocks.iter().map(|(y, _)| y.nrows()).sum();
    let mut y = DMatrix::zeros(rows, 6 * n);
    let mut z = DVector::zeros(rows);
    let mut r = 0;
    for (b, (yb, zb)) in blocks.iter().enumerate() {
        y.view_mut((r, 6 * b), yb.shape()).copy_from(yb);
        z.rows_mut(r, zb.len()).copy_from(zb);
        r += yb.nrows();
    }
    (y, z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euler_regressor_matches_euler_equation() {
        let j = Vector3::new(2.0, 3.0, 4.5);
        let (w, wd) = (Vector3::new(0.3, -0.7, 1.1), Vector3::new(0.2, 0.5, -0.4));
        let inertia = Matrix3::from_diagonal(&j);
        let m = inertia * wd + w.cross(&(inertia * w));
        assert!((euler_regressor(&w, &wd) * j - m).norm() < 1e-14);
    }
}
