//! Every least-squares solve of the crate, in one place: minimum-norm least squares by SVD
//! ([`least_squares`]), least squares that reports each unknown the data determine well, with
//! its covariance ([`solve_conditioned`], and [`solve_identifiable`] for its values alone), the
//! standard deviations of a least-squares solution on a subset of the unknowns ([`ols_std`]), a
//! step restricted to what the data determine ([`truncated_step`]), which unknowns the data
//! determine alone ([`determined`]), and total
//! least squares ([`total_least_squares`]). Weighted and
//! generalized least squares are these solves on whitened rows (the estimators divide each row
//! by its noise's standard deviation, or by the Cholesky factor of the information matrix,
//! [`crate::estimate::mim::gls`]). One SVD throughout, [`svd`]'s (Householder QR, then one-sided
//! Jacobi: nalgebra's own is unreliable where singular values repeat): the systems are at most a
//! few thousand rows by a hundred columns, where a faster factorization would not show in a
//! study's time.

use nalgebra::{DMatrix, DVector};

pub mod svd;

/// Solution of `Y x = z` restricted to what the data determine: [`solve_conditioned`] (columns
/// scaled to unit norm; a column at rounding level gives no estimate) with the limit
/// `1 / tolerance` on each unknown's condition (`None` beyond it). Until issue 61 this
/// was a truncated SVD (singular values below `tolerance · σ_max` dropped) that reported an
/// unknown with a null-space component below 1e-3, biased by that component times the dropped
/// direction's coefficient.
pub fn solve_identifiable(y: &DMatrix<f64>, z: &DVector<f64>, tolerance: f64) -> Vec<Option<f64>> {
    solve_conditioned(y, z, 1.0 / tolerance).values
}

/// Whether each unknown of `Y x = z` is determined by the data alone: its unit direction lies in
/// the row space of `y` (the right singular vectors of singular values above `tolerance · σ_max`)
/// to `within` (the norm of its component outside). Unlike [`solve_identifiable`] it needs no
/// right-hand side and takes `y` as it is, wide or tall.
pub fn determined(y: &DMatrix<f64>, tolerance: f64, within: f64) -> Vec<bool> {
    let svd = svd::svd(&at_least_square(y), false);
    let v_t = svd.v_t;
    let largest = svd.singular_values.max();
    let kept: Vec<usize> = (0..svd.singular_values.len())
        .filter(|&i| svd.singular_values[i] > tolerance * largest)
        .collect();
    (0..y.ncols())
        .map(|c| {
            let inside: f64 = kept.iter().map(|&r| v_t[(r, c)].powi(2)).sum();
            (1.0 - inside).max(0.0).sqrt() < within
        })
        .collect()
}

/// Relative size below which a regressor column is rounding, not data: a column of norm at most
/// `NUMERICAL_ZERO · ‖Y‖_F`. Every entry of a regressor is computed to about machine precision
/// `ε` of the terms it is made of, so a column this small (`10⁴ ε`, about `2e-12`, of the
/// whole matrix) cannot be told from a column that is exactly zero on this data: it is left out,
/// not scaled up to unit norm, where it would look as well determined as any other.
pub const NUMERICAL_ZERO: f64 = 1e4 * f64::EPSILON;

/// `a` with zero rows added below to make it at least square (an SVD's input here).
fn at_least_square(a: &DMatrix<f64>) -> DMatrix<f64> {
    match a.nrows() < a.ncols() {
        true => a.clone().resize_vertically(a.ncols(), 0.0),
        false => a.clone(),
    }
}

/// `y` with every column scaled to unit norm, and the norms: a column at rounding level
/// ([`NUMERICAL_ZERO`] of `‖y‖`) is zeroed and its norm given as 0, so that it cannot look as well
/// determined as any other.
fn unit_columns(y: &DMatrix<f64>) -> (DMatrix<f64>, Vec<f64>) {
    let floor = NUMERICAL_ZERO * y.norm();
    let norms: Vec<f64> = (y.column_iter())
        .map(|c| c.norm())
        .map(|n| if n > floor { n } else { 0.0 })
        .collect();
    let mut scaled = y.clone();
    for (j, n) in norms.iter().enumerate() {
        scaled
            .column_mut(j)
            .scale_mut(if *n > 0.0 { 1.0 / n } else { 0.0 });
    }
    (scaled, norms)
}

