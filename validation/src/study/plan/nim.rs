//! Computing the NIM study files: the population study (`kind = "nim_population"`: the paper's
//! protocol, then networks trained on many arms and scored on held-out and denser ones) and
//! the motion study (`kind = "nim_motion"`: ensembles trained on every motion family but one).
//! Populations are generated (or resumed) into `out/populations` under a hash of what made them
//! ([`crate::study::cache`]), the models written to `out/models` (trained again each run: the
//! studies score the networks they train); [`crate::kind`] renders the reports.

use std::path::{Path, PathBuf};

use sim::population::motion::FamilyId;
use sim::scenario::Scenario;

use super::populations::{denser, with_ft_sensors};
use super::run::{simulate_into, stem};
use crate::estimate::nim::{Inputs, TrainConfig};
use crate::study::cache;
use crate::study::nim::{NimStudy, PopulationRuns, population_study};
use crate::study::nim_motion::{Category, MotionArms, MotionStudy, Sensing, Settings};
use sim::reading::{Run, read_run};

/// The NIM population study of a `kind = "nim_population"` file.
#[derive(Clone, Debug)]
pub struct NimPopulationPlan {
    /// Its name.
    pub name: String,
    /// The paper's run (its protocol, and the arm every network is also scored on).
    pub paper: PathBuf,
    /// The population scenario.
    pub population: PathBuf,
    /// Training arms.
    pub train: usize,
    /// Held-out arms (same distributions).
    pub test: usize,
    /// Out-of-distribution (denser) arms.
    pub ood: usize,
    /// The denser arms' density factor (every drawn density and its bounds).
    pub ood_density_scale: f64,
    /// Optimizer steps per body network.
    pub steps: usize,
    /// Training-set sizes of the learning curve (besides `train`).
    pub curve: Vec<usize>,
    /// Seed of the networks' initialization and batch order.
    pub seed: u64,
}

/// The NIM motion study of a `kind = "nim_motion"` file.
#[derive(Clone, Debug)]
pub struct NimMotionPlan {
    /// Its name.
    pub name: String,
    /// What the study is for, said first in its report.
    pub purpose: String,
    /// The population scenario (its arms draw a motion family each).
    pub population: PathBuf,
    /// The reference run of the noise-augmented recordings (`ft_noise`).
    pub reference: PathBuf,
    /// Named runs scored besides the arms.
    pub named: Vec<PathBuf>,
    /// Arms of the population (all families).
    pub arms: usize,
    /// Training-family arms used for calibration, and as many held out for scoring.
    pub calibration: usize,
    /// Held-out family arms scored.
    pub heldout_family: usize,
    /// Out-of-distribution (denser) arms.
    pub ood: usize,
    /// The denser arms' density factor.
    pub ood_density_scale: f64,
    /// The family held out of training.
    pub holdout: FamilyId,
    /// Adam steps per body network.
    pub steps: usize,
    /// Adam's initial learning rate.
    pub learning_rate: f64,
    /// Members per ensemble.
    pub members: usize,
    /// Seed sets.
    pub seed_sets: usize,
    /// The networks' inputs.
    pub inputs: Inputs,
    /// Noise-augmented training levels (0: exact); distinct, finite, ≥ 0.
    pub ft_noise: Vec<f64>,
}

/// What noise-augmentation levels must be.
pub const FT_NOISE_EXPECTED: &str = "distinct finite levels ≥ 0 (0: exact)";

/// Whether noise-augmentation levels are [`FT_NOISE_EXPECTED`].
pub fn ft_noise_valid(levels: &[f64]) -> bool {
    levels
        .iter()
        .enumerate()
        .all(|(i, l)| l.is_finite() && *l >= 0.0 && !levels[..i].contains(l))
}

/// A scenario's run under `out/runs/<stem>`, simulated if absent.
fn named_run(scenario: &Path, out: &Path) -> crate::Result<Run> {
    let dir = out.join("runs").join(stem(scenario));
    if !dir.join("manifest.json").exists() {
        let s = Scenario::from_path(scenario)?;
        simulate_into(&[s], std::slice::from_ref(&dir))?;
    }
    Ok(read_run(&dir)?)
}

/// The population file's stated seed (for reports).
fn seed_of(scenario: &Scenario) -> String {
    scenario
        .file
        .population
        .as_ref()
        .and_then(|p| p.seed)
        .map_or_else(|| "unstated".into(), |s| s.to_string())
}

impl NimPopulationPlan {
    /// Computes the study (populations into `out/populations`, the networks into
    /// `out/models/nim_population`).
    pub fn compute(&self, out: &Path) -> crate::Result<NimStudy> {
        let paper_run = named_run(&self.paper, out)?;
        let config = TrainConfig {
            seed: self.seed,
            ..crate::estimate::nim::population::recipe(self.steps)
        };
        let report = NimStudy::new(&paper_run, TrainConfig::default())?;
        let scenario = Scenario::from_path(&self.population)?;
        let pops = out.join("populations");
        let (arms, _) = cache::population(&pops, &scenario, self.train + self.test)?;
        let (heavy, heavy_seed) = denser(&scenario, self.ood_density_scale)?;
        let (ood, _) = cache::population(&pops, &heavy, self.ood)?;
        let runs = PopulationRuns {
            train: arms[..self.train].iter().collect(),
            heldout: arms[self.train..].iter().collect(),
            out_of_distribution: ood.iter().collect(),
            ood_description: format!(
                "{} arms of the same population with every drawn density × {} (its bounds too), seed {heavy_seed}",
                self.ood, self.ood_density_scale
            ),
        };
        let models = out.join("models").join("nim_population");
        let study = population_study(&runs, &paper_run, &config, &self.curve, Some(&models))?;
        Ok(report.with_population(study))
    }
}

