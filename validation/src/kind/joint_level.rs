//! `kind = "joint_level"`: joint-level identification across a population of robots
//! ([`crate::study::joint_level`]): the IDIM family and the joint-level NIM on held-out arms of
//! one family, on a motion family none of the training arms had, on random serial arms (each
//! its own structure), and in a noise sweep on fixed runs; report `<name>.md`.
//!
//! ```toml
//! kind = "joint_level"
//! name = "joint_level"
//! population = "../scenarios/population_panda.toml"
//! arms = 1200                 # the population's arms …
//! training = 1000             # … the first of which train the NIM and the population mean
//! methods = ["idim_ols", "idim_wls", "idim_irls", "nim"]
//! noise_study = "nim_joint_noise.toml"   # a sweep run with the trained NIM
//!
//! [other_family]              # held-out motion family: Fourier motions of another period
//! base_frequency = 0.1        # Hz
//! harmonics = 8
//! arms = 100
//! end = 20.0                  # run length (s): IDIM keeps whole periods after the first
//!
//! [random]                    # random serial arms
//! population = "../scenarios/population_random.toml"
//! arms = 700
//! training = 500
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::scenario::Scenario;

use super::checks::MAX_ARMS;
use super::trained::{joint_nim, sweep_with_models};
use super::{Checks, Context, StudyKind};
use crate::estimate::nim::joint::Sensing;
use crate::estimate::{EstimatorId, Options};
use crate::study::cache;
use crate::study::file::{Study, StudyError};
use crate::study::joint_level::{self, JointLevelStudy, OtherArms};
use crate::study::level_summary::{LevelSummary, levels};
use sim::reading::Run;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    population: PathBuf,
    arms: usize,
    training: usize,
    methods: Vec<EstimatorId>,
    noise_study: PathBuf,
    other_family: FamilyFile,
    random: RandomFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyFile {
    base_frequency: f64,
    harmonics: usize,
    arms: usize,
    end: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomFile {
    population: PathBuf,
    arms: usize,
    training: usize,
}

/// Arms of a population and how many of them train.
#[derive(Clone, Debug)]
pub struct Split {
    /// The population scenario (resolved).
    pub population: PathBuf,
    /// Its arms.
    pub arms: usize,
    /// The first arms, which train.
    pub training: usize,
}

/// A joint-level study.
#[derive(Clone, Debug)]
pub struct JointLevelPlan {
    /// Its name.
    pub name: String,
    /// The family's population.
    pub family: Split,
    /// The estimators compared (`nim` reads the trained models).
    pub methods: Vec<EstimatorId>,
    /// The noise sweep run with the trained NIM.
    pub noise_study: Study,
    /// The held-out motion family: base frequency (Hz), harmonics, arms, run length (s).
    pub other_family: (f64, usize, usize, f64),
    /// The random serial arms.
    pub random: Split,
}

/// A population's arms split as the file says.
fn split(
    at: &Checks,
    field: &str,
    population: &Path,
    arms: usize,
    training: usize,
) -> Result<Split, StudyError> {
    let arms = at.count(&format!("{field}arms"), arms, MAX_ARMS)?;
    if training == 0 || training >= arms {
        return Err(at.invalid(
            &format!("{field}training"),
            format!("expected 1 to arms − 1 = {}, got {training}", arms - 1),
        ));
    }
    Ok(Split {
        population: at.scenario(&format!("{field}population"), population)?,
        arms,
        training,
    })
}

impl JointLevelPlan {
    /// The study's `methods` on the `held_out` arms of population `name`, the population mean
    /// and the NIM from `training` (joint-level sensing).
    fn evaluate(
        &self,
        name: &str,
        training: &[Run],
        held_out: &[Run],
        options: &Options,
    ) -> crate::Result<JointLevelStudy> {
        joint_level::evaluate(
            Sensing::JointLevel,
            name,
            training,
            held_out,
            &self.methods,
            options,
        )
    }

    /// The family's population, its arms split, the trained NIM's report and models.
    fn family(
        &self,
        ctx: &Context,
    ) -> crate::Result<(Scenario, Vec<Run>, joint_level::Training, PathBuf)> {
        let scenario = Scenario::from_path(&self.family.population)?;
        let (runs, _) = cache::population(&ctx.populations(), &scenario, self.family.arms)?;
        let key = cache::population_key(&scenario);
        let name = &scenario.file.name;
        let training = &runs[..self.family.training];
        let (trained, models) = joint_nim(
            ctx,
            "nim_joint_panda",
            Sensing::JointLevel,
            name,
            &key,
            training,
        )?;
        println!(
            "trained the joint-level NIM on {} arms, {} kept out ({} skipped): least squares {:.1} s, \
             {} steps chosen, training {:.1} s, saved {}",
            trained.arms,
            trained.calibration_arms,
            trained.skipped,
            trained.encode_seconds,
            trained.steps,
            trained.train_seconds,
            models.display()
        );
        Ok((scenario, runs, trained, models))
    }

    /// The held-out motion family's arms, scored with the family's training arms and models.
    fn other_family(
        &self,
        ctx: &Context,
        scenario: &Scenario,
        training: &[Run],
        options: &Options,
    ) -> crate::Result<OtherArms> {
        let (base, harmonics, arms, end) = self.other_family;
        let (family, seed) =
            crate::study::plan::populations::other_fourier_family(scenario, base, harmonics, end)?;
        let (family_arms, _) = cache::population(&ctx.populations(), &family, arms)?;
        let fourier = scenario
            .file
            .population
            .as_ref()
            .and_then(|p| p.fourier.as_ref());
        let description = format!(
            "{arms} arms of the same family (seed {seed}) on Fourier motions of base frequency {base} Hz with \
             {harmonics} harmonics over {end} s (the training arms': {} Hz, {}, {} s), the NIM and the \
             population mean those trained above",
            fourier.map_or(f64::NAN, |f| f.base_frequency),
            fourier.map_or(0, |f| f.harmonics),
            scenario.file.time.end,
        );
        let name = &scenario.file.name;
        let other = self.evaluate(name, training, &family_arms, options)?;
        Ok(OtherArms {
            title: "A motion family none of the training arms had".into(),
            description,
            ..other.into()
        })
    }

    /// The random serial arms: IDIM beside the population's answer for each arm's kinematics,
    /// and the joint-level NIM of many structures trained on their training arms.
    fn random_arms(&self, ctx: &Context) -> crate::Result<OtherArms> {
        let scenario = Scenario::from_path(&self.random.population)?;
        let (runs, _) = cache::population(&ctx.populations(), &scenario, self.random.arms)?;
        let key = cache::population_key(&scenario);
        let name = &scenario.file.name;
        let (training, held_out) = runs.split_at(self.random.training);
        let (trained, models) = joint_nim(
            ctx,
            "nim_joint_random",
            Sensing::JointLevel,
            name,
            &key,
            training,
        )?;
        println!(
            "trained the random arms' joint-level NIM on {} arms, {} kept out: {} steps, σ × {:.2}, saved {}",
            trained.arms,
            trained.calibration_arms,
            trained.steps,
            trained.sigma_scale,
            models.display()
        );
        let options = Options {
            nim_models: Some(models),
            ..Default::default()
        };
        let study = self.evaluate(name, training, held_out, &options)?;
        Ok(OtherArms {
            title: "Random serial arms".into(),
            description: format!(
                "{} held-out arms of `{name}` (2–7 revolute joints on random Denavit–Hartenberg steps, \
                 box links, drawn Coulomb–viscous friction, each at its own noise level): each arm \
                 its own base parameters. `{}` answers each arm with the mean of {} training arms' \
                 links put on the arm's own kinematics and mapped through its base map \
                 (`validation::estimate::nim::joint::LinkPopulation`); `{}` shrinks IDIM-OLS toward it \
                 by the links' spread on that arm; `nim` is the joint-level NIM of many structures \
                 (one parameter at a time, each arm's prior from the links), trained on {} of the \
                 training arms' least squares, {} kept out to choose its length ({} steps) and \
                 calibrate its σ (× {:.2}), saved in `{}`",
                held_out.len(),
                joint_level::POPULATION_MEAN,
                training.len(),
                joint_level::shrunk(Sensing::JointLevel),
                trained.arms,
                trained.calibration_arms,
                trained.steps,
                trained.sigma_scale,
                trained.saved,
            ),
            ..study.into()
        })
    }

    /// The noise sweep with the family's `models`, summarized against IDIM-OLS over the base
    /// parameters.
    fn noise_sweep(&self, ctx: &Context, models: &Path) -> crate::Result<LevelSummary> {
        let study = &self.noise_study;
        let result = sweep_with_models(ctx, study, models, None, &study.name)?;
        Ok(LevelSummary {
            study: study.name.clone(),
            seeds: study.seeds,
            report: ctx.shown(&ctx.part_dir(&study.name).join("sweep.md")),
            levels: levels(&result, EstimatorId::IdimOls, |p| p.starts_with("base.")),
        })
    }
}

impl StudyKind for JointLevelPlan {
    const NAME: &'static str = "joint_level";
    type Result = JointLevelStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        let o = &f.other_family;
        if !(o.base_frequency.is_finite()
            && o.base_frequency > 0.0
            && o.end.is_finite()
            && o.end > 0.0)
        {
            return Err(at.invalid(
                "other_family",
                format!(
                    "expected a positive base_frequency and end, got {} Hz, {} s",
                    o.base_frequency, o.end
                ),
            ));
        }
        let noise = at.existing("noise_study", &f.noise_study, "study file")?;
        Ok(JointLevelPlan {
            name: f.name,
            family: split(at, "", &f.population, f.arms, f.training)?,
            methods: f.methods,
            noise_study: Study::from_path(&noise, at.known)?,
            other_family: (
                o.base_frequency,
                at.count("other_family.harmonics", o.harmonics, 1000)?,
                at.count("other_family.arms", o.arms, MAX_ARMS)?,
                o.end,
            ),
            random: split(
                at,
                "random.",
                &f.random.population,
                f.random.arms,
                f.random.training,
            )?,
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<JointLevelStudy> {
        let (scenario, runs, trained, models) = self.family(ctx)?;
        let (training, held_out) = runs.split_at(self.family.training);
        let options = Options {
            nim_models: Some(models.clone()),
            ..Default::default()
        };
        let name = &scenario.file.name;
        let mut result = self.evaluate(name, training, held_out, &options)?;
        result
            .others
            .push(self.other_family(ctx, &scenario, training, &options)?);
        result.others.push(self.random_arms(ctx)?);
        result.sweep = Some(self.noise_sweep(ctx, &models)?);
        result.training = Some(trained);
        Ok(result)
    }

    fn markdown(result: &JointLevelStudy) -> String {
        crate::report::joint_level::markdown(result)
    }

    fn summary(result: &JointLevelStudy) -> String {
        format!(
            "{} held-out arms of {}",
            result.held_out_arms, result.population
        )
    }
}
