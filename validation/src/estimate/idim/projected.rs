//! Least squares over physically consistent bodies, by the alternating direction method of
//! multipliers (ADMM; Boyd et al. 2011, §5 and §3.4.1): the convex problem
//!
//! ```text
//! minimize ½‖D x − d‖² + ½‖W (π − π_ref)‖²   subject to   J_k(π_k) ⪰ 0 for every link k
//! ```
//!
//! over `x = (π, c)` (standard parameters of every link, then friction coefficients), with `J_k`
//! the link's pseudo-inertia ([`sim::physical`]), linear in `π_k`. It is split as `Ĵ_k(π_k) = Z_k`,
//! `Z_k ⪰ 0`: the `x`-step is a linear least-squares solve (one QR factorization per penalty),
//! the `Z`-step the projection of a symmetric 4 × 4 matrix onto the positive semidefinite cone
//! (its negative eigenvalues set to zero). `Ĵ_k = T_k J_k T_k` is the pseudo-inertia in the
//! link's own scale (`T_k = diag(1/ℓ, 1/ℓ, 1/ℓ, 1)/√m`, `m` and `ℓ` the prior's), so that its
//! entries are of order one and the tolerances below are relative.
//!
//! The optimum of a link whose data push it out of the consistent set lies on the set's
//! boundary (`J_k` singular: the body's mass in a plane). The log-Cholesky parametrization
//! ([`super::log_cholesky`]) reaches the boundary only as a parameter goes to infinity, so
//! Levenberg–Marquardt on it creeps there and stops when it loses patience (16 600 evaluations
//! on a UR10 run of the test suite, its objective still falling); ADMM reaches the boundary point
//! itself. The answer returned is feasible by construction: the links' `π` from the projected
//! `Z_k` lifted [`MARGIN`] inside the boundary (every body with three positive moments), the
//! friction coefficients the least-squares ones for those bodies.

use nalgebra::{DMatrix, DVector, Matrix4, SMatrix, SVector};
use sim::dynamics::StandardParameters;

/// The problem: `D`, `d`, the prior's weights `W` (diagonal, one per standard parameter), the
/// prior `π_ref`, and each link's scale `(m, ℓ)`.
pub(super) struct Problem<'a> {
    /// `D` (rows: equations; columns: `(π, c)`).
    pub data: &'a DMatrix<f64>,
    /// `d`.
    pub d: &'a DVector<f64>,
    /// `W`'s diagonal, one entry per standard parameter.
    pub weights: DVector<f64>,
    /// `π_ref`.
    pub prior: &'a DVector<f64>,
    /// Per link: the prior's mass (kg) and length scale `ℓ` (m).
    pub scales: Vec<(f64, f64)>,
}

/// Relative tolerance on the primal and dual residuals (Boyd §3.3.1, with `ε_abs = ε_rel²`).
const TOLERANCE: f64 = 1e-10;

/// The smallest eigenvalue of a returned link's scaled pseudo-inertia `Ĵ_k`: the answer lies
/// this far inside the consistent set's boundary, so that every body has three positive
/// principal moments (an ideal rod or plate, on the boundary, is no body a simulator can
/// integrate: Rapier drops the inertia of a zero moment). On the TX40 recording the optimum puts
/// link 4 on the boundary; the margin moves its moments by about 1e-8 of the link's scale.
const MARGIN: f64 = 1e-8;

/// Most iterations before the solver gives up (`None`: the caller falls back).
const MAX_ITERATIONS: usize = 50_000;

/// The 10 entries of a symmetric 4 × 4 matrix, off-diagonal ones times `√2` (so that the
/// Euclidean norm is the Frobenius norm).
fn svec(m: &Matrix4<f64>) -> SVector<f64, 10> {
    let mut v = SVector::<f64, 10>::zeros();
    let mut k = 0;
    for i in 0..4 {
        for j in i..4 {
            v[k] = if i == j {
                m[(i, j)]
            } else {
                std::f64::consts::SQRT_2 * m[(i, j)]
            };
            k += 1;
        }
    }
    v
}

/// The inverse of [`svec`].
fn smat(v: &[f64]) -> Matrix4<f64> {
    let mut m = Matrix4::zeros();
    let mut k = 0;
    for i in 0..4 {
        for j in i..4 {
            let x = if i == j {
                v[k]
            } else {
                v[k] / std::f64::consts::SQRT_2
            };
            m[(i, j)] = x;
            m[(j, i)] = x;
            k += 1;
        }
    }
    m
}