/// The largest condition ([`Conditioned::condition`]) of an unknown that [`solve_conditioned`]
/// reports: an error `δz` of the data moves unknown `j` by at most `1e5 ‖δz‖ / (σ_max n_j)`,
/// `n_j` its column's norm. On exact data (`‖δz‖` about `1e-16 ‖z‖`) that is about `1e-11` of
/// `‖z‖ / n_j`, the value that would explain all the data through its column alone: small
/// against the parameters where the column is strong, not where it is weak (a first body's
/// first moments on a slow motion, issue 61's note).
pub const CONDITION_LIMIT: f64 = 1e5;

/// The least-squares solution of `Y x = z` with, per unknown, how well the data determine it.
#[derive(Clone, Debug)]
pub struct Conditioned {
    /// Each unknown where its condition is within the limit, else `None`.
    pub values: Vec<Option<f64>>,
    /// Each unknown's condition: `σ_max ‖(V Σ⁻¹)_j‖` of the column-scaled `Y = U Σ Vᵀ`
    /// (how many times a relative error of the data it can take, in units of its column);
    /// infinite for a column at rounding level ([`NUMERICAL_ZERO`]).
    pub condition: Vec<f64>,
    /// `(Yᵀ Y)⁺`: the estimate's covariance under unit white errors on `z` (rows already
    /// weighted), in the unknowns' own units; rows and columns of unreported unknowns are 0.
    pub covariance: DMatrix<f64>,
    /// The residual `z − Y x`, with `x` the least-squares solution (unreported unknowns
    /// included).
    pub residual: DVector<f64>,
    /// The number of directions solved for (singular values above rounding).
    pub rank: usize,
}

/// Least squares of `Y x = z` reporting each unknown that the data determine to within
/// `limit` ([`CONDITION_LIMIT`] for the estimators): columns scaled to unit norm, SVD
/// `Y D⁻¹ = U Σ Vᵀ` of the columns above rounding level ([`NUMERICAL_ZERO`]; the others are not
/// reported), and unknown `j`'s condition `c_j = σ_max ‖(V Σ⁻¹)_j‖`, with a singular value at or
/// below rounding (`max(rows, columns) ε σ_max`, [`rounding_factor`]) taken as that and its
/// direction left out of the solution. An unknown with `c_j ≤ limit` is
/// reported at the least-squares solution's value, which is unbiased: no direction it depends
/// on is left out (directions at rounding level are, and its component on them is at most
/// `c_j ε`). Replaces a truncated SVD with a rule on each unknown's null-space component, which
/// reported unknowns with a small component on a dropped direction biased by that component
/// times the direction's (unknown, possibly large) coefficient: issue 61's UR10, where
/// `idim_single` reported base parameters off by up to 0.3 on exact data.
pub fn solve_conditioned(y: &DMatrix<f64>, z: &DVector<f64>, limit: f64) -> Conditioned {
    let p = y.ncols();
    let scaled = ScaledSvd::of(y, true);
    let svd = &scaled.svd;
    let x = svd::solve(svd, z, scaled.rounding);
    let kept = scaled.kept.len();
    let mut pinv = DMatrix::zeros(kept, kept);
    let mut rank = 0;
    for (i, s) in svd.singular_values.iter().enumerate() {
        if *s > scaled.rounding {
            let v = svd.v_t.row(i).transpose();
            pinv += (&v * v.transpose()) / (s * s);
            rank += 1;
        }
    }
    let condition = scaled.conditions();
    let reported: Vec<bool> = condition.iter().map(|c| *c <= limit).collect();
    let (mut unscaled, mut covariance) = (DVector::zeros(p), DMatrix::zeros(p, p));
    for (r, &jr) in scaled.kept.iter().enumerate() {
        unscaled[jr] = x[r] / scaled.norms[jr];
        for (c, &jc) in scaled.kept.iter().enumerate() {
            if reported[jr] && reported[jc] {
                covariance[(jr, jc)] = pinv[(r, c)] / (scaled.norms[jr] * scaled.norms[jc]);
            }
        }
    }
    let residual = z - y * &unscaled;
    Conditioned {
        values: (0..p).map(|j| reported[j].then_some(unscaled[j])).collect(),
        condition,
        covariance,
        residual,
        rank,
    }
}

