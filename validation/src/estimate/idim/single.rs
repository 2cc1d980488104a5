//! IDIM on one run: the base inertial parameters of the whole arm (the teaching paper's base
//! regressor, [`crate::regressor`], no friction model) from the measured joint
//! torques, stacked over every sample, by least squares weighted by the run's stated torque
//! noise where it states one (then the estimate is efficient and its covariance is the
//! Cramér–Rao bound [`bound`] gives), else ordinary least squares.
//!
//! `q̇, q̈` are the recorded columns where `q` is not measured (ideal encoders and
//! differentiation), else the five-point differences of the measured angles
//! ([`crate::encoder::differentiate`]). A base parameter the motion does not determine is
//! reported as not identifiable: its regressor column is at rounding level (at most
//! [`crate::lsq::NUMERICAL_ZERO`] of the regressor's norm), or its condition in the column-scaled
//! regressor (how many times a relative error of the data can move it,
//! [`crate::lsq::solve_conditioned`]) is above [`CONDITION_LIMIT`] (1e5). The others are the
//! least-squares solution's values, with nothing truncated that they depend on: exact on exact
//! data, unbiased on noisy data. (Until issue 61 a truncated SVD decided instead, reporting
//! a parameter whose component on a dropped direction was below 1e-3; on slow, small UR10
//! motions that reported values off by up to 0.3 on exact data.)

use nalgebra::{DMatrix, DVector};

use crate::estimate::Family;
use crate::estimate::idim::base::{FrictionColumns, FullRegressor};
use crate::estimate::{
    Estimate, EstimateError, Estimates, Estimator, Experiment, NotApplicable, ParamId,
};
use crate::lsq::{CONDITION_LIMIT, solve_conditioned};
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// The stated standard deviation of every joint's torque noise (`[[noise]]` on `tau`), if
/// every joint has one.
pub(crate) fn stated_sigmas(data: &Measurements) -> Option<Vec<f64>> {
    column_sigmas(data, JointColumn::Tau, |_| 1.0)
}

/// The stated standard deviation of every joint's drive torque reading `K i` (N·m: `[[noise]]`
/// on the current `i` times the joint's `|K|`), if every joint has one.
pub fn stated_current_sigmas(data: &Measurements) -> Option<Vec<f64>> {
    column_sigmas(data, JointColumn::Current, |j| data.joints[j].gain.abs())
}

/// Per joint, the stated noise's standard deviation on `column` times `factor(joint)`.
fn column_sigmas(
    data: &Measurements,
    column: JointColumn,
    factor: impl Fn(usize) -> f64,
) -> Option<Vec<f64>> {
    (data.joints.iter().enumerate())
        .map(|(k, j)| {
            let var: f64 = (data.stated.noise.iter())
                .filter(|n| {
                    n.column == column.name()
                        && n.joints.as_ref().is_none_or(|js| js.contains(&j.id))
                })
                .map(|n| crate::estimate::mim::gls::law_variance(&n.model))
                .sum();
            (var > 0.0).then(|| var.sqrt() * factor(k))
        })
        .collect()
}

/// The Cramér–Rao bound of the base parameters under the stated torque noise (per-joint
/// `sigmas`, N·m) when each joint's Coulomb and viscous friction `F_c sgn(q̇) + F_v q̇` is
/// unknown too (what IDIM-OLS on one run estimates beside them): `None` where not
/// identifiable. Never below [`bound`]'s, which knows the friction.
pub fn bound_with_friction(data: &Measurements, sigmas: &[f64]) -> Vec<Option<f64>> {
    let friction = Some(FrictionColumns::CoulombViscous);
    let full = FullRegressor::with_columns(&data.geometry, vec![friction; data.joints.len()]);
    let (w, tau) = system_of(&full, data, Some(sigmas));
    let mut std = solve_conditioned(&w, &tau, CONDITION_LIMIT).std();
    std.truncate(full.base.len());
    std
}

/// The stacked system `(W, τ)` of a run, rows divided by `sigmas` where given.
pub fn system(data: &Measurements, sigmas: Option<&[f64]>) -> (DMatrix<f64>, DVector<f64>) {
    let full = FullRegressor::new(&data.geometry, vec![None; data.joints.len()]);
    system_of(&full, data, sigmas)
}

/// The stacked system of `full`'s columns (rates as [`system`] takes them).
fn system_of(
    full: &FullRegressor,
    data: &Measurements,
    sigmas: Option<&[f64]>,
) -> (DMatrix<f64>, DVector<f64>) {
    let h = data.t[1] - data.t[0];
    let measured_q = data
        .joints
        .iter()
        .any(|j| j.measured.contains_key(&JointColumn::Q));
    let rates: Vec<(Vec<f64>, Vec<f64>)> = data
        .joints
        .iter()
        .map(|j| {
            if measured_q {
                crate::encoder::differentiate(&j.q, h)
            } else {
                (j.qd.clone(), j.qdd.clone())
            }
        })
        .collect();
    let nj = data.joints.len();
    let n = data.samples();
    let mut w = DMatrix::zeros(n * nj, full.len());
    let mut tau = DVector::zeros(n * nj);
    for k in 0..n {
        let q: Vec<f64> = data.joints.iter().map(|j| j.q[k]).collect();
        let qd: Vec<f64> = rates.iter().map(|r| r.0[k]).collect();
        let qdd: Vec<f64> = rates.iter().map(|r| r.1[k]).collect();
        let rows = full.rows(&q, &qd, &qdd);
        for j in 0..nj {
            let s = sigmas.map_or(1.0, |s| s[j]);
            for c in 0..full.len() {
                w[(k * nj + j, c)] = rows[(j, c)] / s;
            }
            tau[k * nj + j] = data.joints[j].tau[k] / s;
        }
    }
    (w, tau)
}

/// The Cramér–Rao bound of the base parameters under the stated torque noise (per-joint
/// `sigmas`), from the run's regressor: `None` where not identifiable.
pub fn bound(data: &Measurements, sigmas: &[f64]) -> Vec<Option<f64>> {
    let (w, tau) = system(data, Some(sigmas));
    solve_conditioned(&w, &tau, CONDITION_LIMIT).std()
}

/// IDIM on a single run.
#[derive(Clone, Copy, Debug)]
pub struct IdimSingle;

impl Estimator for IdimSingle {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimSingle.name()
    }

    fn family(&self) -> Family {
        Family::Idim
    }

    fn needs(&self) -> &str {
        "a single run with joint angles and torques"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        crate::estimate::enough_samples(
            experiment,
            5,
            "the five-point differentiator of measured angles",
        )
        .map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data = crate::estimate::enough_samples(experiment, 5, "the five-point differentiator")
            .map_err(|e| e.into_error(self.name()))?;
        let sigmas = stated_sigmas(data);
        let (w, tau) = system(data, sigmas.as_deref());
        let solution = solve_conditioned(&w, &tau, CONDITION_LIMIT);
        let std = match &sigmas {
            // Weighted rows have unit variance: the covariance is the bound's.
            Some(_) => solution.std(),
            None => solution.std_from_residual(),
        };
        let x = solution.values;
        let mut out = Estimates::default();
        for (k, (value, std)) in x.into_iter().zip(std).enumerate() {
            out.values.insert(
                ParamId::Base(k + 1),
                Estimate {
                    value,
                    std: value.and(std),
                },
            );
        }
        Ok(out)
    }
}
