//! Populations of arms: a scenario's `[population]` section draws `arms` variants of its model
//! and a randomized excitation for each, from one seed. For `arm6`, the bodies are cylinders
//! drawn by geometry and density (or mass) as below; any other model (a URDF file) is varied by
//! per-link scale laws ([`scaled`]).
//!
//! ```toml
//! [population]
//! arms = 1000
//! seed = 7                      # default: the scenario's seed
//! excitation = "paper"          # or "fourier" (see PopulationSection), or instead
//!                               # [[population.motion]] families ([`motion`])
//! # Every body (a [[population.body]] with `id` overrides any of these for one body):
//! length = { type = "uniform", low = 0.8, high = 1.2 }      # × the reference length
//! radius = { type = "uniform", low = 0.8, high = 1.2 }      # × the reference radius
//! density = { type = "normal", mean = 1741.8, std = 150.0, low = 1200.0, high = 2400.0 }
//! ```
//!
//! Arm `k` is drawn from its own ChaCha8 stream (seed mixed with `k`), so an arm does not
//! depend on how many arms are drawn, in which order, or on which shard: the shards of a
//! population together are the unsharded population, file for file. Each arm's exact truth is
//! its chain (the manifest's model and `truth.parquet`). Bodies stay homogeneous cylinders:
//! masses and moments follow from length, radius and density, unless `mass` (× the reference
//! mass) is given instead of `density`, in which case the moments follow from the cylinder
//! formulas with that mass.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

pub mod arm_laws;
mod distribution;
mod fourier;
pub mod motion;
pub mod random;
mod random_arms;
pub mod scaled;

pub use crate::dataset::population::{DEFAULT_ARMS_PER_SHARD, Layout};
pub use arm_laws::FrictionLaws;
pub use distribution::Distribution;
pub use fourier::FourierExcitation;

use crate::drive::Drive;
use crate::model::Chain;
use crate::model::reference::{self, Cylinder};
use crate::param::{ParamError, positive};
use crate::profile::Profile;

/// How each arm of a population is excited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExcitationKind {
    /// The paper's run: the rail and O1, O2 at constant accelerations drawn from
    /// `rail_acceleration` and `joint_acceleration` (each joint its own draw), O3..O6 held.
    #[default]
    Paper,
    /// Every revolute joint follows a Fourier series (`fourier` section) with random
    /// coefficients; the rail at a constant acceleration drawn from `rail_acceleration`. For a
    /// model other than arm6 the series is about the centre of the joint's range where the model
    /// states one, and prismatic joints keep the scenario's drive.
    Fourier,
    /// The scenario's own `[[joint]]` drives, the same for every arm.
    Scenario,
}

/// Overrides of the body distributions for one body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyOverride {
    /// Body number (1-based).
    pub id: u8,
    /// Factor on the reference length.
    pub length: Option<Distribution>,
    /// Factor on the reference radius.
    pub radius: Option<Distribution>,
    /// Density (kg/m³).
    pub density: Option<Distribution>,
    /// Factor on the reference mass (instead of `density`).
    pub mass: Option<Distribution>,
}

/// `[population]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PopulationSection {
    /// Number of arms.
    pub arms: usize,
    /// Seed of the population (default: the scenario's).
    pub seed: Option<u64>,
    /// Arms per shard, the unit of the population's files, of resuming and of `--shard K/N`
    /// (default [`DEFAULT_ARMS_PER_SHARD`]).
    pub arms_per_shard: Option<usize>,
    /// Factor on every body's reference length (default: 1).
    pub length: Option<Distribution>,
    /// Factor on every body's reference radius (default: 1).
    pub radius: Option<Distribution>,
    /// Every body's density (kg/m³) (default: the reference body's own).
    pub density: Option<Distribution>,
    /// Factor on every body's reference mass, instead of `density`.
    pub mass: Option<Distribution>,
    /// Per-body overrides.
    #[serde(default)]
    pub body: Vec<BodyOverride>,
    /// The excitation of each arm (default `paper`; not with `motion`).
    #[serde(default)]
    pub excitation: Option<ExcitationKind>,
    /// Rail acceleration (m/s²) (default: the paper's 2).
    pub rail_acceleration: Option<Distribution>,
    /// O1, O2 acceleration for `excitation = "paper"` (rad/s²) (default: the paper's 30°/s²).
    pub joint_acceleration: Option<Distribution>,
    /// Settings for `excitation = "fourier"`.
    pub fourier: Option<FourierExcitation>,
    /// Motion families (`[[population.motion]]`): each arm draws one by weight, then its
    /// parameters ([`motion`]); instead of `excitation` and its settings. arm6 only.
    #[serde(default)]
    pub motion: Vec<motion::Motion>,
    /// Random serial arms (`[population.random]`, [`random`]): every arm its own robot, the
    /// model its drive template.
    pub random: Option<random::RandomArms>,
    /// A factor on every white noise of an arm's readings, drawn per arm
    /// ([`crate::measurement::scale_white_noise`]; default none: the file's levels), so a
    /// population spans noise levels. Drawn from a stream of its own, so adding it leaves the
    /// arms and their motions as they were; written in each arm's manifest (`noise_scale`).
    pub noise_scale: Option<Distribution>,
    /// Coulomb–viscous friction drawn per arm and joint (`[population.friction]`,
    /// [`FrictionLaws`]; default none: the file's friction), in place of the file's on every
    /// revolute joint; part of the arm's truth.
    pub friction: Option<FrictionLaws>,
}