/// Below this multiple of `ε σ_max` a singular value is rounding, not data: `max(rows, columns)`,
/// the threshold of LAPACK's and NumPy's rank decisions (`numpy.linalg.matrix_rank`). An SVD
/// computes each singular value to an absolute error of about `ε σ_max` times a slowly growing
/// function of the size, so a direction the data do not hold comes out at `1e-15 σ_max` or so on
/// a few thousand rows rather than at 0. Until issue 61's note the threshold was `ε σ_max`
/// alone: on a UR10's first body (3,420 rows, four exactly zero columns) nalgebra's SVD gave two
/// such values above it, and dividing by them moved the first moments `1e-5` off the truth on
/// exact data.
fn rounding_factor(rows: usize, columns: usize) -> f64 {
    f64::EPSILON * rows.max(columns) as f64
}

/// The SVD `Y D⁻¹ = U Σ Vᵀ` of the columns of `Y` above rounding level ([`NUMERICAL_ZERO`]),
/// each scaled to unit norm (`D` their norms), padded with zero rows to be at least square;
/// the columns at rounding level are left out of it (a zero column adds an exact zero singular
/// value whose direction an SVD need not keep apart from the others).
struct ScaledSvd {
    /// Each column's norm, 0 for a column at rounding level.
    norms: Vec<f64>,
    /// The columns in the SVD, in order.
    kept: Vec<usize>,
    svd: svd::Svd,
    /// Singular values at or below this are rounding ([`rounding_factor`] `· σ_max`).
    rounding: f64,
}

impl ScaledSvd {
    fn of(y: &DMatrix<f64>, compute_u: bool) -> Self {
        let (scaled, norms) = unit_columns(y);
        let kept: Vec<usize> = (0..y.ncols()).filter(|&j| norms[j] > 0.0).collect();
        let a = at_least_square(&scaled.select_columns(&kept));
        let rounding_factor = rounding_factor(y.nrows(), y.ncols());
        let svd = svd::svd(&a, compute_u);
        let rounding = rounding_factor * svd.singular_values.max();
        ScaledSvd {
            norms,
            kept,
            svd,
            rounding,
        }
    }

    /// Each unknown's condition, `σ_max ‖(V Σ⁻¹)_j‖` with singular values floored at rounding;
    /// infinite for a column at rounding level (or a zero matrix).
    fn conditions(&self) -> Vec<f64> {
        let values = &self.svd.singular_values;
        let v_t = &self.svd.v_t;
        let largest = values.max();
        let floor = self.rounding.max(f64::MIN_POSITIVE);
        let mut condition = vec![f64::INFINITY; self.norms.len()];
        if largest <= 0.0 {
            return condition;
        }
        for (c, &j) in self.kept.iter().enumerate() {
            let sum: f64 = (values.iter().enumerate())
                .map(|(i, s)| (v_t[(i, c)] / s.max(floor)).powi(2))
                .sum();
            condition[j] = largest * sum.sqrt();
        }
        condition
    }
}

impl Conditioned {
    /// The reported unknowns' standard deviations under unit white errors (rows weighted by
    /// the errors' standard deviations).
    pub fn std(&self) -> Vec<Option<f64>> {
        self.std_scaled(1.0)
    }

    /// The reported unknowns' standard deviations with the errors' variance estimated from
    /// the residual, `s² = ‖z − Y x‖² / (rows − rank)` (ordinary least squares on rows of
    /// equal, unknown variance); `None` throughout where no degree of freedom is left.
    pub fn std_from_residual(&self) -> Vec<Option<f64>> {
        let rows = self.residual.len();
        if rows <= self.rank {
            return vec![None; self.values.len()];
        }
        self.std_scaled(self.residual.norm_squared() / (rows - self.rank) as f64)
    }

    fn std_scaled(&self, variance: f64) -> Vec<Option<f64>> {
        (self.values.iter().enumerate())
            .map(|(j, v)| v.map(|_| (variance * self.covariance[(j, j)]).max(0.0).sqrt()))
            .collect()
    }
}

/// Standard deviations of a least-squares solution `x` of `Y x = z` (`None` entries: not
/// identifiable, left out) under homoscedastic white errors: `s² (Y_Sᵀ Y_S)⁻¹` with
/// `s² = ‖z − Y_S x_S‖² / (rows − |S|)`. `None` for every entry where no degree of freedom is
/// left (as many equations as unknowns) or `Y_Sᵀ Y_S` is singular.
pub fn ols_std(y: &DMatrix<f64>, z: &DVector<f64>, x: &[Option<f64>]) -> Vec<Option<f64>> {
    let idx: Vec<usize> = (0..x.len()).filter(|&i| x[i].is_some()).collect();
    let mut out = vec![None; x.len()];
    if y.nrows() <= idx.len() || idx.is_empty() {
        return out;
    }
    let ys = DMatrix::from_fn(y.nrows(), idx.len(), |r, c| y[(r, idx[c])]);
    let xs = DVector::from_fn(idx.len(), |r, _| x[idx[r]].expect("identifiable"));
    let s2 = (z - &ys * xs).norm_squared() / (y.nrows() - idx.len()) as f64;
    if let Some(inv) = (ys.transpose() * &ys).try_inverse() {
        for (r, &i) in idx.iter().enumerate() {
            out[i] = Some((s2 * inv[(r, r)]).max(0.0).sqrt());
        }
    }
    out
}

