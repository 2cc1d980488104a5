//! A population of random arms ([`super::random`]) checked and drawn arm by arm.

use rand_chacha::ChaCha8Rng;

use super::random::RANGE_SHARE;
use crate::model::Chain;
use crate::param::ParamError;

impl super::PopulationSection {
    /// The checks of a population of random arms whose drive template is `model`; `Err` names
    /// the field (relative to `population`).
    pub(crate) fn validate_random(&self, model: &Chain) -> Result<(), ParamError> {
        let random = self.random.as_ref().expect("a random population");
        if model.rail_axis().is_some() {
            return Err((
                "random".into(),
                "expected a fixed-base model as the drive template (random arms have no rail)"
                    .into(),
            ));
        }
        for (name, set) in [
            ("length", self.length.is_some()),
            ("radius", self.radius.is_some()),
            ("density", self.density.is_some()),
            ("mass", self.mass.is_some()),
            ("body", !self.body.is_empty()),
            ("rail_acceleration", self.rail_acceleration.is_some()),
            ("joint_acceleration", self.joint_acceleration.is_some()),
            ("motion", !self.motion.is_empty()),
        ] {
            if set {
                return Err((
                    name.into(),
                    "random arms are drawn by [population.random]; expected no scale laws, \
                     rail experiment or motion families beside it"
                        .into(),
                ));
            }
        }
        if self.excitation() != super::ExcitationKind::Fourier {
            return Err((
                "excitation".into(),
                "expected excitation = \"fourier\" for random arms (each draws its own \
                 Fourier motion within its joints' ranges)"
                    .into(),
            ));
        }
        self.validate(model.len())?;
        random
            .validate(model.len())
            .map_err(|(f, e)| (format!("random.{f}"), e))
    }

    /// Draws arm `index` of a population of random arms (`seed`: the population's): its chain
    /// and, per joint, a Fourier motion about 0 within 0.9 of its range (and within
    /// `fourier.max_angle`).
    pub(crate) fn random_arm(&self, seed: u64, index: usize) -> super::Arm {
        use rand::SeedableRng;
        let random = self.random.as_ref().expect("a random population");
        let fourier = self.fourier.as_ref().expect("validated: fourier");
        let mut rng = ChaCha8Rng::seed_from_u64(super::arm_seed(seed, index));
        let chain = random.draw(&format!("random arm {index}"), &mut rng);
        let drives = (chain.links.iter())
            .map(|l| {
                let half = l.joint.limits.map_or(fourier.max_angle, |r| r.upper);
                let bound = fourier.max_angle.min(RANGE_SHARE * half);
                crate::drive::Drive::Motion(fourier.draw_within(0.0, bound, &mut rng))
            })
            .collect();
        super::Arm {
            index,
            chain,
            drives: Some(drives),
            family: None,
            step: None,
        }
    }
}
