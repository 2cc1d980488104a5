//! The teaching paper's two-step method: gravity (and friction) from the sweeps first, then the
//! inertia parameters from the accelerations with the Coriolis and centrifugal torques
//! ignored, as the paper does ("the influence of Coriolis term is ignored").
//!
//! Step 2 solves `τ − ĝ(q) − τ̂_f(q, q̇) = Y_M(q, q̈) a_M` on the excitation run, `Y_M` the
//! standard regressor with `q̇ = 0` and no gravity (the mass-matrix part, diagonal and
//! off-diagonal together), reduced to its own base. The neglected `C(q, q̇) q̇` is not zero
//! on an excitation trajectory, so the inertia estimates absorb it: this bias is what the
//! report shows beside IDIM.

use nalgebra::{DMatrix, DVector, Vector3};
use sim::model::Chain;

use super::friction_gravity::FrictionGravity;
use super::{Estimates, MIN_SPEED, Prepared, TorqueModel};
use super::{Identifier, Runs};
use crate::estimate::EstimateError;
use crate::lsq::least_squares;
use crate::regressor::{BaseParameters, regressor};

/// The two-step identifier.
pub struct TwoStep;

/// `M̂(q) q̈ + ĝ(q) + τ̂_f(q, q̇)`, no Coriolis.
struct TwoStepModel {
    geometry: Chain,
    base: BaseParameters,
    a: DVector<f64>,
    first: FrictionGravity,
}

impl TwoStepModel {
    fn inertia_rows(&self, q: &[f64], qdd: &[f64]) -> DMatrix<f64> {
        let z = vec![0.0; q.len()];
        self.base
            .regressor(&regressor(&self.geometry, q, &z, qdd, &Vector3::zeros()))
    }
}

impl TorqueModel for TwoStepModel {
    fn torque(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let m = self.inertia_rows(q, qdd) * &self.a;
        let rest = self.first.torque(q, qd, qdd);
        m.iter().zip(rest).map(|(m, r)| m + r).collect()
    }
}

impl TwoStep {
    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let first = super::friction_sweep::analysis(experiment)?.clone();
        let samples =
            super::periodic_samples(experiment.excitation, experiment.derivatives, self.name())?;
        let geometry = experiment.geometry().clone();
        let mut model = TwoStepModel {
            base: BaseParameters::of_inertia(&geometry),
            geometry,
            a: DVector::zeros(0),
            first,
        };
        let (mut rows, mut rhs) = (Vec::new(), Vec::new());
        for k in 0..samples.t.len() {
            let (q, qd, qdd) = (&samples.q[k], &samples.qd[k], &samples.qdd[k]);
            let w = model.inertia_rows(q, qdd);
            let known = model.first.torque(q, qd, qdd);
            for j in 0..w.nrows() {
                if qd[j].abs() >= MIN_SPEED {
                    rows.push(w.row(j).into_owned());
                    rhs.push(samples.tau[k][j] - known[j]);
                }
            }
        }
        let mut a = DMatrix::zeros(rows.len(), model.base.len());
        for (r, row) in rows.iter().enumerate() {
            a.row_mut(r).copy_from(row);
        }
        model.a = least_squares(&a, &DVector::from_vec(rhs));
        let mut parameters = model.first.parameters(&model.geometry.joint_ids());
        parameters.extend(
            model
                .a
                .iter()
                .enumerate()
                .map(|(k, v)| (crate::param::ParamId::InertiaBase(k + 1), *v)),
        );
        Ok(Estimates::identified(parameters, Box::new(model)))
    }
}

impl super::Identifier for TwoStep {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::TwoStep.name()
    }

    fn needs(&self) -> &'static str {
        "sweep runs and an excitation run (roles sweep, excitation)"
    }

    fn runs(&self) -> Runs {
        Runs::SweepsAndExcitation
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        TwoStep::identify(self, experiment)
    }
}
