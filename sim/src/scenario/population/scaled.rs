//! Populations of any model (a URDF file): every link scaled in size and mass.
//!
//! ```toml
//! model = "../models/panda.urdf"
//! [population]
//! arms = 500
//! excitation = "scenario"                                # or "fourier"
//! length = { type = "uniform", low = 0.9, high = 1.1 }   # × every link's size
//! mass = { type = "uniform", low = 0.8, high = 1.2 }     # × every link's mass
//! [[population.body]]                                    # one link's own laws
//! id = 7
//! mass = { type = "uniform", low = 0.5, high = 2.0 }
//! ```
//!
//! Link `k` drawn with size factor `s` and mass factor `μ` ([`scale`]) is the same body made
//! `s` times larger and `μ` times heavier: the step from its joint to the next joint and its
//! centroid offset from its joint are multiplied by `s` (every link beyond moves with it), its
//! mass by `μ`, its central principal moments by `μ s²`; axes, body frames and joint kinds stay.
//! So every drawn link is a real body if the model's is (the triangle inequalities scale). The
//! draws per link are in a fixed order (size, then mass), from the arm's own stream
//! ([`super::arm_seed`]). With `excitation = "fourier"` each revolute joint follows a random
//! Fourier series about the centre of its range, within `fourier.max_angle` and 0.9 of its
//! half-range. Cylinder fields (`radius`, `density`) and arm6's rail experiment
//! (`excitation = "paper"`, `rail_acceleration`, `joint_acceleration`) do not apply and are
//! rejected with the field named.

use nalgebra::Vector3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Arm, Distribution, ExcitationKind, PopulationSection};
use crate::drive::Drive;
use crate::model::{Chain, JointKind};
use crate::param::ParamError;

/// `chain` with link `k` scaled by size `length[k]` and mass `mass[k]` (module docs).
pub fn scale(chain: &Chain, length: &[f64], mass: &[f64]) -> Chain {
    let mut out = chain.clone();
    // Where joint k's anchor moved to (the first joint's is the base's: it stays).
    let mut shift = Vector3::zeros();
    for k in 0..chain.len() {
        let (s, mu) = (length[k], mass[k]);
        let here = chain.links[k].joint.anchor();
        let next = chain.links.get(k + 1).map(|l| l.joint.anchor());
        let link = &mut out.links[k];
        link.joint.anchor = (here + shift).coords.into();
        let b = &mut link.body;
        let centroid = here + shift + s * (b.centroid() - here);
        b.centroid = centroid.coords.into();
        b.mass *= mu;
        b.inertia = b.inertia.map(|j| j * mu * s * s);
        b.shape = crate::model::Shape::Rod {
            length: s * b.shape.length(),
        };
        if let Some(next) = next {
            shift += (s - 1.0) * (next - here);
        }
    }
    out
}

impl PopulationSection {
    /// The checks of a population of a model other than arm6; `Err` names the field.
    pub(crate) fn validate_scaled(&self, bodies: usize) -> Result<(), ParamError> {
        self.validate(bodies)?;
        let cylinder = |name: &str| {
            (
                name.to_string(),
                format!(
                    "`{name}` applies to arm6's cylinder bodies; a URDF model is varied by `length` \
                     and `mass` factors"
                ),
            )
        };
        if self.radius.is_some() || self.body.iter().any(|b| b.radius.is_some()) {
            return Err(cylinder("radius"));
        }
        if self.density.is_some() || self.body.iter().any(|b| b.density.is_some()) {
            return Err(cylinder("density"));
        }
        if !self.motion.is_empty() {
            return Err((
                "motion".into(),
                "motion families are drawn for arm6's rail and six joints only; for a URDF model \
                 expected excitation = \"scenario\" or \"fourier\""
                    .into(),
            ));
        }
        for (name, set) in [
            ("rail_acceleration", self.rail_acceleration.is_some()),
            ("joint_acceleration", self.joint_acceleration.is_some()),
            ("excitation", self.excitation() == ExcitationKind::Paper),
        ] {
            if set {
                return Err((
                    name.into(),
                    "the paper's rail experiment is arm6's; expected excitation = \"scenario\" \
                     (the scenario's drives) or \"fourier\""
                        .into(),
                ));
            }
        }
        Ok(())
    }

