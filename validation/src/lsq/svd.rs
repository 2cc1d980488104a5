//! The singular value decomposition every solve of [`super`] uses: Householder QR, then
//! one-sided Jacobi rotations on the triangular factor (Hestenes 1958; Demmel and Veselić,
//! "Jacobi's method is more accurate than QR", SIAM J. Matrix Anal. Appl. 13(4), 1992).
//!
//! Why not nalgebra's `Matrix::svd`: where singular values repeat, as they do in a body's
//! Newton–Euler equations (its two axes across the joint axis look alike), its implicit-shift QR
//! iteration can return a factorization that is not the matrix's (its bulge chase breaks off
//! when a rotation has nothing to cancel). On a Jaco 2 first body's column-scaled system of
//! six columns (singular values 1.0397, 1.0397, 1.0, 1.0, 0.9587, 0.9587; issue 61's note,
//! drawn motion 1013) nalgebra 0.35 returned `1.0397025` and `1.0000266` for two of them and a
//! factorization 2.4e-5 away from the matrix, and `mim_standard`'s mass came out 5e-5 off the
//! truth on exact data (nalgebra's open issue 1172 reports the same symptom). One-sided
//! Jacobi has no such case: it rotates pairs of columns until every pair is orthogonal to
//! rounding, and computes small singular values to high relative accuracy.
//! A crate with a sound SVD (faer) would add about 85 CPU-s to every build; these solves are
//! a few thousand rows by at most a hundred columns.

use nalgebra::{DMatrix, DVector};

/// `A = U Σ Vᵀ`, `A` of `m ≥ n` rows (pad a wide matrix with zero rows first): `U` the
/// `m × n` left singular vectors (if asked for), `Σ` the `n` singular values in decreasing
/// order, `Vᵀ` the `n × n` right singular vectors as rows.
#[derive(Clone, Debug)]
pub struct Svd {
    /// Left singular vectors as columns, where computed.
    pub u: Option<DMatrix<f64>>,
    /// Singular values, largest first.
    pub singular_values: DVector<f64>,
    /// Right singular vectors as rows.
    pub v_t: DMatrix<f64>,
}

/// Most sweeps over every pair of columns; Jacobi converges quadratically, in 6–10 sweeps on
/// the matrices here.
const MAX_SWEEPS: usize = 80;

/// The SVD of `a` (`m ≥ n` rows; see [`Svd`]).
pub fn svd(a: &DMatrix<f64>, compute_u: bool) -> Svd {
    let (m, n) = a.shape();
    assert!(
        m >= n,
        "SVD of a {m} × {n} matrix: pad it to at least square"
    );
    let qr = a.clone().qr();
    let mut w = qr.r();
    let mut v = DMatrix::<f64>::identity(n, n);
    orthogonalize(&mut w, &mut v);
    let norms: Vec<f64> = w.column_iter().map(|c| c.norm()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]));
    let singular_values = DVector::from_fn(n, |k, _| norms[order[k]]);
    let v_t = DMatrix::from_fn(n, n, |k, c| v[(c, order[k])]);
    let u = compute_u.then(|| {
        let inner = DMatrix::from_fn(n, n, |r, k| match norms[order[k]] {
            s if s > 0.0 => w[(r, order[k])] / s,
            _ => 0.0,
        });
        qr.q() * inner
    });
    Svd {
        u,
        singular_values,
        v_t,
    }
}

/// Rotates pairs of `w`'s columns until every pair is orthogonal to rounding (their cosine
/// within `ε`), applying the same rotations to `v`'s columns: `W₀ V = W`.
fn orthogonalize(w: &mut DMatrix<f64>, v: &mut DMatrix<f64>) {
    let n = w.ncols();
    let tolerance = f64::EPSILON;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for i in 0..n {
            for j in i + 1..n {
                let alpha = w.column(i).norm_squared();
                let beta = w.column(j).norm_squared();
                let gamma = w.column(i).dot(&w.column(j));
                if alpha == 0.0 || beta == 0.0 || gamma.abs() <= tolerance * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                // The rotation that zeroes the pair's Gram entry: `t² + 2ζt − 1 = 0`, the root
                // of smaller magnitude.
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                rotate(w, i, j, c, s);
                rotate(v, i, j, c, s);
            }
        }
        if !rotated {
            return;
        }
    }
}

