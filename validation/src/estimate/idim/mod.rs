//! Regressor-based identification of a whole arm, the teaching paper's pipeline
//! (`friction-gravity-inertia-adaptive-teaching.txt`): friction and gravity from slow
//! forward/backward sweeps, inertial base parameters from an excitation trajectory, and an
//! adaptive update law.
//!
//! Each registry name is one type in its own file implementing [`Identifier`] (and through it
//! [`crate::estimate::Estimator`]): it sees a [`Prepared`] experiment (measurement columns of
//! several runs of one arm, plus its kinematics) and returns its [`Estimates`]: named
//! parameter estimates and a torque predictor, scored on a separate validation trajectory.
//! Torques are what the drives measure, `τ = K·i`
//! ([`sim::reading::JointSeries::motor_torque`]). The shared pieces are functions they call:
//! the regressor and base map ([`base`]), friction columns, the sweep analysis
//! ([`friction_sweep`]), the simulated loop ([`closed_loop`]).
//!
//! Parameters are [`crate::param::ParamId`]s: `Base` of the full regressor
//! ([`crate::regressor::BaseParameters::of_chain`]), `GravityBase` of the gravity regressor,
//! `InertiaBase` of the inertia (mass-matrix) regressor, and `Friction` for friction
//! ([`sim::friction::PAPER_COEFFICIENTS`], the transition velocity and the gear ratio).

pub mod adaptive;
pub mod base;
pub mod cloe;
pub mod closed_loop;
pub mod consistent;
pub mod didim;
pub mod drives;
pub mod friction_gravity;
pub mod friction_sweep;
pub mod identifier;
pub mod irls;
pub mod iv;
pub mod kalman;
pub mod log_cholesky;
pub mod ols;
pub mod prior;
mod projected;
pub mod refined;
pub mod robust;
pub mod single;
pub mod sweep_fit;
pub mod tls;
pub mod two_step;
pub mod wls;

pub use adaptive::Adaptive;
pub use cloe::Cloe;
pub use consistent::IdimConsistent;
pub use didim::Didim;
pub use identifier::{Identifier, Processed, Processing, Runs};
pub use irls::IdimIrls;
pub use iv::Iv;
pub use kalman::{ekf::Ekf, ukf::Ukf};
pub use ols::IdimOls;
pub use prior::IdimPrior;
pub use refined::Refined;
pub use single::IdimSingle;
pub use sweep_fit::SweepFit;
pub use tls::IdimTls;
pub use two_step::TwoStep;
pub use wls::IdimWls;

pub use crate::estimate::estimator::{Estimates, TorqueModel};

use std::sync::OnceLock;

use sim::model::Chain;

use crate::estimate::EstimateError;
use crate::fourier;
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// The runs of one experiment on one arm ([`crate::estimate::experiment::Experiment`], resolved by role
/// by the estimator's binding, [`crate::estimate::idim`]) prepared for whole-arm
/// identification: how `q̇, q̈` are obtained, the parallel filter, and the sweep analysis the
/// identifiers share.
pub struct Prepared<'a> {
    /// The friction experiment: one run per swept joint (its reference a `sweep` profile).
    pub sweeps: Vec<&'a Measurements>,
    /// The identification (excitation) trajectory: periodic servo references.
    pub excitation: &'a Measurements,
    /// How joint velocities and accelerations are obtained from the excitation run.
    pub derivatives: Derivatives,
    /// Parallel filtering: keep only harmonics `0..=H` of the excitation period in every
    /// regressor column and in the measured torques before solving (`None`: no filtering).
    /// The model is linear in its parameters, so `F(τ) = F(W) β` holds for any linear filter
    /// `F`; a low-pass `F` removes the high-frequency errors of `q̈` (noise amplified by the
    /// differentiation, ringing of its truncation) after they enter `W`.
    pub filter: Option<usize>,
    /// The sweep analysis, computed once and shared by the identifiers that build on it.
    pub(crate) sweep_fit: OnceLock<Result<friction_gravity::FrictionGravity, EstimateError>>,
}

impl<'a> Prepared<'a> {
    /// An experiment's runs with the processing choices.
    pub fn new(
        sweeps: Vec<&'a Measurements>,
        excitation: &'a Measurements,
        derivatives: Derivatives,
        filter: Option<usize>,
    ) -> Self {
        Prepared {
            sweeps,
            excitation,
            derivatives,
            filter,
            sweep_fit: OnceLock::new(),
        }
    }

