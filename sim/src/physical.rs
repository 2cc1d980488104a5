//! Physical consistency of a body's inertial parameters, and bodies rebuilt from standard
//! parameters.
//!
//! Ten numbers `π = [m, m·c, I_O]` ([`StandardParameters`], link frame: body axes, origin at the
//! joint point `O_i`) describe a real rigid body only if some non-negative mass density produces
//! them. That holds exactly when the **pseudo-inertia matrix**
//!
//! ```text
//! J = [ Σ    m·c ]      Σ = ½ tr(I_O) 𝟙 − I_O = ∫ r rᵀ dm   (the second moment of the mass)
//!     [ m·cᵀ  m  ]
//! ```
//!
//! is positive semidefinite (Wensing, Kim & Slotine 2017, "Linear matrix inequalities for
//! physically consistent inertial parameter identification"). By the Schur complement this is
//! `m > 0` and `Σ_C = Σ − m c cᵀ ⪰ 0`, and `Σ_C ⪰ 0` is the triangle inequalities of the central
//! principal moments (`J₁ ≤ J₂ + J₃` and permutations, which imply `Jₖ ≥ 0`). [`check`] tests it
//! and says which condition fails; [`Chain::with_standard_parameters`] turns consistent
//! parameters back into a model (centroid, principal moments and axes), e.g. to write an
//! identified model as URDF.

use nalgebra::{Matrix3, Matrix4, Vector3};

use crate::dynamics::StandardParameters;
use crate::model::{Body, Chain, ModelError, Shape};

/// Relative tolerance of the consistency tests: an eigenvalue of `Σ_C` counts as negative below
/// `−TOLERANCE · max(tr Σ_C, tr Σ_O)` (rounding of a consistent body stays far inside it; `Σ_C`
/// is computed from `Σ_O`, so a point mass, whose `Σ_C` vanishes, is judged at `Σ_O`'s scale).
pub const TOLERANCE: f64 = 1e-12;

/// Why ten numbers are not the inertial parameters of a real body.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Inconsistency {
    /// A parameter is NaN or infinite.
    #[error("a non-finite parameter: {0:?}")]
    NonFinite([f64; 10]),
    /// The mass is not positive.
    #[error("mass {0} kg is not positive")]
    Mass(f64),
    /// The central second moment `Σ_C` has a negative eigenvalue: the central principal moments
    /// violate a triangle inequality (`J₁ ≤ J₂ + J₃` and permutations).
    #[error(
        "the central principal moments {moments:?} kg·m² violate the triangle inequality \
         (the pseudo-inertia matrix has the negative eigenvalue {eigenvalue:e} kg·m²)"
    )]
    Triangle {
        /// Central principal moments (ascending), kg·m².
        moments: [f64; 3],
        /// The most negative eigenvalue of `Σ_C` (kg·m²).
        eigenvalue: f64,
    },
}

impl StandardParameters {
    /// Mass (kg).
    pub fn mass(&self) -> f64 {
        self.0[0]
    }

    /// First moment `m·c` (kg·m), link frame.
    pub fn first_moment(&self) -> Vector3<f64> {
        Vector3::new(self.0[1], self.0[2], self.0[3])
    }

    /// Inertia tensor about the joint point `O_i` (kg·m²), link frame.
    pub fn inertia(&self) -> Matrix3<f64> {
        let p = &self.0;
        Matrix3::new(p[4], p[5], p[6], p[5], p[7], p[8], p[6], p[8], p[9])
    }

    /// The parameters of mass `m`, centroid `c` (link frame, m) and central inertia `i_c`
    /// (link frame, kg·m²).
    pub fn from_central(m: f64, c: &Vector3<f64>, i_c: &Matrix3<f64>) -> Self {
        let i_o = i_c + m * (Matrix3::identity() * c.norm_squared() - c * c.transpose());
        let h = m * c;
        StandardParameters([
            m,
            h.x,
            h.y,
            h.z,
            i_o[(0, 0)],
            i_o[(0, 1)],
            i_o[(0, 2)],
            i_o[(1, 1)],
            i_o[(1, 2)],
            i_o[(2, 2)],
        ])
    }