/// Least squares `min ‖A x − b‖` by SVD (rank-revealing, tolerance 1e-12 of σ_max).
pub fn least_squares(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    let svd = svd::svd(&at_least_square(a), true);
    let tol = 1e-12 * svd.singular_values.max();
    svd::solve(&svd, b, tol)
}

/// A step `δ` of `min ‖A δ − b‖` restricted to the directions the data determine: columns
/// scaled to unit norm (those at rounding level, [`NUMERICAL_ZERO`], left at 0), singular values
/// below `tolerance · σ_max` treated as zero, the minimum-norm solution in the scaled unknowns.
/// An iteration that takes such steps moves only what its data see and leaves the rest where
/// it started.
pub fn truncated_step(a: &DMatrix<f64>, b: &DVector<f64>, tolerance: f64) -> DVector<f64> {
    let p = a.ncols();
    let (scaled, scale) = unit_columns(a);
    let svd = svd::svd(&at_least_square(&scaled), true);
    let tol = tolerance * svd.singular_values.max();
    let y = svd::solve(&svd, b, tol);
    DVector::from_fn(p, |c, _| if scale[c] > 0.0 { y[c] / scale[c] } else { 0.0 })
}

/// Each unknown's condition in the column-scaled `A`, as [`solve_conditioned`] states it
/// (`σ_max ‖(V Σ⁻¹)_j‖`, singular values floored at rounding; infinite for a zero column), from
/// `Σ` and `V` alone.
pub fn conditions(a: &DMatrix<f64>) -> Vec<f64> {
    ScaledSvd::of(a, false).conditions()
}

