//! MIM as the efficient estimator under joint force/torque sensor noise: whole-arm generalized
//! least squares, and the Cramér–Rao bound it attains.
//!
//! Body `i`'s equations (see [`super::algorithm`]) have the wrenches of *two* joints on their right
//! side, `O_i` and `O_{i+1}`: a sensor's noise enters body `i`'s equations and body `i−1`'s, so
//! the bodies' errors are correlated and per-body least squares is not efficient. Per sample
//! `k`, stack every body's six equations, `Z_k = Y_k X + H_k e_k`, with `e_k` the wrench errors
//! `(δf_1, δn_1, …, δf_n, δn_n)` (world frame) of covariance `C_k` and `H_k` the map of
//! [`super::algorithm::centroidal_wrench`]:
//!
//! ```text
//! force rows of body i:  δf_i − δf_{i+1}
//! moment rows of body i: A⁽ⁱ⁰⁾ [δn_i − δn_{i+1} + (O_i − r_i) × δf_i − (O_{i+1} − r_i) × δf_{i+1}]
//! ```
//!
//! With white errors and a clean regressor (`Y` is kinematics: noise on the wrenches only), the
//! Fisher information is `F = Σ_k Y_kᵀ (H_k C_k H_kᵀ)⁻¹ Y_k`; GLS with those weights is unbiased
//! with covariance `F⁻¹`, the Cramér–Rao bound. `C_k` comes from the run's *stated* measurement
//! model (a datasheet): a force/torque sensor's per-axis σ in the child body's frame (rotated by
//! the measured Cardan angles), plus the variance of `[[noise]]` laws on the `f`, `n` columns
//! (world axes; Gaussian σ², uniform a²/3, paper-uniform a²/12, quantization r²/12; biases and
//! scale-factor errors are not noise and are left out).

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use sim::kinematics::rotation_from_cardan;
use sim::noise::Noise;
use sim::recording::BodyGroup;
use sim::sensor::Sensor;

use super::algorithm::{DEFAULT_TOLERANCE, body_equations, stacked};
use crate::estimate::NotApplicable;
use crate::lsq::solve_identifiable;
use sim::reading::Measurements;

/// The stated variances of one joint's wrench errors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct JointNoise {
    /// Force and moment variances per axis of the child body's frame (N², (N·m)²).
    sensor: [Vector3<f64>; 2],
    /// Force and moment variances per world axis.
    world: [Vector3<f64>; 2],
}

/// The stated wrench-noise model of a run, per joint `O_i` (index `i − 1`).
#[derive(Clone, Debug, PartialEq)]
pub struct WrenchNoise {
    joints: Vec<JointNoise>,
}

/// The variance a sequence of noise laws adds (biases are not noise: 0; nor are the sensor
/// chain's deterministic laws, a filter, a delay, the converter's range, which bias a reading
/// without adding variance to it).
pub(crate) fn law_variance(laws: &[Noise]) -> f64 {
    laws.iter()
        .map(|l| match *l {
            Noise::Gaussian { sigma } => sigma * sigma,
            Noise::Uniform { amplitude } => amplitude * amplitude / 3.0,
            Noise::PaperUniform { amplitude } => amplitude * amplitude / 12.0,
            Noise::Quantize { resolution } => resolution * resolution / 12.0,
            Noise::Bias { .. }
            | Noise::Saturate { .. }
            | Noise::Delay { .. }
            | Noise::AntiAliasing { .. } => 0.0,
        })
        .sum()
}