    /// The arm's kinematics (no inertial parameters).
    pub fn geometry(&self) -> &Chain {
        &self.excitation.geometry
    }

    /// The prepared runs with the sweep analysis already made (shared by the identifiers of one
    /// experiment, [`crate::estimate::experiment::Experiment::derived`]).
    pub(crate) fn with_sweep_fit(
        self,
        fit: Result<friction_gravity::FrictionGravity, EstimateError>,
    ) -> Self {
        let _ = self.sweep_fit.set(fit);
        self
    }
}

/// Source of `q̇, q̈` on periodic trajectories.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Derivatives {
    /// The recorded clean `q̇, q̈` (ideal sensors; used for the noise-free check only).
    Recorded,
    /// A least-squares Fourier series with this many harmonics of the excitation's period,
    /// fitted to the measured `q` over its whole periods (the first period dropped as
    /// transient) and differentiated analytically.
    Fourier {
        /// Harmonics of the fundamental kept.
        harmonics: usize,
    },
}

/// Joint states and measured torques of a run, sample by sample.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Period of the trajectory (s); the samples span whole periods.
    pub period: f64,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// `q` per sample (all joints).
    pub q: Vec<Vec<f64>>,
    /// `q̇` per sample.
    pub qd: Vec<Vec<f64>>,
    /// `q̈` per sample.
    pub qdd: Vec<Vec<f64>>,
    /// Measured `τ = K·i` per sample.
    pub tau: Vec<Vec<f64>>,
}

/// The common period (s) of a run's periodic references.
fn reference_period(data: &Measurements) -> Option<f64> {
    data.joints.iter().find_map(|j| match &j.reference {
        Some(sim::profile::Profile::Fourier { base_frequency, .. }) => Some(1.0 / base_frequency),
        _ => None,
    })
}

/// The samples of a run that an identifier uses, with `q̇, q̈` from `derivatives`: on a periodic
/// run whole periods after the first; on a run without a designed period (a recording, whose
/// rates come from the signal chain, [`crate::signal`]) every sample, its `period` the span.
pub fn periodic_samples(
    data: &Measurements,
    derivatives: Derivatives,
    name: &str,
) -> Result<Samples, EstimateError> {
    let err = |message: String| EstimateError {
        estimator: name.to_string(),
        message,
    };
    let dt = data.t[1] - data.t[0];
    let (period, range) = match reference_period(data) {
        Some(period) => {
            let per_period = (period / dt).round() as usize;
            let periods = (data.samples() - 1) / per_period;
            if periods < 2 {
                return Err(err(format!(
                    "run `{}` holds {periods} whole period(s) of {period} s; at least 2 are \
                     needed",
                    data.run_id
                )));
            }
            (period, per_period..per_period * periods)
        }
        // A run without a designed period (a recording): every sample, its rates as given.
        None if derivatives == Derivatives::Recorded => (
            data.t[data.samples() - 1] - data.t[0] + dt,
            0..data.samples(),
        ),
        None => {
            return Err(err(format!(
                "run `{}` has no periodic (Fourier) reference, which the Fourier \
                 differentiation needs",
                data.run_id
            )));
        }
    };
    if let Derivatives::Fourier { harmonics } = derivatives {
        // The highest harmonic fitted must stay below the Nyquist frequency (`fourier::project`).
        let cycles = (range.len() as f64 * dt / period).round() as usize;
        if harmonics * cycles >= range.len() / 2 {
            return Err(err(format!(
                "run `{}`: {} samples over {cycles} period(s) of {period} s cannot hold \
                 {harmonics} harmonics below the Nyquist frequency",
                data.run_id,
                range.len()
            )));
        }
    }
    let nj = data.joints.len();
    let taus: Vec<Vec<f64>> = data.joints.iter().map(|j| j.motor_torque()).collect();
    let (mut qs, mut qds, mut qdds) = (vec![], vec![], vec![]);
    for j in &data.joints {
        match derivatives {
            Derivatives::Recorded => {
                qs.push(j.measured_or_clean(JointColumn::Q)[range.clone()].to_vec());
                qds.push(j.qd[range.clone()].to_vec());
                qdds.push(j.qdd[range.clone()].to_vec());
            }
            Derivatives::Fourier { harmonics } => {
                let q = j.measured_or_clean(JointColumn::Q);
                let window = fourier::Window {
                    start: range.start,
                    len: range.len(),
                };
                let w0 = std::f64::consts::TAU / period;
                let series = fourier::Series::fit(q, &data.t, window, w0, harmonics);
                let values: Vec<(f64, f64, f64)> =
                    range.clone().map(|k| series.eval(data.t[k])).collect();
                qs.push(values.iter().map(|v| v.0).collect());
                qds.push(values.iter().map(|v| v.1).collect());
                qdds.push(values.iter().map(|v| v.2).collect());
            }
        }
    }
    let per_sample = |cols: &Vec<Vec<f64>>, k: usize| (0..nj).map(|j| cols[j][k]).collect();
    let n = range.len();
    Ok(Samples {
        period,
        t: data.t[range.clone()].to_vec(),
        q: (0..n).map(|k| per_sample(&qs, k)).collect(),
        qd: (0..n).map(|k| per_sample(&qds, k)).collect(),
        qdd: (0..n).map(|k| per_sample(&qdds, k)).collect(),
        tau: (0..n)
            .map(|k| (0..nj).map(|j| taus[j][range.start + k]).collect())
            .collect(),
    })
}

