//! The teaching paper's adaptive parameter update (its eq. 29), `â̇ = −Γ Yᵀ e`,
//! `e = Y â − τ`, run online over a recording.
//!
//! `Y` is the full regressor of [`super::base::FullRegressor`] (base parameters and the
//! friction terms at the sweep analysis's transition velocity and gear ratio), `τ` the measured
//! `K·i`, both preprocessed as for IDIM (derivatives, parallel filter, slow joints left out).
//! The law is integrated at the sample rate `h` (explicit Euler, one update per equation, in
//! time order), `Γ = γ D` with `D = diag(1/mean(Y_c²))` normalizing each column `c`, and
//! `γ h = 1 / max_k tr(Y_k D Y_kᵀ)`, which keeps every update a contraction. The recording's
//! whole periods are replayed [`Adaptive::passes`] times (a robot repeating its trajectory),
//! starting from `â = 0`; the estimate after each pass is kept as the history.
//!
//! Being a gradient flow on the instantaneous error, the law converges at a rate set by the
//! smallest eigenvalue of the normalized information matrix: directions that the trajectory
//! excites weakly (here the static-friction term, which acts only near velocity reversals)
//! converge slowly, and with noise the estimate keeps fluctuating at a level set by `γ`.

use nalgebra::{DMatrix, DVector};

use super::base::FullRegressor;
use super::{Estimates, Prepared};
use super::{Identifier, Runs};
use crate::estimate::EstimateError;

/// The adaptive identifier.
#[derive(Clone, Debug)]
pub struct Adaptive {
    /// Replays of the recording.
    pub passes: usize,
    /// Equations of joints slower than this (rad/s) are left out of the error.
    pub min_speed: f64,
}

impl Default for Adaptive {
    fn default() -> Self {
        Adaptive {
            passes: 200,
            min_speed: super::MIN_SPEED,
        }
    }
}

/// Runs the update law over precomputed rows; returns the estimate after each pass.
pub fn run(rows: &[(DMatrix<f64>, DVector<f64>)], passes: usize) -> Vec<DVector<f64>> {
    let p = rows.first().map_or(0, |r| r.0.ncols());
    let count: usize = rows.iter().map(|r| r.0.nrows()).sum();
    let d = DVector::from_fn(p, |c, _| {
        let ms = rows
            .iter()
            .map(|(w, _)| w.column(c).norm_squared())
            .sum::<f64>()
            / count as f64;
        if ms > 0.0 { 1.0 / ms } else { 0.0 }
    });
    let gain = rows
        .iter()
        .map(|(w, _)| {
            (0..w.nrows())
                .map(|r| {
                    w.row(r)
                        .iter()
                        .zip(d.iter())
                        .map(|(y, d)| y * y * d)
                        .sum::<f64>()
                })
                .sum::<f64>()
        })
        .fold(0.0f64, f64::max);
    let mu = if gain > 0.0 { 1.0 / gain } else { 0.0 };
    let mut a = DVector::zeros(p);
    let mut history = Vec::with_capacity(passes);
    for _ in 0..passes {
        for (w, tau) in rows {
            let e = w * &a - tau;
            let step = w.transpose() * e;
            a -= step.component_mul(&d) * mu;
        }
        history.push(a.clone());
    }
    history
}

impl Adaptive {
    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let fg = super::friction_sweep::analysis(experiment)?.clone();
        let samples =
            super::periodic_samples(experiment.excitation, experiment.derivatives, self.name())?;
        let full = FullRegressor::new(experiment.geometry(), fg.friction);
        // One equation at a time, in time order, after the same preprocessing as IDIM.
        let (a, b, _) = full.system(&samples, self.min_speed, experiment.filter);
        let rows: Vec<(DMatrix<f64>, DVector<f64>)> = (0..a.nrows())
            .map(|r| (a.rows(r, 1).into_owned(), DVector::from_element(1, b[r])))
            .collect();
        let duration = samples.t.len() as f64 * (samples.t[1] - samples.t[0]);
        let estimates = run(&rows, self.passes);
        let last = estimates
            .last()
            .cloned()
            .unwrap_or_else(|| DVector::zeros(full.len()));
        let mut out = Estimates::identified(full.parameters(&last), Box::new(full.model(&last)));
        out.history = (estimates.iter().enumerate())
            .map(|(k, a)| {
                let t = (k + 1) as f64 * duration;
                (t, full.parameters(a).into_iter().collect())
            })
            .collect();
        Ok(out)
    }
}

impl super::Identifier for Adaptive {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::Adaptive.name()
    }

    fn needs(&self) -> &'static str {
        "sweep runs and an excitation run (roles sweep, excitation)"
    }

    fn runs(&self) -> Runs {
        Runs::SweepsAndExcitation
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        Adaptive::identify(self, experiment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regressor::{BaseParameters, regressor, standard_vector};
    use sim::model::reference;
    use sim::profile::Profile;

    /// On a noise-free, persistently exciting trajectory (torques from the inverse dynamics),
    /// the law converges to the true base parameters.
    #[test]
    fn converges_on_a_noise_free_exciting_trajectory() {
        let chain = reference::link2();
        let base = BaseParameters::of_chain(&chain);
        let beta = base.map(&standard_vector(&chain));
        let profiles = [
            Profile::Fourier {
                base_frequency: 0.2,
                offset: 0.1,
                a: vec![0.8, -0.3, 0.4],
                b: vec![0.2, 0.5, -0.3],
            },
            Profile::Fourier {
                base_frequency: 0.2,
                offset: -0.2,
                a: vec![-0.5, 0.6, 0.2],
                b: vec![0.4, -0.2, 0.5],
            },
        ];
        let rows: Vec<(DMatrix<f64>, DVector<f64>)> = (0..500)
            .map(|k| {
                let t = k as f64 * 0.01;
                let s: Vec<_> = profiles.iter().map(|p| p.eval(t)).collect();
                let (q, qd, qdd): (Vec<f64>, Vec<f64>, Vec<f64>) = (
                    s.iter().map(|m| m.q).collect(),
                    s.iter().map(|m| m.qd).collect(),
                    s.iter().map(|m| m.qdd).collect(),
                );
                let w = base.regressor(&regressor(&chain, &q, &qd, &qdd, &chain.gravity_vector()));
                let tau = &w * &beta;
                (w, tau)
            })
            .collect();
        let history = run(&rows, 400);
        let err = |a: &DVector<f64>| (a - &beta).norm() / beta.norm();
        let (early, late) = (err(&history[9]), err(history.last().unwrap()));
        assert!(late < 1e-3, "final relative error {late}");
        assert!(late < 0.1 * early, "{early} → {late}");
    }
}