/// The nearest positive semidefinite matrix (Frobenius norm) to a symmetric one.
fn psd(m: &Matrix4<f64>) -> Matrix4<f64> {
    at_least(m, 0.0)
}

/// The nearest symmetric matrix to `m` (Frobenius norm) whose eigenvalues are all `floor` or
/// more.
fn at_least(m: &Matrix4<f64>, floor: f64) -> Matrix4<f64> {
    let e = m.symmetric_eigen();
    let clipped = e.eigenvalues.map(|l| l.max(floor));
    e.eigenvectors * Matrix4::from_diagonal(&clipped) * e.eigenvectors.transpose()
}

/// `G_k`: `svec(Ĵ_k) = G_k π_k` (the pseudo-inertia is linear in the standard parameters).
fn pseudo_map(mass: f64, length: f64) -> SMatrix<f64, 10, 10> {
    let t = Matrix4::from_diagonal(&nalgebra::Vector4::new(
        1.0 / length,
        1.0 / length,
        1.0 / length,
        1.0,
    )) / mass.sqrt();
    let mut g = SMatrix::<f64, 10, 10>::zeros();
    for i in 0..10 {
        let mut e = [0.0; 10];
        e[i] = 1.0;
        let j = StandardParameters(e).pseudo_inertia();
        g.set_column(i, &svec(&(t * j * t)));
    }
    g
}

/// The `x`-step's least-squares system `[D; W; √ρ G] x ≈ [d; W π_ref; √ρ (z − u)]`, factored.
struct Step {
    /// `Qᵀ` and `R` of the factorization, formed once per penalty (not per iteration).
    qt: DMatrix<f64>,
    r: DMatrix<f64>,
    rows: usize,
}