impl NimMotionPlan {
    /// The training levels: exact only where none is given.
    fn levels(&self) -> Vec<f64> {
        if self.ft_noise.is_empty() {
            vec![0.0]
        } else {
            self.ft_noise.clone()
        }
    }

    /// The population's arms and its denser arms at one noise level (0: exact).
    fn recorded(&self, out: &Path, level: f64) -> crate::Result<(Vec<Run>, Vec<Run>)> {
        let mut scenario = Scenario::from_path(&self.population)?;
        if level > 0.0 {
            let reference = Scenario::from_path(&self.reference)?;
            scenario = with_ft_sensors(&reference, &scenario, level)?;
        }
        let pops = out.join("populations");
        let (arms, _) = cache::population(&pops, &scenario, self.arms)?;
        let (heavy, _) = denser(&scenario, self.ood_density_scale)?;
        let (denser, _) = cache::population(&pops, &heavy, self.ood * 2)?;
        Ok((arms, denser))
    }

    /// The population's runs by role: the training and calibration arms of every level
    /// together, the scored arms of each level apart.
    fn split<'a>(&self, recordings: &'a [(Vec<Run>, Vec<Run>)]) -> crate::Result<MotionArms<'a>> {
        let family = |r: &Run| r.manifest.motion_family;
        let reserved = 2 * self.calibration;
        let (mut train, mut calibration) = (Vec::new(), Vec::new());
        let mut scored: Vec<(Category, &Run)> = Vec::new();
        for (level, (arms, denser)) in self.levels().into_iter().zip(recordings) {
            if arms.iter().any(|r| family(r).is_none()) {
                return Err(crate::Error::invalid(
                    format!("population `{}`", self.population.display()),
                    "arms that draw a motion family (a `[population.motion]`)",
                ));
            }
            let (trained, held): (Vec<&Run>, Vec<&Run>) =
                arms.iter().partition(|r| family(r) != Some(self.holdout));
            if trained.len() <= reserved {
                return Err(crate::Error::invalid(
                    format!(
                        "{} arms, {} of them of the training families",
                        self.arms,
                        trained.len()
                    ),
                    format!("more than the {reserved} reserved for calibration and scoring"),
                ));
            }
            let n_train = trained.len() - reserved;
            train.extend(&trained[..n_train]);
            calibration.extend(&trained[n_train..n_train + self.calibration]);
            let sensing = Sensing::of_level(level);
            let rest = &trained[n_train + self.calibration..];
            scored.extend(rest.iter().map(|r| (Category::Heldout(sensing), *r)));
            scored.extend(
                held.iter()
                    .take(self.heldout_family)
                    .map(|r| (Category::HeldoutFamily(sensing), *r)),
            );
            scored.extend(
                denser
                    .iter()
                    .filter(|r| family(r) != Some(self.holdout))
                    .take(self.ood)
                    .map(|r| (Category::OutOfDistribution(sensing), r)),
            );
        }
        Ok(MotionArms {
            train,
            calibration,
            scored,
            train_families: FamilyId::ALL
                .into_iter()
                .filter(|f| *f != self.holdout)
                .collect(),
            heldout_family: self.holdout,
        })
    }

    /// What the report says the study was: its purpose, the population and its seeds, the
    /// named runs and the sensing.
    fn description(&self, levels: &[f64]) -> crate::Result<String> {
        let scenario = Scenario::from_path(&self.population)?;
        let (_, heavy_seed) = denser(&scenario, self.ood_density_scale)?;
        let quoted = |p: &PathBuf| format!("`{}`", stem(p));
        let sensing = if levels == [0.0] {
            String::new()
        } else {
            format!(
                " Noise-augmented training: every population arm is recorded at each level of {levels:?} (0: exact; a level L \
                 measures every body by force/torque sensors with noise of L × its signal RMS on {}, per channel); \
                 the same arms at every level train and calibrate, and each level is scored apart (`…@ft<level>`, MIM on the \
                 same noisy columns); the named runs are exact.",
                quoted(&self.reference)
            )
        };
        Ok(format!(
            "{} Population: {} arms of {} (seed {}) split by the family each drew; out of distribution: {} arms of the \
             training families with every drawn density × {} (seed {heavy_seed}); named runs {}.{sensing}",
            self.purpose,
            self.arms,
            quoted(&self.population),
            seed_of(&scenario),
            self.ood,
            self.ood_density_scale,
            self.named
                .iter()
                .map(quoted)
                .collect::<Vec<_>>()
                .join(" and "),
        ))
    }

    /// Computes the study (populations into `out/populations`; the first seed set's ensemble
    /// saved to `out/models/nim_motions/`) and what its report says it was.
    pub fn compute(&self, out: &Path) -> crate::Result<(MotionStudy, String)> {
        let levels = self.levels();
        let recordings = levels
            .iter()
            .map(|&l| self.recorded(out, l))
            .collect::<crate::Result<Vec<_>>>()?;
        let named: Vec<(String, Run)> = self
            .named
            .iter()
            .map(|p| Ok((stem(p), named_run(p, out)?)))
            .collect::<crate::Result<_>>()?;
        let mut arms = self.split(&recordings)?;
        for (name, run) in &named {
            arms.scored.push((Category::Named(name.clone()), run));
        }
        let settings = Settings {
            inputs: self.inputs,
            config: TrainConfig {
                learning_rate: self.learning_rate,
                ..crate::estimate::nim::population::recipe(self.steps)
            },
            members: self.members,
            seed_sets: (0..self.seed_sets as u64).map(|k| 100 * k).collect(),
        };
        let models = out.join("models").join("nim_motions");
        let result = crate::study::nim_motion::run(&arms, &settings, Some(&models))?;
        Ok((result, self.description(&levels)?))
    }
}
