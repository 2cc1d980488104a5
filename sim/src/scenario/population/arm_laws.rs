//! What a population draws per arm beyond its bodies and motions: its sensors' noise level
//! (`noise_scale`) and its joints' friction (`[population.friction]`). Each from a stream of its
//! own, so adding either leaves the arms' bodies and motions as they were.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Distribution, PopulationSection, arm_seed, random};
use crate::param::{ParamError, positive};

/// Mixed into the population seed for the noise levels' stream (ASCII "noise").
const NOISE_STREAM: u64 = 0x006E_6F69_7365;

/// Mixed into the population seed for the friction's stream (ASCII "frict").
const FRICTION_STREAM: u64 = 0x0066_7269_6374;

/// `[population.friction]`: each revolute joint of an arm gets `coulomb_viscous` friction
/// (`sim::friction::Friction::CoulombViscous`) with `F_c` from `coulomb` (N·m) and `F_v` from
/// `viscous` (N·m·s/rad), its own draws, from a stream of its own (the arms' bodies and motions
/// stay those of the file without it): the randomized friction of learned identifiers'
/// training sets (Elseiagy et al., SII 2026).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrictionLaws {
    /// The Coulomb level `F_c` (N·m).
    pub coulomb: Distribution,
    /// The viscous coefficient `F_v` (N·m·s/rad).
    pub viscous: Distribution,
    /// The smoothing velocity of the sign (rad/s), default 0.01.
    #[serde(default = "default_smoothing")]
    pub smoothing: f64,
}

fn default_smoothing() -> f64 {
    0.01
}

impl FrictionLaws {
    /// Checks the laws; `Err` names the field (relative to `friction`).
    pub fn validate(&self) -> Result<(), ParamError> {
        for (name, d) in [("coulomb", &self.coulomb), ("viscous", &self.viscous)] {
            d.validate().map_err(|(f, e)| (format!("{name}.{f}"), e))?;
            random::at_least(name, d, 0.0)?;
        }
        positive("smoothing", self.smoothing, "speed in rad/s")
    }
}

impl PopulationSection {
    /// Arm `index`'s factor on its readings' white noise (`seed`: the population's), if the
    /// section draws one.
    pub(crate) fn noise_factor(&self, seed: u64, index: usize) -> Option<f64> {
        let law = self.noise_scale.as_ref()?;
        let mut rng = ChaCha8Rng::seed_from_u64(arm_seed(seed ^ NOISE_STREAM, index));
        Some(law.sample(&mut rng))
    }

    /// Arm `index`'s friction per joint of `kinds` (`seed`: the population's), if the section
    /// draws it: `Some(friction)` for a revolute joint, `None` for another.
    pub(crate) fn joint_friction(
        &self,
        seed: u64,
        index: usize,
        kinds: &[crate::model::JointKind],
    ) -> Option<Vec<Option<crate::friction::Friction>>> {
        let laws = self.friction.as_ref()?;
        let mut rng = ChaCha8Rng::seed_from_u64(arm_seed(seed ^ FRICTION_STREAM, index));
        let drawn = kinds.iter().map(|kind| {
            (*kind == crate::model::JointKind::Revolute).then(|| {
                let coulomb = laws.coulomb.sample(&mut rng);
                crate::friction::Friction::CoulombViscous {
                    coulomb,
                    viscous: laws.viscous.sample(&mut rng),
                    smoothing: laws.smoothing,
                }
            })
        });
        Some(drawn.collect())
    }
}
