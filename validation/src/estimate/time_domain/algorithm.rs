//! Inverse-dynamics least squares in the time domain, on the full nonlinear model:
//! `tau = Y(q, q̇, q̈) θ + diag(q̇) c` stacked over the steady-state samples
//! ([`crate::estimate::known_geometry`]). Assumed known: the geometry ([`KnownGeometry`]). Estimated: every
//! body's mass and moment about its joint axis, and every joint's damping.
//!
//! `q̇`, `q̈` come either from the recorded clean columns ([`Derivatives::Recorded`]), or from a
//! truncated Fourier series fitted to the measured angles over whole periods
//! ([`Derivatives::Fourier`]): for a periodic record this is an ideal low-pass filter whose
//! derivatives are exact. The torque is the measured `tau` (`tau_meas` where present).

use nalgebra::{DMatrix, DVector};

use crate::estimate::EstimateError;
use crate::estimate::frequency::algorithm::Excitation;
use crate::estimate::known_geometry::{KnownGeometry, require};
use crate::fourier::Series;
use crate::param::Values;
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// Where the angles and their derivatives come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Derivatives {
    /// The recorded clean `q`, `qd`, `qdd`.
    Recorded,
    /// A Fourier series with harmonics `1..=harmonics` of the excitation's fundamental, fitted to
    /// the measured angles, keeping only harmonics above the noise floor
    /// ([`Series::fit_denoised`], floor estimated over harmonics `noise_band`).
    Fourier {
        /// Highest harmonic kept.
        harmonics: usize,
        /// Harmonics assumed free of signal, for the noise-floor estimate.
        noise_band: (usize, usize),
        /// Also estimate a constant offset of each measured angle (sensor bias), by alternating
        /// least squares on the parameters and Gauss–Newton steps on the offsets.
        offsets: bool,
    },
}

/// The time-domain inverse-dynamics estimator.
#[derive(Clone, Debug)]
pub struct InverseDynamicsLs {
    /// Known geometry.
    pub geometry: KnownGeometry,
    /// The excitation (its period defines the steady-state window).
    pub excitation: Excitation,
    /// Source of the angles and derivatives.
    pub derivatives: Derivatives,
    /// Use every `stride`-th sample of the window.
    pub stride: usize,
}

impl InverseDynamicsLs {
    /// Short name, the `method` column of reports.
    pub(crate) fn name(&self) -> String {
        match self.derivatives {
            Derivatives::Recorded => "time_domain".into(),
            Derivatives::Fourier { .. } => "time_domain_fourier".into(),
        }
    }