/// Columns `i, j` of `m` become `c mᵢ − s mⱼ` and `s mᵢ + c mⱼ`.
fn rotate(m: &mut DMatrix<f64>, i: usize, j: usize, c: f64, s: f64) {
    for r in 0..m.nrows() {
        let (a, b) = (m[(r, i)], m[(r, j)]);
        m[(r, i)] = c * a - s * b;
        m[(r, j)] = s * a + c * b;
    }
}

/// The minimum-norm least-squares solution of `A x = b` from `A`'s SVD (`U` computed), the
/// singular values at or below `tolerance` left out. `b` may be shorter than `U`'s columns (the
/// rows `A` was padded with to be square): the missing entries are zeros.
pub fn solve(svd: &Svd, b: &DVector<f64>, tolerance: f64) -> DVector<f64> {
    let u = svd.u.as_ref().expect("U computed");
    let mut x = DVector::zeros(svd.v_t.ncols());
    for (i, s) in svd.singular_values.iter().enumerate() {
        if *s > tolerance {
            let along = u.column(i).rows(0, b.len()).dot(b);
            x += svd.v_t.row(i).transpose() * (along / s);
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random `m × n` matrix with the given singular values (repeats and zeros included).
    fn with_singular_values(rng: &mut ChaCha8Rng, m: usize, values: &[f64]) -> DMatrix<f64> {
        let n = values.len();
        let orthonormal = |rows: usize, rng: &mut ChaCha8Rng| {
            let g = DMatrix::from_fn(rows, n, |_, _| rng.random_range(-1.0..1.0));
            g.qr().q()
        };
        let (u, v) = (orthonormal(m, rng), orthonormal(n, rng));
        u * DMatrix::from_diagonal(&DVector::from_column_slice(values)) * v.transpose()
    }

    /// Random matrices with repeated, clustered, tiny and zero singular values: the
    /// factorization reproduces the matrix, `U` and `V` are orthonormal, and the singular values
    /// are the ones built in, to rounding.
    #[test]
    fn factorizes_matrices_with_repeated_and_zero_singular_values() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let cases: [&[f64]; 5] = [
            &[1.0397, 1.0397, 1.0, 1.0, 0.9587, 0.9587],
            &[3.0, 3.0, 3.0, 1e-9, 0.0, 0.0],
            &[1.0; 8],
            &[5.0, 4.0, 1e-14, 2.0, 1.0],
            &[2.0, 1.0 + 1e-12, 1.0, 1e-3, 1e-6, 1e-9, 0.0],
        ];
        for values in cases {
            for m in [values.len(), 40, 400] {
                let a = with_singular_values(&mut rng, m, values);
                let f = svd(&a, true);
                let u = f.u.as_ref().unwrap();
                let n = values.len();
                let rebuilt = u * DMatrix::from_diagonal(&f.singular_values) * &f.v_t;
                assert!((rebuilt - &a).amax() < 1e-13, "{values:?} at {m} rows");
                let vv = &f.v_t * f.v_t.transpose() - DMatrix::<f64>::identity(n, n);
                assert!(vv.amax() < 1e-13, "Vᵀ not orthonormal: {values:?}");
                let mut sorted = values.to_vec();
                sorted.sort_by(|a, b| b.total_cmp(a));
                for (s, t) in f.singular_values.iter().zip(&sorted) {
                    assert!((s - t).abs() < 1e-13, "{values:?}: {s} against {t}");
                }
            }
        }
    }

    /// On a random full-rank system the solution is the normal equations' one.
    #[test]
    fn solves_least_squares() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let a = DMatrix::from_fn(50, 7, |_, _| rng.random_range(-1.0..1.0));
        let b = DVector::from_fn(50, |_, _| rng.random_range(-1.0..1.0));
        let x = solve(&svd(&a, true), &b, 1e-12);
        let normal = (a.transpose() * &a)
            .cholesky()
            .unwrap()
            .solve(&(a.transpose() * &b));
        assert!((x - normal).amax() < 1e-12);
    }
}