impl Problem<'_> {
    fn links(&self) -> usize {
        self.scales.len()
    }

    fn unknowns(&self) -> usize {
        self.data.ncols()
    }

    fn maps(&self) -> Vec<SMatrix<f64, 10, 10>> {
        (self.scales.iter())
            .map(|&(m, l)| pseudo_map(m, l))
            .collect()
    }

    /// The factored `x`-step for penalty `ρ`; `None` where `R` is singular (an unknown that
    /// neither the data, the prior nor the constraint determine).
    fn step(&self, maps: &[SMatrix<f64, 10, 10>], rho: f64) -> Option<Step> {
        let (m, n, np) = (self.data.nrows(), self.unknowns(), 10 * self.links());
        let rows = m + 2 * np;
        let mut a = DMatrix::zeros(rows, n);
        a.rows_mut(0, m).copy_from(self.data);
        for i in 0..np {
            a[(m + i, i)] = self.weights[i];
        }
        for (k, g) in maps.iter().enumerate() {
            let block = g * rho.sqrt();
            a.view_mut((m + np + 10 * k, 10 * k), (10, 10))
                .copy_from(&block);
        }
        let qr = a.qr();
        let r = qr.r();
        let diag = r.diagonal().map(f64::abs);
        (diag.min() > 1e-13 * diag.max()).then(|| Step {
            qt: qr.q().transpose(),
            r,
            rows,
        })
    }

    /// `argmin` of the `x`-step for `z − u` (stacked per link).
    fn solve(&self, step: &Step, rho: f64, target: &DVector<f64>) -> Option<DVector<f64>> {
        let (m, np) = (self.data.nrows(), 10 * self.links());
        let mut b = DVector::zeros(step.rows);
        b.rows_mut(0, m).copy_from(self.d);
        for i in 0..np {
            b[m + i] = self.weights[i] * self.prior[i];
        }
        b.rows_mut(m + np, np).copy_from(&(target * rho.sqrt()));
        let qtb = &step.qt * b;
        step.r.solve_upper_triangular(&qtb)
    }

    /// The constrained minimizer, `None` where the solver does not converge.
    pub(super) fn minimize(&self) -> Option<DVector<f64>> {
        let (n, links) = (self.unknowns(), self.links());
        let np = 10 * links;
        let maps = self.maps();
        let apply = |x: &DVector<f64>| -> DVector<f64> {
            DVector::from_iterator(
                np,
                (0..links).flat_map(|k| {
                    let pi = SVector::<f64, 10>::from_fn(|i, _| x[10 * k + i]);
                    (maps[k] * pi).iter().copied().collect::<Vec<_>>()
                }),
            )
        };
        let transpose = |v: &DVector<f64>| -> DVector<f64> {
            let mut out = DVector::zeros(n);
            for k in 0..links {
                let vk = SVector::<f64, 10>::from_fn(|i, _| v[10 * k + i]);
                out.rows_mut(10 * k, 10)
                    .copy_from(&(maps[k].transpose() * vk));
            }
            out
        };
        // The penalty starts where the data's and the constraint's curvatures meet.
        let data_curvature = self.data.columns(0, np).norm_squared() + self.weights.norm_squared();
        let constraint_curvature: f64 = maps.iter().map(|g| g.norm_squared()).sum();
        let mut rho = data_curvature / constraint_curvature;
        let mut step = self.step(&maps, rho)?;
        let mut z = apply(self.prior);
        let mut u = DVector::zeros(np);
        for iteration in 0..MAX_ITERATIONS {
            let x = self.solve(&step, rho, &(&z - &u))?;
            let gx = apply(&x);
            let old = z.clone();
            for k in 0..links {
                let v: Vec<f64> = (0..10).map(|i| gx[10 * k + i] + u[10 * k + i]).collect();
                let projected = svec(&psd(&smat(&v)));
                z.rows_mut(10 * k, 10).copy_from(&projected);
            }
            u += &gx - &z;
            let primal = (&gx - &z).norm();
            let dual = rho * transpose(&(&z - &old)).norm();
            if !(primal.is_finite() && dual.is_finite()) {
                return None;
            }
            let eps_primal =
                TOLERANCE * TOLERANCE * (np as f64).sqrt() + TOLERANCE * gx.norm().max(z.norm());
            let eps_dual =
                TOLERANCE * TOLERANCE * (n as f64).sqrt() + TOLERANCE * rho * transpose(&u).norm();
            if primal <= eps_primal && dual <= eps_dual {
                return Some(self.feasible(&maps, &z));
            }
            // Residual balancing (Boyd §3.4.1), checked every few iterations, on the residuals
            // relative to their tolerances (as OSQP balances them): balancing the raw ones held
            // the penalty where the primal residual was 10⁷ times its tolerance and the dual 10²
            // times on the TX40 recording, and 50 000 iterations did not converge.
            let (rp, rd) = (primal / eps_primal, dual / eps_dual);
            if iteration % 10 == 9 && (rp > 10.0 * rd || rd > 10.0 * rp) {
                let factor = if rp > rd { 2.0 } else { 0.5 };
                rho *= factor;
                u /= factor;
                step = self.step(&maps, rho)?;
            }
        }
        None
    }

    /// `(π, c)` with each link's `π` from its projected pseudo-inertia and `c` the
    /// least-squares friction for those bodies.
    fn feasible(&self, maps: &[SMatrix<f64, 10, 10>], z: &DVector<f64>) -> DVector<f64> {
        let (n, np) = (self.unknowns(), 10 * self.links());
        let mut x = DVector::zeros(n);
        for (k, g) in maps.iter().enumerate() {
            let v: Vec<f64> = (0..10).map(|i| z[10 * k + i]).collect();
            let zk = svec(&at_least(&smat(&v), MARGIN));
            let pi = g.lu().solve(&zk).unwrap_or(zk);
            x.rows_mut(10 * k, 10).copy_from(&pi);
        }
        if n > np {
            let friction = self.data.columns(np, n - np).into_owned();
            let rest = self.d - self.data.columns(0, np) * x.rows(0, np);
            let c = crate::lsq::least_squares(&friction, &rest);
            x.rows_mut(np, n - np).copy_from(&c);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svec_keeps_the_frobenius_norm_and_the_map_inverts() {
        let m = Matrix4::from_fn(|i, j| ((i * 4 + j) as f64).sin() + ((j * 4 + i) as f64).sin());
        assert!((svec(&m).norm() - m.norm()).abs() < 1e-14);
        assert!((smat(svec(&m).as_slice()) - m).norm() < 1e-14);
        let p = psd(&m);
        assert!(p.symmetric_eigenvalues().min() > -1e-14);
        // The projection is idempotent.
        assert!((psd(&p) - p).norm() < 1e-13);
        let g = pseudo_map(2.0, 0.3);
        assert!(g.determinant().abs() > 0.0);
    }
}
