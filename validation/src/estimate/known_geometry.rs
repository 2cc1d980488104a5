//! Inverse dynamics linear in the unknown parameters, for estimators that know the geometry.
//!
//! The joint forces of a chain are linear in each body's mass and inertia once its centroid is
//! fixed, and in the joint damping. [`KnownGeometry`] is what such an estimator may know: the
//! kinematic chain (joint axes and points, centroids, body frames, lengths) with every inertial
//! and damping value removed. The regressor columns are the project's RNEA
//! ([`sim::dynamics::rnea`]) on copies of that chain with one unit parameter each, so they are
//! exact wherever RNEA is.
//!
//! Parameters, in order: for each body `i` its mass `m_i` and its moment `J_i` about its body
//! axis `e2` (the joint axis of a planar arm turning about `y`, such as `link2`), then each
//! joint's viscous damping `c_j`. The model is `tau = Y_inertial(q, q̇, q̈) θ + diag(q̇) c`.

use nalgebra::{DMatrix, DVector, Vector3};
use sim::model::{Base, Chain};

use crate::estimate::EstimateError;
use crate::lsq::solve_identifiable;
use crate::param::{Estimate, ParamId, Values};

/// The kinematic model, with no inertial or damping value in it.
#[derive(Clone, Debug)]
pub struct KnownGeometry {
    chain: Chain,
    /// Prior knowledge per parameter (same order as the regressor columns); `None`: estimated.
    known: Vec<Option<f64>>,
}

impl KnownGeometry {
    /// Strips a model of its masses, moments and damping. Only fixed-base chains whose joints
    /// all turn about their bodies' `e2` axes (planar arms) are supported.
    pub fn from_model(model: &Chain) -> crate::Result<Self> {
        if model.base != Base::Fixed {
            return Err(crate::Error::invalid(
                format!("model `{}`", model.name),
                "a fixed base",
            ));
        }
        let mut chain = model.clone();
        for (k, link) in chain.links.iter_mut().enumerate() {
            let e2 = Vector3::from(link.body.frame[1]);
            if (e2 - link.joint.axis().into_inner()).norm() > 1e-12 {
                return Err(crate::Error::invalid(
                    format!("model `{}`, joint {}", model.name, k + 1),
                    "a joint turning about its body's e2 axis",
                ));
            }
            link.body.mass = 0.0;
            link.body.inertia = [0.0; 3];
            link.joint.damping = 0.0;
        }
        let known = vec![None; 3 * chain.len()];
        Ok(KnownGeometry { chain, known })
    }

    /// The frequency-domain paper's assumption: the link moments `J_i` and the joint damping
    /// are known (taken from `model` as prior knowledge), only the masses are estimated.
    pub fn masses_unknown(model: &Chain) -> crate::Result<Self> {
        let mut g = Self::from_model(model)?;
        let n = g.bodies();
        for (b, link) in model.links.iter().enumerate() {
            g.known[n + b] = Some(link.body.inertia[1]);
            g.known[2 * n + b] = Some(link.joint.damping);
        }
        Ok(g)
    }

    /// Solves `Y θ = z` for the unknown parameters, the known ones' columns moved to the right
    /// side ([`solve_identifiable`]). Returns the full θ, known values filled in.
    pub fn solve(&self, y: &DMatrix<f64>, z: &DVector<f64>) -> Vec<Option<f64>> {
        let unknown: Vec<usize> = (0..self.known.len())
            .filter(|&p| self.known[p].is_none())
            .collect();
        let mut rhs = z.clone();
        for (p, k) in self.known.iter().enumerate() {
            if let Some(v) = k {
                rhs -= y.column(p) * *v;
            }
        }
        let solved = solve_identifiable(&y.select_columns(&unknown), &rhs, 1e-10);
        let mut theta = self.known.clone();
        for (p, v) in unknown.iter().zip(solved) {
            theta[*p] = v;
        }
        theta
    }

    /// Number of bodies.
    pub fn bodies(&self) -> usize {
        self.chain.len()
    }

    /// The stripped chain (lengths, axes, centroids).
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// Number of parameters (`2n` inertial, `n` damping).
    pub fn parameters(&self) -> usize {
        3 * self.bodies()
    }

    /// The chain with unit value of inertial parameter `p < 2n` and nothing else.
    fn unit_chain(&self, p: usize) -> Chain {
        let mut chain = self.chain.clone();
        let (body, inertia) = (p % self.bodies(), p >= self.bodies());
        if inertia {
            chain.links[body].body.inertia = [0.0, 1.0, 0.0];
        } else {
            chain.links[body].body.mass = 1.0;
        }
        chain
    }

    /// Inertial regressor `Y (n × 2n)` at one state: column `p` is `RNEA` of the unit chain `p`.
    pub(crate) fn inertial_regressor(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        gravity: &Vector3<f64>,
    ) -> DMatrix<f64> {
        let n = self.bodies();
        let mut y = DMatrix::zeros(n, 2 * n);
        for p in 0..2 * n {
            let tau = sim::dynamics::rnea(&self.unit_chain(p), q, qd, qdd, gravity).tau;
            for (i, t) in tau.iter().enumerate() {
                y[(i, p)] = *t;
            }
        }
        y
    }

