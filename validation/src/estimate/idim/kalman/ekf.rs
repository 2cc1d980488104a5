//! The extended Kalman filter ([`super`]): the covariance carried through the Jacobian of the
//! linearized step, `Φ = [[I + E T A, E T B], [0, I]]`, `E = (I − T/2 A)⁻¹`,
//! `B = ∂f/∂x = (0, −M̂⁻¹ W(q, q̇, q̈))` (the regressor's rows, friction band as simulated).

use nalgebra::DMatrix;

use super::{Belief, Breakdown, Interval, Predict, Step, split, symmetric};
use crate::estimate::EstimateError;
use crate::estimate::idim::Identifier;
use crate::estimate::idim::base::FullRegressor;
use crate::estimate::idim::closed_loop::arm::Arm;
use crate::estimate::idim::{Estimates, Prepared};

/// The EKF identifier.
#[derive(Clone, Debug, Default)]
pub struct Ekf;

impl Ekf {
    /// Identifies the arm from the experiment's excitation run.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        super::identify(experiment, self.name(), self)
    }
}

impl crate::estimate::idim::Identifier for Ekf {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::Ekf.name()
    }

    fn identify(
        &self,
        experiment: &crate::estimate::idim::Prepared,
    ) -> Result<crate::estimate::idim::Estimates, EstimateError> {
        Ekf::identify(self, experiment)
    }
}

impl Predict for Ekf {
    fn predict(
        &self,
        full: &FullRegressor,
        belief: &Belief,
        interval: &Interval,
    ) -> Result<Belief, Breakdown> {
        let n = interval.torque.len();
        let l = belief.mean.len();
        let (q, qd, x) = split(&belief.mean, n);
        let arm = Arm::new(full, &x);
        let step = Step::at(&arm, &q, &qd, interval)?;
        let mut mean = belief.mean.clone();
        let moved = &step.implicit * &step.rate;
        for r in 0..2 * n {
            mean[r] += moved[r];
        }
        let w = arm.rows(&q, &qd, &step.qdd);
        let b = -&step.inverse_mass * w * interval.period;
        let mut phi = DMatrix::<f64>::identity(l, l);
        let joint = DMatrix::identity(2 * n, 2 * n) + &step.implicit * &step.jacobian;
        phi.view_mut((0, 0), (2 * n, 2 * n)).copy_from(&joint);
        let coupling = step.implicit.columns(n, n) * b;
        phi.view_mut((0, 2 * n), (2 * n, l - 2 * n))
            .copy_from(&coupling);
        let mut cov = &phi * &belief.cov * phi.transpose();
        let noise = step.process_noise(interval);
        cov.view_mut((0, 0), (2 * n, 2 * n))
            .zip_apply(&noise, |c, q| *c += q);
        Ok(Belief {
            mean,
            cov: symmetric(cov),
        })
    }
}