/// Total least squares of `A x ≈ b` (errors in the regressor as in the data) with unit-norm
/// column scaling. The classical solution is `x = −v[..p] / v[p]` for the right singular vector
/// `v` of the scaled `[A b]` of the smallest singular value. Where `A` itself has a direction
/// weaker than the data's misfit (a slow motion, a parameter barely excited), that vector is
/// `A`'s own, its last component near zero, and the classical solution blows up (measured
/// before issue 61: base parameters of 50 to 360 against truths of at most 12 on exact UR10
/// data). The nongeneric solution (Van Huffel and Vandewalle) is taken instead: the smallest
/// singular vector whose last component is at least `1 / limit`, i.e. whose solution has a
/// scaled norm `‖x_s‖ = √(1/v[p]² − 1)` within the condition limit; it is orthogonal to the
/// vectors passed over, so the solution leaves `A`'s weakest directions alone.
///
/// Returns the solution (all of it, for a torque model) and which unknowns are reported: those
/// [`solve_conditioned`] reports at `limit` (their [`conditions`] within it).
pub fn total_least_squares(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    limit: f64,
) -> (DVector<f64>, Vec<bool>) {
    let p = a.ncols();
    let reported: Vec<bool> = conditions(a).iter().map(|c| *c <= limit).collect();
    let mut m = DMatrix::zeros(a.nrows().max(p + 1), p + 1);
    m.view_mut((0, 0), (a.nrows(), p)).copy_from(a);
    m.view_mut((0, p), (b.len(), 1)).copy_from(b);
    let scale: Vec<f64> = m
        .column_iter()
        .map(|c| c.norm().max(f64::MIN_POSITIVE))
        .collect();
    for (j, s) in scale.iter().enumerate() {
        m.column_mut(j).scale_mut(1.0 / s);
    }
    let svd = svd::svd(&m, false);
    let v_t = svd.v_t;
    let mut order: Vec<usize> = (0..=p).collect();
    order.sort_by(|&i, &j| svd.singular_values[i].total_cmp(&svd.singular_values[j]));
    let last = |i: usize| v_t[(i, p)].abs();
    let chosen = (order.iter().copied())
        .find(|&i| last(i) * limit >= 1.0)
        .or_else(|| {
            order
                .iter()
                .copied()
                .max_by(|&i, &j| last(i).total_cmp(&last(j)))
        })
        .expect("nonempty");
    let v = v_t.row(chosen);
    let x = DVector::from_fn(p, |j, _| -v[j] / v[p] * scale[p] / scale[j]);
    (x, reported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_solve_flags_unexcited_parameters() {
        // x0 = 2 is excited, x1 is not (its column is ~0), x2 = -1 is excited.
        let y = DMatrix::from_row_slice(
            4,
            3,
            &[1.0, 0.0, 0.5, 0.0, 1e-12, 1.0, 2.0, 0.0, 0.0, 1.0, 0.0, 3.0],
        );
        let x = DVector::from_column_slice(&[2.0, 7.0, -1.0]);
        let z = &y * &x;
        let sol = solve_identifiable(&y, &z, 1e-6);
        assert!((sol[0].unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(sol[1], None);
        assert!((sol[2].unwrap() + 1.0).abs() < 1e-12);
    }

    /// A column made of rounding (here 1e-17 of the others, as a base combination that this
    /// motion does not excite comes out of the regressor) is not data, however it is scaled.
    #[test]
    fn a_column_at_rounding_level_is_not_identifiable() {
        let y = DMatrix::from_row_slice(
            4,
            3,
            &[
                1.0, 3e-17, 0.5, 2.0, -1e-17, 1.0, -1.0, 2e-17, 3.0, 0.5, -4e-17, -2.0,
            ],
        );
        let x = DVector::from_column_slice(&[2.0, 0.0, -1.0]);
        // The data carry their own rounding, which the tiny column would fit.
        let z = &y * &x + DVector::from_column_slice(&[1e-16, -2e-16, 0.0, 1e-16]);
        let sol = solve_identifiable(&y, &z, 1e-5);
        assert_eq!(sol[1], None, "{sol:?}");
        assert!((sol[0].unwrap() - 2.0).abs() < 1e-14 && (sol[2].unwrap() + 1.0).abs() < 1e-14);
    }

    #[test]
    fn scaled_solve_handles_mixed_units() {
        let y = DMatrix::from_row_slice(3, 2, &[1e6, 1e-3, 2e6, 3e-3, -1e6, 5e-3]);
        let x = DVector::from_column_slice(&[2.0, 7.0]);
        let sol = solve_identifiable(&y, &(&y * &x), 1e-10);
        assert!((sol[0].unwrap() - 2.0).abs() < 1e-9 && (sol[1].unwrap() - 7.0).abs() < 1e-6);
    }

    /// A regressor whose third column is the sum of the first two (a direction of `A` at
    /// rounding level, as weak as the exact data's misfit), on exact data.
    fn weak_direction() -> (DMatrix<f64>, DVector<f64>, DVector<f64>) {
        let n = 40;
        let a = DMatrix::from_fn(n, 4, |r, c| {
            let t = r as f64 / n as f64;
            match c {
                0 => (3.0 * t).sin(),
                1 => (5.0 * t).cos(),
                2 => (3.0 * t).sin() + (5.0 * t).cos(),
                _ => 1.0 + t * t,
            }
        });
        let x = DVector::from_column_slice(&[2.0, -1.0, 0.5, 3.0]);
        let b = &a * &x;
        (a, b, x)
    }

    #[test]
    fn conditions_are_those_of_the_conditioned_solve() {
        let (a, b, _) = weak_direction();
        let ours = conditions(&a);
        let solve = solve_conditioned(&a, &b, CONDITION_LIMIT).condition;
        for (c, d) in ours.iter().zip(&solve) {
            assert!((c - d).abs() <= 1e-9 * d, "{c} vs {d}");
        }
        assert!(ours[2] > CONDITION_LIMIT && ours[3] < 10.0, "{ours:?}");
    }

    /// Exact data whose regressor has a direction weaker than the rounding of the misfit: the
    /// classical solution takes that direction's singular vector; the nongeneric one does not,
    /// and the well-conditioned unknown is exact.
    #[test]
    fn total_least_squares_leaves_a_weak_direction_alone() {
        let (a, b, x) = weak_direction();
        let (tls, reported) = total_least_squares(&a, &b, CONDITION_LIMIT);
        assert_eq!(reported, [false, false, false, true]);
        assert!((tls[3] - x[3]).abs() <= 1e-8 * x[3].abs(), "{tls:?}");
        assert!(
            tls.iter().all(|v| v.is_finite() && v.abs() < 1e3),
            "{tls:?}"
        );
    }
}
