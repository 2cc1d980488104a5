//! The identified arm of one parameter vector `x = (β, c…)`: its mass matrix, bias torques and
//! friction, as the simulated loop needs them ([`super`]).

use nalgebra::{DMatrix, DVector, Vector3};
use sim::dynamics::{StandardParameters, rnea_standard};

use crate::estimate::idim::base::FullRegressor;

/// The identified arm of one parameter vector.
pub(crate) struct Arm<'a> {
    pub(crate) regressor: &'a FullRegressor,
    pub(crate) x: &'a DVector<f64>,
    realization: Vec<StandardParameters>,
}

impl<'a> Arm<'a> {
    /// The arm of `x`, a parameter vector of `regressor`.
    pub(crate) fn new(regressor: &'a FullRegressor, x: &'a DVector<f64>) -> Self {
        Arm {
            regressor,
            x,
            realization: regressor.realization(x),
        }
    }

    /// `M̂(q)⁻¹ (τ − ĥ(q, q̇))`: the forward dynamics (`None` where `M̂` is singular).
    pub(crate) fn forward(&self, q: &[f64], qd: &[f64], tau: &[f64]) -> Option<DVector<f64>> {
        let rhs = DVector::from_column_slice(tau) - self.bias(q, qd);
        self.mass(q).lu().solve(&rhs)
    }

    /// The regressor's rows at `(q, q̇, q̈)` (`∂τ/∂x` of [`Arm::inverse`]), every joint slower
    /// than [`BAND`] with its friction columns interpolated between `q̇_j = ±BAND` as the
    /// simulated friction is.
    pub(crate) fn rows(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> DMatrix<f64> {
        let regressor = self.regressor;
        let mut g = regressor.rows(q, qd, qdd);
        let rigid = regressor.base.len();
        for j in 0..q.len() {
            if qd[j].abs() >= BAND {
                continue;
            }
            let mut v = qd.to_vec();
            v[j] = -BAND;
            let below = regressor.rows(q, &v, qdd);
            v[j] = BAND;
            let above = regressor.rows(q, &v, qdd);
            let s = (qd[j] + BAND) / (2.0 * BAND);
            for c in rigid..g.ncols() {
                g[(j, c)] = below[(j, c)] + (above[(j, c)] - below[(j, c)]) * s;
            }
        }
        g
    }

    /// The rigid-body inverse dynamics (with gravity where asked).
    pub(crate) fn rigid(&self, q: &[f64], qd: &[f64], qdd: &[f64], gravity: bool) -> DVector<f64> {
        let g = if gravity {
            self.regressor.geometry().gravity_vector()
        } else {
            Vector3::zeros()
        };
        let geometry = self.regressor.geometry();
        DVector::from_vec(rnea_standard(geometry, &self.realization, q, qd, qdd, &g))
    }

    /// `M̂(q)`: the rigid body's and the drive columns' (armature) response to unit `q̈`.
    pub(crate) fn mass(&self, q: &[f64]) -> DMatrix<f64> {
        let n = q.len();
        let zero = vec![0.0; n];
        let at_rest = self.regressor.friction_torque(q, &zero, &zero, self.x);
        let mut m = DMatrix::zeros(n, n);
        let mut unit = vec![0.0; n];
        for i in 0..n {
            unit[i] = 1.0;
            let column = self.rigid(q, &zero, &unit, false)
                + self.regressor.friction_torque(q, &zero, &unit, self.x)
                - &at_rest;
            m.set_column(i, &column);
            unit[i] = 0.0;
        }
        m
    }

    /// `ĥ(q, q̇)`: Coriolis, centrifugal, gravity and friction torques at `q̈ = 0`.
    pub(crate) fn bias(&self, q: &[f64], qd: &[f64]) -> DVector<f64> {
        let zero = vec![0.0; q.len()];
        self.rigid(q, qd, &zero, true) + self.friction(q, qd)
    }

    /// The torques the simulated model needs at `(q, q̇, q̈)`: `M̂(q) q̈ + ĥ(q, q̇)`, the
    /// friction band-smoothed as in the simulation.
    pub(crate) fn inverse(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> DVector<f64> {
        let zero = vec![0.0; q.len()];
        self.rigid(q, qd, qdd, true) + self.regressor.friction_torque(q, &zero, qdd, self.x)
            - self.regressor.friction_torque(q, &zero, &zero, self.x)
            + self.friction(q, qd)
    }

    /// The identified friction at `(q, q̇)`, each joint's interpolated linearly across
    /// `|q̇_j| < BAND` between its values at `±BAND` (see [`BAND`]).
    fn friction(&self, q: &[f64], qd: &[f64]) -> DVector<f64> {
        let zero = vec![0.0; q.len()];
        let mut f = self.regressor.friction_torque(q, qd, &zero, self.x);
        let mut v = qd.to_vec();
        for j in 0..q.len() {
            if qd[j].abs() < BAND {
                let (below, above) = self.band_ends(q, &mut v, j);
                f[j] = below + (above - below) * (qd[j] + BAND) / (2.0 * BAND);
            }
        }
        f
    }

    /// Joint `j`'s friction at `q̇_j = −BAND` and `+BAND`, the other rates as in `v`.
    fn band_ends(&self, q: &[f64], v: &mut [f64], j: usize) -> (f64, f64) {
        let zero = vec![0.0; q.len()];
        let keep = v[j];
        v[j] = -BAND;
        let below = self.regressor.friction_torque(q, v, &zero, self.x)[j];
        v[j] = BAND;
        let above = self.regressor.friction_torque(q, v, &zero, self.x)[j];
        v[j] = keep;
        (below, above)
    }

    /// Joint `j`'s friction slope across the band (N·m·s/rad): a damping the integrator must
    /// resolve.
    pub(crate) fn band_slope(&self, q: &[f64], j: usize) -> f64 {
        let mut v = vec![0.0; q.len()];
        let (below, above) = self.band_ends(q, &mut v, j);
        ((above - below) / (2.0 * BAND)).abs()
    }
}

/// Half-width of the rate band (rad/s) in which the simulated friction passes linearly through
/// zero: the identified Coulomb term `F_c sgn(q̇)` is undefined at rest (a real drive sticks,
/// the simulator smooths its sign) and IDIM has no equations below [`crate::estimate::idim::MIN_SPEED`], so
/// the identification says nothing there; a discontinuous sign would make the integrated loop
/// chatter at every reversal (`F_c / M̂` of acceleration each step on a light wrist).
pub const BAND: f64 = crate::estimate::idim::MIN_SPEED;