    /// The pseudo-inertia matrix `J` (module docs), link frame.
    pub fn pseudo_inertia(&self) -> Matrix4<f64> {
        let i = self.inertia();
        let sigma = Matrix3::identity() * (0.5 * i.trace()) - i;
        let h = self.first_moment();
        let mut j = Matrix4::zeros();
        j.fixed_view_mut::<3, 3>(0, 0).copy_from(&sigma);
        j.fixed_view_mut::<3, 1>(0, 3).copy_from(&h);
        j.fixed_view_mut::<1, 3>(3, 0).copy_from(&h.transpose());
        j[(3, 3)] = self.mass();
        j
    }

    /// The parameters of a pseudo-inertia matrix (the inverse of [`Self::pseudo_inertia`]; the
    /// map is linear, so it also maps derivatives).
    pub fn from_pseudo_inertia(j: &Matrix4<f64>) -> Self {
        let sigma = j.fixed_view::<3, 3>(0, 0).into_owned();
        let i = Matrix3::identity() * sigma.trace() - sigma;
        StandardParameters([
            j[(3, 3)],
            j[(0, 3)],
            j[(1, 3)],
            j[(2, 3)],
            i[(0, 0)],
            i[(0, 1)],
            i[(0, 2)],
            i[(1, 1)],
            i[(1, 2)],
            i[(2, 2)],
        ])
    }

    /// Centroid seen from `O_i` (m, link frame) and central inertia (kg·m², link frame); the mass
    /// must be nonzero.
    pub fn central(&self) -> (Vector3<f64>, Matrix3<f64>) {
        let m = self.mass();
        let c = self.first_moment() / m;
        let i_c = self.inertia() - m * (Matrix3::identity() * c.norm_squared() - c * c.transpose());
        (c, i_c)
    }
}

/// Whether the parameters are those of a real body (module docs), and if not, why.
pub fn check(p: &StandardParameters) -> Result<(), Inconsistency> {
    if p.0.iter().any(|v| !v.is_finite()) {
        return Err(Inconsistency::NonFinite(p.0));
    }
    if p.mass() <= 0.0 {
        return Err(Inconsistency::Mass(p.mass()));
    }
    let (_, i_c) = p.central();
    let sigma_c = Matrix3::identity() * (0.5 * i_c.trace()) - i_c;
    let eigenvalue = sigma_c.symmetric_eigenvalues().min();
    // Σ_C is computed from I_O by the parallel-axis theorem: its rounding is relative to Σ_O's
    // size, which for a point mass off the joint point is all there is (Σ_C = 0).
    let scale = (sigma_c.trace().abs()).max(0.5 * p.inertia().trace().abs());
    if eigenvalue < -TOLERANCE * scale {
        return Err(Inconsistency::Triangle {
            moments: principal(&i_c).0,
            eigenvalue,
        });
    }
    Ok(())
}

/// Principal moments (ascending) and axes (a right-handed triad, as the rows of [`Body::frame`])
/// of a symmetric inertia tensor.
pub fn principal(inertia: &Matrix3<f64>) -> ([f64; 3], [[f64; 3]; 3]) {
    let eigen = inertia.symmetric_eigen();
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
    let axis = |k: usize| -> Vector3<f64> { eigen.eigenvectors.column(order[k]).into_owned() };
    let (e1, e2) = (axis(0), axis(1));
    let e3 = e1.cross(&e2);
    (
        order.map(|k| eigen.eigenvalues[k]),
        [e1.into(), e2.into(), e3.into()],
    )
}