    /// Estimates the parameters of every body it can.
    pub(crate) fn estimate(&self, data: &Measurements) -> Result<Values, EstimateError> {
        let n = self.geometry.bodies();
        require(&self.name(), &self.geometry, data.joints.len())?;
        let window = self.excitation.window(&self.name(), data)?;
        if self.derivatives == Derivatives::Recorded
            && data
                .joints
                .iter()
                .any(|j| j.measured.contains_key(&JointColumn::Q))
        {
            return Err(EstimateError {
                estimator: self.name(),
                message: "the recorded derivatives belong to the clean angles; with measured (noisy) angles use Fourier derivatives".into(),
            });
        }
        let series: Option<Vec<Series>> = match self.derivatives {
            Derivatives::Recorded => None,
            Derivatives::Fourier {
                harmonics,
                noise_band,
                ..
            } => Some(
                data.joints
                    .iter()
                    .map(|j| {
                        let q = j.measured_or_clean(JointColumn::Q);
                        Series::fit_denoised(
                            q,
                            &data.t,
                            window,
                            self.excitation.omega0(),
                            harmonics,
                            noise_band.0..=noise_band.1,
                        )
                        .0
                    })
                    .collect(),
            ),
        };
        let offsets = matches!(self.derivatives, Derivatives::Fourier { offsets: true, .. });
        let samples: Vec<usize> = (window.start..window.start + window.len)
            .step_by(self.stride.max(1))
            .collect();
        let states: Vec<[Vec<f64>; 3]> = samples
            .iter()
            .map(|&s| {
                let (mut q, mut qd, mut qdd) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                for (i, j) in data.joints.iter().enumerate() {
                    (q[i], qd[i], qdd[i]) = match &series {
                        None => (j.q[s], j.qd[s], j.qdd[s]),
                        Some(fits) => fits[i].eval(data.t[s]),
                    };
                }
                [q, qd, qdd]
            })
            .collect();
        let tau: Vec<f64> = samples
            .iter()
            .flat_map(|&s| {
                data.joints
                    .iter()
                    .map(move |j| j.measured_or_clean(JointColumn::Tau)[s])
            })
            .collect();
        let z = DVector::from_vec(tau);
        let mut bias = vec![0.0; n];
        let mut theta = self.solve(&states, &bias, &z);
        for _ in 0..if offsets { 6 } else { 0 } {
            // Gauss–Newton on the offsets with θ fixed: r(b + δ) ≈ r(b) − (∂τ/∂q) δ.
            let Some(chain) = self.model_with(&theta) else {
                break;
            };
            let h = 1e-6;
            let mut jac = DMatrix::zeros(z.len(), n);
            let mut r = DVector::zeros(z.len());
            let g = chain.gravity_vector();
            for (row, [q, qd, qdd]) in states.iter().enumerate() {
                let qb: Vec<f64> = q.iter().zip(&bias).map(|(a, b)| a - b).collect();
                let tau0 = sim::dynamics::rnea(&chain, &qb, qd, qdd, &g).tau;
                for i in 0..n {
                    r[row * n + i] = z[row * n + i] - tau0[i] - theta_damping(&theta, n, i) * qd[i];
                }
                for j in 0..n {
                    let (mut qp, mut qm) = (qb.clone(), qb.clone());
                    qp[j] += h;
                    qm[j] -= h;
                    let (tp, tm) = (
                        sim::dynamics::rnea(&chain, &qp, qd, qdd, &g).tau,
                        sim::dynamics::rnea(&chain, &qm, qd, qdd, &g).tau,
                    );
                    for i in 0..n {
                        jac[(row * n + i, j)] = -(tp[i] - tm[i]) / (2.0 * h);
                    }
                }
            }
            let delta = crate::lsq::least_squares(&jac, &r);
            for (b, d) in bias.iter_mut().zip(delta.iter()) {
                *b += d;
            }
            theta = self.solve(&states, &bias, &z);
            if delta.norm() < 1e-10 {
                break;
            }
        }
        Ok(self.geometry.estimates(&theta))
    }
}

fn theta_damping(theta: &[Option<f64>], n: usize, i: usize) -> f64 {
    theta[2 * n + i].unwrap_or(0.0)
}

impl InverseDynamicsLs {
    /// Least squares for θ with the angles shifted by `-bias`.
    fn solve(&self, states: &[[Vec<f64>; 3]], bias: &[f64], z: &DVector<f64>) -> Vec<Option<f64>> {
        let n = self.geometry.bodies();
        let g = self.geometry.chain().gravity_vector();
        let mut y = DMatrix::zeros(z.len(), 3 * n);
        for (r, [q, qd, qdd]) in states.iter().enumerate() {
            let qb: Vec<f64> = q.iter().zip(bias).map(|(a, b)| a - b).collect();
            let yi = self.geometry.inertial_regressor(&qb, qd, qdd, &g);
            for i in 0..n {
                let row = r * n + i;
                for p in 0..2 * n {
                    y[(row, p)] = yi[(i, p)];
                }
                y[(row, 2 * n + i)] = qd[i];
            }
        }
        self.geometry.solve(&y, z)
    }

    /// The known geometry filled with estimated masses and moments (`None` if one is missing).
    fn model_with(&self, theta: &[Option<f64>]) -> Option<sim::model::Chain> {
        let n = self.geometry.bodies();
        let mut chain = self.geometry.chain().clone();
        for (b, link) in chain.links.iter_mut().enumerate() {
            link.body.mass = theta[b]?;
            link.body.inertia = [0.0, theta[n + b]?, 0.0];
        }
        Some(chain)
    }
}