    /// Linearization about `q = 0` at rest: per inertial parameter `p`, the mass matrix `M⁽ᵖ⁾`
    /// and the gravity stiffness `K⁽ᵖ⁾ = ∂G/∂q` (central differences, step 1e-6 rad).
    pub fn linearization(&self) -> Vec<(DMatrix<f64>, DMatrix<f64>)> {
        let n = self.bodies();
        let zero = vec![0.0; n];
        let g = self.chain.gravity_vector();
        (0..2 * n)
            .map(|p| {
                let chain = self.unit_chain(p);
                let (mut m, mut k) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
                for j in 0..n {
                    let mut e = zero.clone();
                    e[j] = 1.0;
                    let col = sim::dynamics::rnea(&chain, &zero, &zero, &e, &Vector3::zeros()).tau;
                    let h = 1e-6;
                    let (mut qp, mut qm) = (zero.clone(), zero.clone());
                    qp[j] = h;
                    qm[j] = -h;
                    let gp = sim::dynamics::rnea(&chain, &qp, &zero, &zero, &g).tau;
                    let gm = sim::dynamics::rnea(&chain, &qm, &zero, &zero, &g).tau;
                    for i in 0..n {
                        m[(i, j)] = col[i];
                        k[(i, j)] = (gp[i] - gm[i]) / (2.0 * h);
                    }
                }
                (m, k)
            })
            .collect()
    }

    /// Turns a parameter vector into estimates of the unknown parameters (`None` where
    /// undetermined); known parameters are not reported.
    pub fn estimates(&self, theta: &[Option<f64>]) -> Values {
        let n = self.bodies();
        (0..3 * n)
            .filter(|&p| self.known[p].is_none())
            .map(|p| {
                let body = (p % n + 1) as u8;
                let id = [
                    ParamId::mass(body),
                    ParamId::moment(body, 2),
                    ParamId::Damping { joint: body },
                ][p / n];
                (id, Estimate::value(theta[p]))
            })
            .collect()
    }
}

/// The geometry an estimator was built with, or the error it reports.
pub(crate) fn require(
    name: &str,
    geometry: &KnownGeometry,
    joints: usize,
) -> Result<(), EstimateError> {
    if geometry.bodies() != joints {
        return Err(EstimateError {
            estimator: name.into(),
            message: format!(
                "expected {} joints (the known geometry), the data have {joints}",
                geometry.bodies()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regressor_times_truth_is_rnea() {
        let model = sim::model::reference::link2();
        let geo = KnownGeometry::from_model(&model).unwrap();
        let (q, qd, qdd) = ([0.3, -1.2], [0.5, 0.9], [-0.4, 1.3]);
        let g = model.gravity_vector();
        let y = geo.inertial_regressor(&q, &qd, &qdd, &g);
        let theta = nalgebra::DVector::from_column_slice(&[5.0, 1.5, 5.0, 5.0]);
        let tau = sim::dynamics::rnea(&model, &q, &qd, &qdd, &g).tau;
        let yt = &y * theta;
        for i in 0..2 {
            assert!(
                (yt[i] - tau[i]).abs() < 1e-12 * tau[i].abs().max(1.0),
                "{} vs {}",
                yt[i],
                tau[i]
            );
        }
    }

    #[test]
    fn linearization_matches_the_closed_form_for_link2() {
        let geo = KnownGeometry::from_model(&sim::model::reference::link2()).unwrap();
        let lin = geo.linearization();
        let (g, l1, r1, r2) = (sim::GRAVITY, 1.0, 0.5, 0.4);
        // m2: M = [[(l1 + r2)², r2² + l1 r2], [·, r2²]], K = g [[l1 + r2, r2], [r2, r2]].
        let (m, k) = &lin[1];
        let expect_m = [
            [(l1 + r2) * (l1 + r2), r2 * r2 + l1 * r2],
            [r2 * r2 + l1 * r2, r2 * r2],
        ];
        let expect_k = [[g * (l1 + r2), g * r2], [g * r2, g * r2]];
        for i in 0..2 {
            for j in 0..2 {
                assert!((m[(i, j)] - expect_m[i][j]).abs() < 1e-12);
                assert!(
                    (k[(i, j)] - expect_k[i][j]).abs() < 1e-6,
                    "{} vs {}",
                    k[(i, j)],
                    expect_k[i][j]
                );
            }
        }
        // m1: only (1,1): r1² and g r1.
        assert!(
            (lin[0].0[(0, 0)] - r1 * r1).abs() < 1e-12 && (lin[0].1[(0, 0)] - g * r1).abs() < 1e-6
        );
        // J2 adds 1 to every entry of M, nothing to K.
        assert!(lin[3].0.iter().all(|v| (v - 1.0).abs() < 1e-12) && lin[3].1.norm() < 1e-6);
    }
}