/// The measured angles (`q_meas`, else the clean `q`) of every joint at `samples`' times, as
/// the encoders gave them (no fit, no derivative), and the index of the first in `data.t`.
pub(crate) fn raw_angles(data: &Measurements, samples: &Samples) -> (usize, Vec<Vec<f64>>) {
    let first = (data.t.iter())
        .position(|&t| t >= samples.t[0] - 1e-9)
        .unwrap_or(0);
    let columns: Vec<&[f64]> = (data.joints.iter())
        .map(|j| j.measured_or_clean(JointColumn::Q))
        .collect();
    let angles = (first..first + samples.t.len())
        .map(|k| columns.iter().map(|c| c[k]).collect())
        .collect();
    (first, angles)
}

/// Keeps harmonics `0..=h` of a series spanning whole periods of `t` (zero-phase low-pass).
pub(crate) fn low_pass(x: &[f64], t: &[f64], period: f64, h: usize) -> Vec<f64> {
    let window = fourier::Window {
        start: 0,
        len: x.len(),
    };
    let series = fourier::Series::fit(x, t, window, std::f64::consts::TAU / period, h);
    t.iter().map(|&s| series.eval(s).0).collect()
}

/// Joints slower than this (rad/s) are left out of identification equations and of
/// [`torque_nrms`]: near zero velocity the friction is set by how the drive's friction passes
/// through zero (the simulator's sign smoothing), which none of these models describes.
pub const MIN_SPEED: f64 = 0.05;

/// Torque-prediction NRMS on a run: `sqrt(Σ(τ̂ − τ)² / Σ τ²)` over the samples and joints whose
/// speed is at least `min_speed` (0: all), `τ` the measured `K·i`. With `filter = Some(H)` the
/// predicted and the measured torques are both low-passed to harmonics `0..=H` first (the same
/// parallel filtering as in identification; it removes the measurement noise from both).
pub fn torque_nrms(
    model: &dyn TorqueModel,
    samples: &Samples,
    min_speed: f64,
    filter: Option<usize>,
) -> f64 {
    let n = samples.t.len();
    let nj = samples.q.first().map_or(0, Vec::len);
    let predicted: Vec<Vec<f64>> = (0..n)
        .map(|k| model.torque(&samples.q[k], &samples.qd[k], &samples.qdd[k]))
        .collect();
    let (mut err, mut total) = (0.0, 0.0);
    for j in 0..nj {
        let mut p: Vec<f64> = predicted.iter().map(|r| r[j]).collect();
        let mut m: Vec<f64> = samples.tau.iter().map(|r| r[j]).collect();
        if let Some(h) = filter {
            p = low_pass(&p, &samples.t, samples.period, h);
            m = low_pass(&m, &samples.t, samples.period, h);
        }
        for k in 0..n {
            if samples.qd[k][j].abs() >= min_speed {
                err += (p[k] - m[k]).powi(2);
                total += m[k] * m[k];
            }
        }
    }
    (err / total).sqrt()
}