impl WrenchNoise {
    /// The model a run states; `Err` says which joint's force or moment has no stated noise
    /// (GLS needs every channel weighted).
    pub fn stated(data: &Measurements) -> Result<Self, NotApplicable> {
        let joints: Vec<JointNoise> = (1..=data.bodies.len() as u8)
            .map(|b| {
                let mut j = JointNoise::default();
                for s in data.stated.sensors.iter().filter(|s| s.covers_body(b)) {
                    if let Sensor::ForceTorque { force, torque, .. } = s {
                        j.sensor[0] += Vector3::from(force.sigma.axes()).map(|v| v * v);
                        j.sensor[1] += Vector3::from(torque.sigma.axes()).map(|v| v * v);
                    }
                }
                for law in &data.stated.noise {
                    let covers = law.bodies.as_ref().is_none_or(|bs| bs.contains(&b));
                    let k = match BodyGroup::from_name(&law.column) {
                        Some(BodyGroup::F) => 0,
                        Some(BodyGroup::N) => 1,
                        _ => continue,
                    };
                    if covers {
                        j.world[k] += Vector3::repeat(law_variance(&law.model));
                    }
                }
                j
            })
            .collect();
        for (i, j) in joints.iter().enumerate() {
            for (k, what) in ["force", "moment"].iter().enumerate() {
                if (j.sensor[k] + j.world[k]).min() <= 0.0 {
                    return Err(NotApplicable::new(format!(
                        "needs a stated noise on every axis of every joint's {what} (joint O{}: a `force_torque` sensor's sigma or `[[noise]]` on `{}`)",
                        i + 1,
                        ["f", "n"][k]
                    )));
                }
            }
        }
        Ok(WrenchNoise { joints })
    }

    /// Joint `i`'s (0-based) force and moment noise as one standard deviation each (N, N·m):
    /// the root of the mean of the three axes' variances (the trace of the covariance over 3,
    /// which does not depend on the body's orientation).
    pub fn rms(&self, i: usize) -> (f64, f64) {
        let j = &self.joints[i];
        let rms = |k: usize| ((j.sensor[k] + j.world[k]).sum() / 3.0).sqrt();
        (rms(0), rms(1))
    }

    /// World-frame covariance of joint `i`'s (0-based) force (`k = 0`) or moment (`k = 1`)
    /// error, its child body at orientation `r`.
    fn covariance(&self, i: usize, k: usize, r: &Matrix3<f64>) -> Matrix3<f64> {
        let j = &self.joints[i];
        r * Matrix3::from_diagonal(&j.sensor[k]) * r.transpose()
            + Matrix3::from_diagonal(&j.world[k])
    }
}

/// The Fisher information of the whole arm's parameters `X` (`6n`, bodies in order, each
/// `m(e1), m(e2), m(e3), J11, J22, J33`), the GLS right side, and which parameters the data
/// determine (as MIM's per-body truncated SVD decides).
#[derive(Clone, Debug)]
pub struct Information {
    /// `Σ_k Y_kᵀ W_k Y_k`.
    pub matrix: DMatrix<f64>,
    /// `Σ_k Y_kᵀ W_k Z_k`.
    pub rhs: DVector<f64>,
    /// Per parameter.
    pub identifiable: Vec<bool>,
}

/// `H_k C_k H_kᵀ` at sample `k`.
fn equation_covariance(data: &Measurements, noise: &WrenchNoise, k: usize) -> DMatrix<f64> {
    let n = data.bodies.len();
    // e = (δf_1, δn_1, …): 6n world components; h maps them to the 6n equations.
    let mut h = DMatrix::zeros(6 * n, 6 * n);
    let mut c = DMatrix::zeros(6 * n, 6 * n);
    let cross = |v: Vector3<f64>| v.cross_matrix();
    for b in 0..n {
        let body = &data.bodies[b];
        let r = rotation_from_cardan(&body.euler[k]).into_inner();
        for kk in 0..2 {
            c.view_mut((6 * b + 3 * kk, 6 * b + 3 * kk), (3, 3))
                .copy_from(&noise.covariance(b, kk, &r));
        }
        let (row_f, row_n) = (6 * b, 6 * b + 3);
        let rt = r.transpose();
        h.view_mut((row_f, 6 * b), (3, 3))
            .copy_from(&Matrix3::identity());
        h.view_mut((row_n, 6 * b + 3), (3, 3)).copy_from(&rt);
        h.view_mut((row_n, 6 * b), (3, 3))
            .copy_from(&(rt * cross(body.joint_point[k] - body.pos[k])));
        if let Some(child) = data.bodies.get(b + 1) {
            let cb = 6 * (b + 1);
            h.view_mut((row_f, cb), (3, 3))
                .copy_from(&(-Matrix3::identity()));
            h.view_mut((row_n, cb + 3), (3, 3)).copy_from(&(-rt));
            h.view_mut((row_n, cb), (3, 3))
                .copy_from(&(-rt * cross(child.joint_point[k] - body.pos[k])));
        }
    }
    &h * c * h.transpose()
}

