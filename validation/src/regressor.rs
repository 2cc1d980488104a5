//! The standard inertial regressor (ten parameters per link) and its base parameters.
//!
//! `tau = Y(q, q̇, q̈) · π` with `π` the links' [`StandardParameters`] stacked (link frame: body
//! axes, origin at the joint point `O_i`). Each column of `Y` is the project's inverse dynamics
//! ([`sim::dynamics::rnea_standard`]) with one unit parameter, so `Y` is exact wherever the
//! inverse dynamics is. Not every column is identifiable: some never act (a parameter the joint
//! axes cannot feel), others only in fixed combinations. [`BaseParameters`] finds a maximal set
//! of independent columns by QR with column pivoting on `Y` stacked over random states, and the
//! combinations `β = π_independent + K π_dependent` that the data determine.

use nalgebra::{DMatrix, DVector, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim::dynamics::{StandardParameters, rnea_standard};
use sim::model::Chain;

/// Names of the ten standard parameters of a link.
pub const NAMES: [&str; 10] = ["m", "mx", "my", "mz", "xx", "xy", "xz", "yy", "yz", "zz"];

/// The standard parameter vector `π` of a chain (10 per link, link by link).
pub fn standard_vector(chain: &Chain) -> DVector<f64> {
    DVector::from_iterator(
        10 * chain.len(),
        (0..chain.len()).flat_map(|k| StandardParameters::of_link(chain, k).0),
    )
}

/// The regressor `Y` (joints × 10n) at one state.
pub fn regressor(
    chain: &Chain,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
    gravity: &Vector3<f64>,
) -> DMatrix<f64> {
    let n = chain.len();
    let nj = chain.joint_ids().len();
    let mut y = DMatrix::zeros(nj, 10 * n);
    let mut params = vec![StandardParameters([0.0; 10]); n];
    for col in 0..10 * n {
        params[col / 10].0[col % 10] = 1.0;
        let tau = rnea_standard(chain, &params, q, qd, qdd, gravity);
        params[col / 10].0[col % 10] = 0.0;
        for (i, t) in tau.iter().enumerate() {
            y[(i, col)] = *t;
        }
    }
    y
}

/// The regressor stacked over `states` (`[q, qd, qdd]` each), with gravity.
pub fn stacked(chain: &Chain, states: &[[Vec<f64>; 3]]) -> DMatrix<f64> {
    stacked_with(chain, states, &chain.gravity_vector())
}

/// The regressor stacked over `states` with the given gravity vector (zero: no gravity).
pub(crate) fn stacked_with(
    chain: &Chain,
    states: &[[Vec<f64>; 3]],
    gravity: &Vector3<f64>,
) -> DMatrix<f64> {
    let nj = chain.joint_ids().len();
    let mut w = DMatrix::zeros(nj * states.len(), 10 * chain.len());
    for (s, [q, qd, qdd]) in states.iter().enumerate() {
        w.view_mut((s * nj, 0), (nj, 10 * chain.len()))
            .copy_from(&regressor(chain, q, qd, qdd, gravity));
    }
    w
}

/// `count` random states, uniform in `[−1, 1]` (rad or m, per second, per second²).
pub(crate) fn random_states(chain: &Chain, count: usize, seed: u64) -> Vec<[Vec<f64>; 3]> {
    let nj = chain.joint_ids().len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| std::array::from_fn(|_| (0..nj).map(|_| rng.random_range(-1.0..1.0)).collect()))
        .collect()
}

/// A base of the standard parameters: which columns are independent and how the others fold in.
#[derive(Clone, Debug)]
pub struct BaseParameters {
    /// Standard-parameter indices of the independent columns, in pivot order.
    pub independent: Vec<usize>,
    /// Indices of the other columns.
    pub dependent: Vec<usize>,
    /// `K` (independent × dependent): `β = π_independent + K π_dependent`.
    pub k: DMatrix<f64>,
}

impl BaseParameters {
    /// Finds the base from a stacked regressor `w` by QR with column pivoting; a pivot below
    /// `tolerance` times the largest ends the independent set.
    pub(crate) fn from_regressor(w: &DMatrix<f64>, tolerance: f64) -> Self {
        let p = w.ncols();
        let qr = w.clone().col_piv_qr();
        let r = qr.r();
        // The pivoting as a column order: permute the row vector 0..p the way W's columns were.
        let mut order = DMatrix::from_fn(1, p, |_, j| j as f64);
        qr.p().permute_columns(&mut order);
        let order: Vec<usize> = order.iter().map(|v| *v as usize).collect();
        let largest = r[(0, 0)].abs();
        let rank = (0..p.min(r.nrows()))
            .take_while(|&i| r[(i, i)].abs() > tolerance * largest)
            .count();
        let r1 = r.view((0, 0), (rank, rank)).into_owned();
        let r2 = r.view((0, rank), (rank, p - rank)).into_owned();
        let k = r1
            .solve_upper_triangular(&r2)
            .expect("nonsingular by construction");
        BaseParameters {
            independent: order[..rank].to_vec(),
            dependent: order[rank..].to_vec(),
            k,
        }
    }