impl Chain {
    /// This chain's kinematics with the bodies given by standard parameters (one per link, in
    /// each link's frame as [`StandardParameters::of_link`] defines it): centroids, principal
    /// moments and principal axes recomputed; joints, damping and friction kept. Fails with the
    /// link named if a body is not physically consistent ([`check`]).
    pub fn with_standard_parameters(
        &self,
        parameters: &[StandardParameters],
    ) -> Result<Chain, ModelError> {
        if parameters.len() != self.len() {
            return Err(ModelError {
                model: self.name.clone(),
                field: "links".into(),
                problem: format!(
                    "{} standard parameter sets for {} links",
                    parameters.len(),
                    self.len()
                ),
            });
        }
        let mut chain = self.clone();
        for (k, (link, p)) in chain.links.iter_mut().zip(parameters).enumerate() {
            check(p).map_err(|e| ModelError {
                model: self.name.clone(),
                field: format!("links[{k}].body ({})", link.name),
                problem: e.to_string(),
            })?;
            let r = link.body.rotation();
            let (c, i_c) = p.central();
            let (moments, axes) = principal(&i_c);
            let world_axis = |a: [f64; 3]| -> [f64; 3] { (r * Vector3::from(a)).into() };
            link.body = Body {
                mass: p.mass(),
                // A body on the consistent set's boundary (the optimum of a constrained
                // identification: its mass on a line or in a plane) has a zero moment, which the
                // eigen-decomposition returns as ±1e-19: [`check`] has accepted it, so the
                // rounding is not a negative moment.
                inertia: moments.map(|m| m.max(0.0)),
                centroid: (link.joint.anchor() + r * c).coords.into(),
                frame: axes.map(world_axis),
                shape: Shape::Rod {
                    length: link.body.shape.length(),
                },
            };
        }
        chain.validate()?;
        Ok(chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reference;

    #[test]
    fn the_reference_bodies_are_consistent_and_rebuild_to_the_same_dynamics() {
        for chain in [reference::arm6(), reference::link2(), reference::cyl2()] {
            let params: Vec<StandardParameters> = (0..chain.len())
                .map(|k| StandardParameters::of_link(&chain, k))
                .collect();
            for p in &params {
                check(p).unwrap();
                let back = StandardParameters::from_pseudo_inertia(&p.pseudo_inertia());
                for (a, b) in back.0.iter().zip(p.0) {
                    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0));
                }
            }
            // Same mass, centroid and tensor in the world; the body frame is the new principal
            // frame, so compare where frames do not enter.
            let rebuilt = chain.with_standard_parameters(&params).unwrap();
            let world_tensor = |b: &Body| {
                let r = b.rotation();
                r * b.inertia_body() * r.inverse()
            };
            for (a, b) in rebuilt.links.iter().zip(&chain.links) {
                let (a, b) = (&a.body, &b.body);
                assert!((a.mass - b.mass).abs() <= 1e-12 * b.mass);
                assert!((a.centroid() - b.centroid()).norm() <= 1e-12);
                let scale = b.inertia.iter().fold(0.0f64, |s, j| s.max(*j));
                assert!((world_tensor(a) - world_tensor(b)).amax() <= 1e-12 * scale);
            }
        }
    }

    #[test]
    fn impossible_inertias_are_rejected_with_the_condition_named() {
        let c = Vector3::new(0.1, 0.0, 0.0);
        let real = Matrix3::from_diagonal(&Vector3::new(0.1, 0.2, 0.25));
        check(&StandardParameters::from_central(2.0, &c, &real)).unwrap();
        // 0.1 + 0.2 < 0.35: no mass density has these principal moments.
        let impossible = Matrix3::from_diagonal(&Vector3::new(0.1, 0.2, 0.35));
        let e = check(&StandardParameters::from_central(2.0, &c, &impossible)).unwrap_err();
        assert!(matches!(e, Inconsistency::Triangle { eigenvalue, .. } if eigenvalue < 0.0));
        assert!(e.to_string().contains("triangle inequality"), "{e}");
        let negative = Matrix3::from_diagonal(&Vector3::new(-0.01, 0.2, 0.2));
        assert!(matches!(
            check(&StandardParameters::from_central(2.0, &c, &negative)),
            Err(Inconsistency::Triangle { .. })
        ));
        let e = check(&StandardParameters::from_central(-1.0, &c, &real)).unwrap_err();
        assert_eq!(e, Inconsistency::Mass(-1.0));
        let mut nan = StandardParameters::from_central(2.0, &c, &real);
        nan.0[5] = f64::NAN;
        assert!(matches!(check(&nan), Err(Inconsistency::NonFinite(_))));
        // A chain refuses an impossible body and names the link.
        let arm = reference::link2();
        let mut params: Vec<StandardParameters> = (0..arm.len())
            .map(|k| StandardParameters::of_link(&arm, k))
            .collect();
        params[1] = StandardParameters::from_central(2.0, &c, &impossible);
        let e = arm
            .with_standard_parameters(&params)
            .unwrap_err()
            .to_string();
        assert!(e.contains("links[1]") && e.contains("triangle"), "{e}");
    }
}