/// The information of the run under the stated noise, over every sample where every body's
/// equations are defined.
pub fn information(data: &Measurements, noise: &WrenchNoise) -> Information {
    let n = data.bodies.len();
    let mut matrix = DMatrix::zeros(6 * n, 6 * n);
    let mut rhs = DVector::zeros(6 * n);
    for k in 0..data.samples() {
        let eqs: Option<Vec<_>> = (0..n).map(|b| body_equations(data, b, k)).collect();
        let Some(eqs) = eqs else { continue };
        let mut y = DMatrix::zeros(6 * n, 6 * n);
        let mut z = DVector::zeros(6 * n);
        for (b, (yb, zb)) in eqs.iter().enumerate() {
            y.view_mut((6 * b, 6 * b), (6, 6)).copy_from(yb);
            z.rows_mut(6 * b, 6).copy_from(zb);
        }
        let w = equation_covariance(data, noise, k)
            .try_inverse()
            .expect("a positive definite covariance (every channel has stated noise)");
        let ytw = y.transpose() * w;
        matrix += &ytw * &y;
        rhs += ytw * z;
    }
    let identifiable = (0..n)
        .flat_map(|b| {
            let (y, z) = stacked(data, b, 0..data.samples());
            solve_identifiable(&y, &(z * 0.0), DEFAULT_TOLERANCE)
                .into_iter()
                .map(|v| v.is_some())
        })
        .collect();
    Information {
        matrix,
        rhs,
        identifiable,
    }
}

impl Information {
    /// The inverse of the information restricted to the identifiable parameters, as
    /// `(indices, inverse)`.
    fn reduced_inverse(&self) -> (Vec<usize>, DMatrix<f64>) {
        let idx: Vec<usize> = (0..self.identifiable.len())
            .filter(|&i| self.identifiable[i])
            .collect();
        let m = DMatrix::from_fn(idx.len(), idx.len(), |r, c| self.matrix[(idx[r], idx[c])]);
        let inv = m
            .clone()
            .cholesky()
            .map(|ch| ch.inverse())
            .unwrap_or_else(|| m.pseudo_inverse(1e-300).expect("SVD"));
        (idx, inv)
    }

    /// The Cramér–Rao bound: the standard deviation of every identifiable parameter.
    pub fn bound(&self) -> Vec<Option<f64>> {
        let (idx, inv) = self.reduced_inverse();
        let mut out = vec![None; self.identifiable.len()];
        for (r, &i) in idx.iter().enumerate() {
            out[i] = Some(inv[(r, r)].sqrt());
        }
        out
    }

    /// The GLS estimate `(value, std)` of every parameter (`None` where not identifiable).
    pub fn solve(&self) -> Vec<(Option<f64>, Option<f64>)> {
        let (idx, inv) = self.reduced_inverse();
        let b = DVector::from_fn(idx.len(), |r, _| self.rhs[idx[r]]);
        let x = &inv * b;
        let mut out = vec![(None, None); self.identifiable.len()];
        for (r, &i) in idx.iter().enumerate() {
            out[i] = (Some(x[r]), Some(inv[(r, r)].sqrt()));
        }
        out
    }
}