/// Whether a population of `model` draws arm6's cylinders (the reference arm, built in or read
/// from its URDF file) rather than scaling the model's links ([`scaled`]).
pub(crate) fn is_arm6(model: &Chain) -> bool {
    model.name == "arm6" && model.len() == 6 && model.rail_axis().is_some()
}

/// FNV-1a mix of a population seed and an arm index: the seed of that arm's stream.
pub fn arm_seed(seed: u64, arm: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed
        .to_le_bytes()
        .iter()
        .chain(b"arm")
        .chain(&(arm as u64).to_le_bytes())
    {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One drawn arm: its chain (the truth) and the drives of its joints, dataset order.
#[derive(Clone, Debug)]
pub struct Arm {
    /// Index in the population.
    pub index: usize,
    /// The arm.
    pub chain: Chain,
    /// Its drives (`None`: the scenario's own).
    pub drives: Option<Vec<Drive>>,
    /// The motion family it drew (populations with `[[population.motion]]`).
    pub family: Option<motion::FamilyId>,
    /// Its integrator step (s), where its motion family sets one.
    pub step: Option<f64>,
}

impl PopulationSection {
    /// The excitation of each arm (`paper` unless the file says otherwise).
    pub fn excitation(&self) -> ExcitationKind {
        self.excitation.unwrap_or_default()
    }

    /// Checks the motion families against the file's `time` section; `Err` names the field
    /// (relative to `population`).
    pub(crate) fn validate_motion(
        &self,
        time: &crate::scenario::time::TimeSection,
    ) -> Result<(), ParamError> {
        if self.motion.is_empty() {
            return Ok(());
        }
        for (name, set) in [
            ("excitation", self.excitation.is_some()),
            ("rail_acceleration", self.rail_acceleration.is_some()),
            ("joint_acceleration", self.joint_acceleration.is_some()),
            ("fourier", self.fourier.is_some()),
        ] {
            if set {
                return Err((
                    name.into(),
                    "expected either [[population.motion]] families or `excitation` and its \
                     settings, not both"
                        .into(),
                ));
            }
        }
        for (k, m) in self.motion.iter().enumerate() {
            m.validate(time)
                .map_err(|(f, e)| (format!("motion[{k}].{f}"), e))?;
        }
        Ok(())
    }

    /// Checks every distribution and setting; `Err` names the field (relative to
    /// `population`).
    pub fn validate(&self, bodies: usize) -> Result<(), ParamError> {
        if self.arms == 0 {
            return Err(("arms".into(), "expected at least 1".into()));
        }
        let check = |name: &str, d: &Option<Distribution>| -> Result<(), ParamError> {
            d.as_ref().map_or(Ok(()), |d| {
                d.validate().map_err(|(f, e)| (format!("{name}.{f}"), e))
            })
        };
        for (name, d) in [
            ("length", &self.length),
            ("radius", &self.radius),
            ("density", &self.density),
            ("mass", &self.mass),
            ("rail_acceleration", &self.rail_acceleration),
            ("joint_acceleration", &self.joint_acceleration),
        ] {
            check(name, d)?;
        }
        if let Some(f) = &self.friction {
            f.validate()
                .map_err(|(n, e)| (format!("friction.{n}"), e))?;
        }
        if let Some(d) = &self.noise_scale {
            check("noise_scale", &self.noise_scale)?;
            random::at_least("noise_scale", d, 0.0)?;
        }
        if self.density.is_some() && self.mass.is_some() {
            return Err((
                "mass".into(),
                "expected either density or mass, not both".into(),
            ));
        }
        for (k, b) in self.body.iter().enumerate() {
            if b.id == 0 || b.id as usize > bodies {
                return Err((
                    format!("body[{k}].id"),
                    format!("expected a body number 1..={bodies}, got {}", b.id),
                ));
            }
            for (name, d) in [
                ("length", &b.length),
                ("radius", &b.radius),
                ("density", &b.density),
                ("mass", &b.mass),
            ] {
                check(&format!("body[{k}].{name}"), d)?;
            }
        }
        match (self.excitation(), &self.fourier) {
            (ExcitationKind::Fourier, None) => Err((
                "fourier".into(),
                "expected a [population.fourier] section for excitation = \"fourier\"".into(),
            )),
            (ExcitationKind::Fourier, Some(f)) => {
                positive(
                    "fourier.base_frequency",
                    f.base_frequency,
                    "frequency in Hz",
                )?;
                if f.harmonics == 0 {
                    return Err(("fourier.harmonics".into(), "expected at least 1".into()));
                }
                f.coefficient
                    .validate()
                    .map_err(|(n, e)| (format!("fourier.coefficient.{n}"), e))?;
                if !(f.max_angle > 0.0 && f.max_angle.is_finite()) {
                    return Err((
                        "fourier.max_angle".into(),
                        format!("expected a positive angle in rad, got {}", f.max_angle),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Draws arm `index` of the population (`seed`: the population's; `end`: the record's
    /// length, s, which point-to-point moves span).
    pub fn arm(&self, seed: u64, index: usize, end: f64) -> Arm {
        let mut rng = ChaCha8Rng::seed_from_u64(arm_seed(seed, index));
        let reference = reference::ARM6_CYLINDERS;
        let cylinders: [Cylinder; 6] = std::array::from_fn(|k| {
            let r = &reference[k];
            let o = self.body.iter().find(|b| b.id as usize == k + 1);
            let pick = |own: Option<&Option<Distribution>>, all: &Option<Distribution>| {
                own.and_then(Option::as_ref).or(all.as_ref()).cloned()
            };
            let draw = |d: Option<Distribution>, rng: &mut ChaCha8Rng| d.map(|d| d.sample(rng));
            // Fixed order of draws: length, radius, density or mass.
            let length =
                r.length * draw(pick(o.map(|o| &o.length), &self.length), &mut rng).unwrap_or(1.0);
            let radius =
                r.radius * draw(pick(o.map(|o| &o.radius), &self.radius), &mut rng).unwrap_or(1.0);
            let volume = std::f64::consts::PI * radius * radius * length;
            let mass = match (
                pick(o.map(|o| &o.density), &self.density),
                pick(o.map(|o| &o.mass), &self.mass),
            ) {
                (Some(d), _) => d.sample(&mut rng) * volume,
                (None, Some(m)) => r.mass * m.sample(&mut rng),
                // The reference body's own density.
                (None, None) => {
                    r.mass / (std::f64::consts::PI * r.radius * r.radius * r.length) * volume
                }
            };
            Cylinder::homogeneous(length, radius, mass)
        });
        let chain = reference::arm6_from(&format!("arm6 population arm {index}"), &cylinders);
        if !self.motion.is_empty() {
            let family = motion::choose(&self.motion, &mut rng);
            let drawn = family.draw(chain.len(), end, &mut rng);
            return Arm {
                index,
                chain,
                drives: Some(drawn.drives),
                family: Some(drawn.family),
                step: drawn.step,
            };
        }
        if self.excitation() == ExcitationKind::Scenario {
            return Arm {
                index,
                chain,
                drives: None,
                family: None,
                step: None,
            };
        }
        let rail = self
            .rail_acceleration
            .as_ref()
            .map_or(2.0, |d| d.sample(&mut rng));
        let mut drives = vec![Drive::Motion(Profile::ConstantAcceleration {
            acceleration: rail,
            velocity: 0.0,
            position: 0.0,
        })];
        match (self.excitation(), &self.fourier) {
            (ExcitationKind::Fourier, Some(f)) => {
                for _ in 0..chain.len() {
                    drives.push(Drive::Motion(f.draw(0.0, &mut rng)));
                }
            }
            _ => {
                for k in 0..chain.len() {
                    drives.push(Drive::Motion(if k < 2 {
                        Profile::ConstantAcceleration {
                            acceleration: self
                                .joint_acceleration
                                .as_ref()
                                .map_or(30f64.to_radians(), |d| d.sample(&mut rng)),
                            velocity: 0.0,
                            position: 0.0,
                        }
                    } else {
                        Profile::Hold { position: 0.0 }
                    }));
                }
            }
        }
        Arm {
            index,
            chain,
            drives: Some(drives),
            family: None,
            step: None,
        }
    }
}

/// A share `K/N` of a population's shards: shards `s` with `s mod N = K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// The whole population.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether the population's shard `s` ([`Layout`]) is this
    /// process's to write.
    pub fn contains(&self, s: usize) -> bool {
        s % self.count == self.index
    }
}

impl PopulationSection {
    /// How the population's arms are cut into shards.
    pub fn layout(&self) -> Layout {
        Layout {
            arms: self.arms,
            arms_per_shard: self.arms_per_shard.unwrap_or(DEFAULT_ARMS_PER_SHARD),
        }
    }
}

impl std::str::FromStr for Shard {
    type Err = crate::param::Unparsed;

    /// Parses `K/N` with `0 ≤ K < N`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || crate::param::Unparsed::new("a shard K/N with 0 ≤ K < N", s);
        let (k, n) = s.split_once('/').ok_or_else(err)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| err())?,
            n.trim().parse().map_err(|_| err())?,
        );
        if count == 0 || index >= count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(d: &Distribution, n: usize) -> (f64, f64, f64, f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let v: Vec<f64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
        (mean, var.sqrt(), lo, hi)
    }

    #[test]
    fn distributions_honour_their_parameters_and_bounds() {
        let n = 40_000;
        let (m, s, lo, hi) = stats(
            &Distribution::Uniform {
                low: 2.0,
                high: 5.0,
            },
            n,
        );
        assert!((m - 3.5).abs() < 0.02 && (s - 3.0 / 12f64.sqrt()).abs() < 0.01);
        assert!(lo >= 2.0 && hi < 5.0);

        let normal = Distribution::Normal {
            mean: 10.0,
            std: 2.0,
            low: None,
            high: None,
        };
        let (m, s, _, _) = stats(&normal, n);
        assert!((m - 10.0).abs() < 0.04 && (s - 2.0).abs() < 0.03, "{m} {s}");

        // Truncated to ±1 std: inside the bounds, mean kept, std 0.538 of the parent's.
        let truncated = Distribution::Normal {
            mean: 10.0,
            std: 2.0,
            low: Some(8.0),
            high: Some(12.0),
        };
        let (m, s, lo, hi) = stats(&truncated, n);
        assert!(lo >= 8.0 && hi <= 12.0);
        assert!(
            (m - 10.0).abs() < 0.02 && (s - 2.0 * 0.5379).abs() < 0.02,
            "{m} {s}"
        );

        let log = Distribution::LogNormal {
            mu: 1.0,
            sigma: 0.3,
            low: None,
            high: Some(4.0),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut v: Vec<f64> = (0..n).map(|_| log.sample(&mut rng)).collect();
        v.sort_by(f64::total_cmp);
        assert!(v[n - 1] <= 4.0 && v[0] > 0.0);
        // Median of the parent is e^mu = 2.718; the upper cut at 4 (1.29 sigma) lowers it a little.
        assert!((v[n / 2] - 2.65).abs() < 0.05, "{}", v[n / 2]);

        // Bounds that exclude (nearly) everything are rejected when the file is read.
        let far = Distribution::Normal {
            mean: 0.0,
            std: 1.0,
            low: Some(5.0),
            high: None,
        };
        assert!(far.validate().is_err());
    }

    #[test]
    fn an_arm_does_not_depend_on_the_others() {
        let p = PopulationSection {
            arms: 10,
            seed: None,
            arms_per_shard: None,
            length: Some(Distribution::Uniform {
                low: 0.8,
                high: 1.2,
            }),
            radius: None,
            density: Some(Distribution::Normal {
                mean: 1741.8,
                std: 100.0,
                low: Some(1500.0),
                high: Some(2000.0),
            }),
            mass: None,
            body: Vec::new(),
            excitation: Some(ExcitationKind::Paper),
            rail_acceleration: None,
            joint_acceleration: Some(Distribution::Uniform {
                low: 0.3,
                high: 0.7,
            }),
            fourier: None,
            motion: Vec::new(),
            random: None,
            noise_scale: None,
            friction: None,
        };
        p.validate(6).unwrap();
        let a = p.arm(5, 7, 2.0);
        let b = p.arm(5, 7, 2.0);
        assert_eq!(a.chain, b.chain);
        assert_ne!(p.arm(5, 6, 2.0).chain, a.chain);
        for (link, r) in a.chain.links.iter().zip(reference::ARM6_CYLINDERS.iter()) {
            let l = link.body.shape.length();
            assert!(l >= 0.8 * r.length && l < 1.2 * r.length);
            let crate::model::Shape::Cylinder { radius, .. } = link.body.shape else {
                panic!("cylinders")
            };
            let density = link.body.mass / (std::f64::consts::PI * radius * radius * l);
            assert!((1500.0..=2000.0).contains(&density), "{density}");
            assert!(
                (link.body.inertia[0] - link.body.mass * radius * radius / 2.0).abs()
                    < 1e-9 * link.body.inertia[0]
            );
        }
        a.chain.validate().unwrap();
    }
}
