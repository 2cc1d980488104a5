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

use super::friction_sweep::FrictionGravity;
use super::{Experiment, Identified, MIN_SPEED, TorqueModel};
use crate::estimator::EstimateError;
use crate::lsq::least_squares;
use crate::standard_regressor::{BaseParameters, random_states, regressor, stacked_with};

/// The two-step identifier.
pub struct TwoStep;

/// The inertia (mass-matrix) regressor's base, from the kinematics.
pub fn inertia_base(geometry: &Chain) -> BaseParameters {
    let states: Vec<[Vec<f64>; 3]> = random_states(geometry, 40, 6)
        .into_iter()
        .map(|[q, qd, qdd]| [q, vec![0.0; qd.len()], qdd])
        .collect();
    BaseParameters::from_regressor(&stacked_with(geometry, &states, &Vector3::zeros()), 1e-9)
}

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
    /// The method's name, the `method` column of reports.
    pub fn name(&self) -> String {
        "two_step".into()
    }

    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Experiment) -> Result<Identified, EstimateError> {
        let first = experiment.sweep_fit()?.clone();
        let samples =
            super::periodic_samples(experiment.excitation, experiment.derivatives, &self.name())?;
        let geometry = experiment.geometry().clone();
        let mut model = TwoStepModel {
            base: inertia_base(&geometry),
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
        Ok(Identified {
            parameters,
            model: Box::new(model),
            history: Vec::new(),
            standard: None,
        })
    }
}