    /// Draws arm `index` of a population of `model` (any model but arm6; `seed`: the
    /// population's; `drives`: the scenario's, dataset order).
    pub(crate) fn scaled_arm(
        &self,
        model: &Chain,
        drives: &[Drive],
        seed: u64,
        index: usize,
    ) -> Arm {
        let mut rng = ChaCha8Rng::seed_from_u64(super::arm_seed(seed, index));
        let mut length = Vec::with_capacity(model.len());
        let mut mass = Vec::with_capacity(model.len());
        for k in 0..model.len() {
            let own = self.body.iter().find(|b| b.id as usize == k + 1);
            let pick = |own: Option<&Option<Distribution>>, all: &Option<Distribution>| {
                own.and_then(Option::as_ref).or(all.as_ref()).cloned()
            };
            let mut draw = |d: Option<Distribution>| d.map_or(1.0, |d| d.sample(&mut rng));
            length.push(draw(pick(own.map(|o| &o.length), &self.length)));
            mass.push(draw(pick(own.map(|o| &o.mass), &self.mass)));
        }
        let mut chain = scale(model, &length, &mass);
        chain.name = format!("{} population arm {index}", model.name);
        let drives = match (self.excitation(), &self.fourier) {
            (ExcitationKind::Fourier, Some(f)) => {
                let kinds = model.joint_kinds();
                let ranges: Vec<Option<crate::model::JointLimits>> = (model.rail_axis())
                    .map(|_| None)
                    .into_iter()
                    .chain(model.links.iter().map(|l| l.joint.limits))
                    .collect();
                let drawn = (0..drives.len()).map(|j| match kinds[j] {
                    JointKind::Revolute => {
                        let (centre, half) = ranges[j].map_or((0.0, f64::INFINITY), |l| {
                            (0.5 * (l.lower + l.upper), 0.5 * (l.upper - l.lower))
                        });
                        let bound = f.max_angle.min(super::random::RANGE_SHARE * half);
                        Drive::Motion(f.draw_within(centre, bound, &mut rng))
                    }
                    JointKind::Prismatic => drives[j].clone(),
                });
                Some(drawn.collect())
            }
            _ => None,
        };
        Arm {
            index,
            chain,
            drives,
            family: None,
            step: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reference;

    #[test]
    fn scaling_a_link_moves_what_is_beyond_it_and_scales_its_inertia() {
        let arm = reference::link2();
        let scaled = scale(&arm, &[1.5, 1.0], &[2.0, 1.0]);
        let (a, b) = (&arm.links, &scaled.links);
        // Link 1: 1.5 × larger, 2 × heavier; link 2 moved by 0.5 × link 1's step, otherwise the same.
        assert_eq!(b[0].joint.anchor, a[0].joint.anchor);
        let step = a[1].joint.anchor() - a[0].joint.anchor();
        assert!((b[1].joint.anchor() - (a[1].joint.anchor() + 0.5 * step)).norm() < 1e-15);
        let c0 = a[0].body.centroid() - a[0].joint.anchor();
        assert!((b[0].body.centroid() - (a[0].joint.anchor() + 1.5 * c0)).norm() < 1e-15);
        assert_eq!(b[0].body.mass, 2.0 * a[0].body.mass);
        assert_eq!(b[0].body.inertia, a[0].body.inertia.map(|j| j * 2.0 * 2.25));
        let c1 = a[1].body.centroid() - a[1].joint.anchor();
        assert!((b[1].body.centroid() - b[1].joint.anchor() - c1).norm() < 1e-15);
        assert_eq!(b[1].body.inertia, a[1].body.inertia);
        scaled.validate().unwrap();
    }
}