    /// The base of a chain, from `Y` stacked over 40 random states.
    pub fn of_chain(chain: &Chain) -> Self {
        Self::from_regressor(&stacked(chain, &random_states(chain, 40, 7)), 1e-9)
    }

    /// The base of the gravity regressor (`q̇ = q̈ = 0`), from 40 random configurations: the
    /// combinations a static or slow experiment determines.
    pub(crate) fn of_gravity(chain: &Chain) -> Self {
        let states: Vec<[Vec<f64>; 3]> = random_states(chain, 40, 5)
            .into_iter()
            .map(|[q, qd, _]| [q, vec![0.0; qd.len()], vec![0.0; qd.len()]])
            .collect();
        Self::from_regressor(&stacked(chain, &states), 1e-9)
    }

    /// The base of the inertia (mass-matrix) regressor (`q̇ = 0`, no gravity), from 40 random
    /// states.
    pub(crate) fn of_inertia(chain: &Chain) -> Self {
        let states: Vec<[Vec<f64>; 3]> = random_states(chain, 40, 6)
            .into_iter()
            .map(|[q, qd, qdd]| [q, vec![0.0; qd.len()], qdd])
            .collect();
        Self::from_regressor(&stacked_with(chain, &states, &Vector3::zeros()), 1e-9)
    }

    /// Number of base parameters.
    pub fn len(&self) -> usize {
        self.independent.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.independent.is_empty()
    }

    /// `β = π_independent + K π_dependent` of a standard vector.
    pub fn map(&self, pi: &DVector<f64>) -> DVector<f64> {
        let pi_i = DVector::from_iterator(self.len(), self.independent.iter().map(|&i| pi[i]));
        let pi_d =
            DVector::from_iterator(self.dependent.len(), self.dependent.iter().map(|&i| pi[i]));
        pi_i + &self.k * pi_d
    }

    /// The base regressor: the independent columns of a standard regressor.
    pub fn regressor(&self, y: &DMatrix<f64>) -> DMatrix<f64> {
        y.select_columns(&self.independent)
    }

    /// Each base parameter as a readable combination, e.g. `zz1 + 1.0·yy2 + …` (link-numbered
    /// names; coefficients below 1e-9 omitted).
    pub fn describe(&self) -> Vec<String> {
        let name = |i: usize| format!("{}{}", NAMES[i % 10], i / 10 + 1);
        (0..self.len())
            .map(|b| {
                let mut s = name(self.independent[b]);
                for (d, &j) in self.dependent.iter().enumerate() {
                    let c = self.k[(b, d)];
                    if c.abs() > 1e-9 {
                        s += &format!(
                            " {} {:.6}·{}",
                            if c < 0.0 { "−" } else { "+" },
                            c.abs(),
                            name(j)
                        );
                    }
                }
                s
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::model::reference;

    #[test]
    fn regressor_is_exact_against_rnea() {
        for chain in [reference::arm6(), reference::link2(), reference::cyl2()] {
            let pi = standard_vector(&chain);
            for [q, qd, qdd] in random_states(&chain, 20, 3) {
                let y = regressor(&chain, &q, &qd, &qdd, &chain.gravity_vector());
                let tau = sim::dynamics::rnea(&chain, &q, &qd, &qdd, &chain.gravity_vector()).tau;
                let scale = tau.iter().fold(1.0f64, |a, t| a.max(t.abs()));
                for (yt, t) in (&y * &pi).iter().zip(&tau) {
                    assert!(
                        (yt - t).abs() <= 1e-12 * scale,
                        "{}: {yt} vs {t}",
                        chain.name
                    );
                }
            }
        }
    }

    #[test]
    fn base_parameters_reproduce_the_torques_and_do_not_depend_on_column_order() {
        for chain in [reference::arm6(), reference::link2(), reference::cyl2()] {
            let w = stacked(&chain, &random_states(&chain, 40, 11));
            let pi = standard_vector(&chain);
            let base = BaseParameters::from_regressor(&w, 1e-9);
            let scale = (&w * &pi).amax();
            let err = (base.regressor(&w) * base.map(&pi) - &w * &pi).amax();
            assert!(err <= 1e-9 * scale, "{}: {err}", chain.name);
            // Reverse the column order: same number of base parameters, same torques.
            let p = w.ncols();
            let rev: Vec<usize> = (0..p).rev().collect();
            let w_rev = w.select_columns(&rev);
            let pi_rev = DVector::from_iterator(p, rev.iter().map(|&i| pi[i]));
            let base_rev = BaseParameters::from_regressor(&w_rev, 1e-9);
            assert_eq!(base.len(), base_rev.len(), "{}", chain.name);
            let err = (base_rev.regressor(&w_rev) * base_rev.map(&pi_rev) - &w * &pi).amax();
            assert!(err <= 1e-9 * scale, "{}: {err}", chain.name);
            // On fresh states, the base found on the first set still predicts exactly.
            let w2 = stacked(&chain, &random_states(&chain, 10, 99));
            let err = (base.regressor(&w2) * base.map(&pi) - &w2 * &pi).amax();
            assert!(err <= 1e-9 * (&w2 * &pi).amax(), "{}: {err}", chain.name);
        }
    }
}
