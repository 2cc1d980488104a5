//! Inverse-dynamics least squares in the time domain on the full nonlinear model
//! ([`crate::estimate::time_domain::algorithm`]) of a run with periodic (multisine) torques: masses,
//! moments about the joint axis and joint damping of a fixed-base planar arm.

use crate::estimate::Family;
use crate::estimate::frequency::Told;
use crate::estimate::time_domain::algorithm::{Derivatives, InverseDynamicsLs};
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};
use sim::recording::JointColumn;

/// The time-domain estimator with its source of `q̇, q̈`.
#[derive(Clone, Debug)]
pub struct TimeDomain {
    fourier: bool,
    /// What it is told beyond the run.
    pub told: Told,
}

impl TimeDomain {
    /// With the recorded `q̇, q̈` (ideal sensors: applies only where `q` is not measured).
    pub fn recorded() -> Self {
        TimeDomain {
            fourier: false,
            told: Told::default(),
        }
    }

    /// With a denoised Fourier series of the measured angles and an offset per angle.
    pub fn fourier() -> Self {
        TimeDomain {
            fourier: true,
            told: Told::default(),
        }
    }

    /// The same, told `told`.
    pub fn told(self, told: Told) -> Self {
        TimeDomain { told, ..self }
    }
}

impl Estimator for TimeDomain {
    fn name(&self) -> &'static str {
        if self.fourier {
            crate::estimate::EstimatorId::TimeDomainFourier.name()
        } else {
            crate::estimate::EstimatorId::TimeDomain.name()
        }
    }

    fn family(&self) -> Family {
        Family::TimeDomain
    }

    fn needs(&self) -> &str {
        crate::estimate::frequency::MULTISINE_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let (data, _, _) = crate::estimate::frequency::multisine_run(experiment, &self.told)?;
        if !self.fourier
            && data
                .joints
                .iter()
                .any(|j| j.measured.contains_key(&JointColumn::Q))
        {
            return Err(NotApplicable::new(
                "needs clean joint angles (its recorded derivatives belong to them); the run measures q",
            ));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, excitation, geometry) =
            crate::estimate::frequency::multisine_run(experiment, &self.told)
                .map_err(|e| e.into_error(self.name()))?;
        // Harmonics of the fundamental up to the Nyquist frequency; the noise floor is
        // estimated over the middle three fifths of that band.
        let h = data.t[1] - data.t[0];
        let nyquist = (0.5 / h / excitation.base_frequency).floor() as usize;
        let derivatives = if self.fourier {
            Derivatives::Fourier {
                harmonics: 300.min(nyquist / 10).max(1),
                noise_band: (nyquist / 5, 4 * nyquist / 5),
                offsets: true,
            }
        } else {
            Derivatives::Recorded
        };
        let method = InverseDynamicsLs {
            geometry,
            excitation,
            derivatives,
            stride: if self.fourier { 10 } else { 5 },
        };
        Ok(crate::estimate::from_values(method.estimate(data)?))
    }
}
