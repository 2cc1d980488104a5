//! Robust weighting of IDIM's equations: iteratively reweighted least squares (IRLS) with
//! Huber's weights (Huber 1964; the IRLS scheme of Holland & Welsch 1977; BIRDy's IDIM-IRLS).
//!
//! Each joint's equations have their own scale (the joints' torques differ by orders of
//! magnitude), estimated robustly as `s_j = 1.4826 · median |r|` of that joint's residuals (the
//! normalized median absolute deviation: `σ` for Gaussian residuals). An equation whose scaled
//! residual `u = r / s_j` exceeds `k` gets weight `k / |u|`, the others 1; `k = 1.345` keeps 95 %
//! of least squares' efficiency under Gaussian noise while bounding an outlier's influence
//! (torque spikes, a friction regime the model lacks). Huber's loss is convex, so the iteration
//! from the OLS solution converges to its unique minimum.

use nalgebra::{DMatrix, DVector};

use crate::lsq::least_squares;

/// Huber-weighted IRLS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Huber {
    /// The threshold `k` of scaled residuals.
    pub k: f64,
    /// Most reweighting passes.
    pub iterations: usize,
    /// Stop when the solution moves less than this, relative to its norm.
    pub tolerance: f64,
}

impl Default for Huber {
    fn default() -> Self {
        Huber {
            k: 1.345,
            iterations: 50,
            tolerance: 1e-10,
        }
    }
}

impl Huber {
    /// The robust solution of `A x ≈ b`, equation `r` of joint `joint[r]`.
    pub fn solve(&self, a: &DMatrix<f64>, b: &DVector<f64>, joint: &[usize]) -> DVector<f64> {
        let mut x = least_squares(a, b);
        for _ in 0..self.iterations {
            let r = a * &x - b;
            let scale = joint_mad(&r, joint);
            // Equation `row` divided by `s_j / √weight`.
            let next = rows_divided(a, b, |row| {
                let s = scale[joint[row]];
                let u = (r[row] / s).abs();
                let weight = if u <= self.k { 1.0 } else { self.k / u };
                s / weight.sqrt()
            });
            let moved = (&next - &x).norm() / next.norm().max(f64::MIN_POSITIVE);
            x = next;
            if moved < self.tolerance {
                break;
            }
        }
        x
    }
}

/// Least squares of `A x ≈ b` with row `r` of both divided by `divisor(r)` (a standard
/// deviation: weighted least squares).
pub(crate) fn rows_divided(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    divisor: impl Fn(usize) -> f64,
) -> DVector<f64> {
    let mut aw = a.clone();
    let mut bw = b.clone();
    for row in 0..a.nrows() {
        let d = divisor(row);
        aw.row_mut(row).scale_mut(1.0 / d);
        bw[row] /= d;
    }
    least_squares(&aw, &bw)
}

/// Per joint, the RMS of its residuals (WLS's weights, Gautier's two-pass scheme).
pub(crate) fn joint_rms(r: &DVector<f64>, joint: &[usize]) -> Vec<f64> {
    per_joint(r, joint, |v| {
        (v.iter().map(|e| e * e).sum::<f64>() / v.len().max(1) as f64).sqrt()
    })
}

/// Per joint, `1.4826 · median |r|` of its residuals.
fn joint_mad(r: &DVector<f64>, joint: &[usize]) -> Vec<f64> {
    per_joint(r, joint, |v| {
        let mut a: Vec<f64> = v.iter().map(|e| e.abs()).collect();
        a.sort_by(f64::total_cmp);
        let median = match a.len() {
            0 => 0.0,
            n if n % 2 == 1 => a[n / 2],
            n => 0.5 * (a[n / 2 - 1] + a[n / 2]),
        };
        1.4826 * median
    })
}

/// A statistic of each joint's residuals (at least the smallest positive number).
fn per_joint(r: &DVector<f64>, joint: &[usize], stat: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    let nj = joint.iter().max().map_or(0, |m| m + 1);
    (0..nj)
        .map(|j| {
            let v: Vec<f64> = (joint.iter().zip(r.iter()))
                .filter(|(jj, _)| **jj == j)
                .map(|(_, e)| *e)
                .collect();
            stat(&v).max(f64::MIN_POSITIVE)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line through 200 points with Gaussian-like scatter and 10 gross outliers: least
    /// squares is pulled off, Huber's IRLS is not.
    #[test]
    fn outliers_pull_least_squares_not_huber() {
        let n = 200;
        let a = DMatrix::from_fn(n, 2, |i, c| if c == 0 { 1.0 } else { i as f64 / n as f64 });
        let truth = DVector::from_vec(vec![1.0, 2.0]);
        let mut b = &a * &truth;
        for i in 0..n {
            // Deterministic scatter of RMS ≈ 0.01.
            b[i] += 0.01
                * ((i as f64 * 12.9898).sin() * 43_758.545)
                    .fract()
                    .mul_add(2.0, -1.0);
        }
        for i in (0..n).step_by(20) {
            b[i] += 5.0;
        }
        let joint = vec![0; n];
        let ols = least_squares(&a, &b);
        let huber = Huber::default().solve(&a, &b, &joint);
        assert!((&ols - &truth).norm() > 0.2, "OLS {ols}");
        assert!((&huber - &truth).norm() < 0.02, "Huber {huber}");
    }
}
