//! `kind = "paper_sensing"`: the run-level NIM under the MIM paper's sensing
//! ([`crate::study::paper_sensing`]): trained on a population's arms read by noisy
//! force/torque sensors (each arm at its own level), scored on held-out arms, on a motion family
//! it never saw and in a noise sweep on fixed runs, beside MIM and a learned set encoder;
//! report `<name>.md`.
//!
//! ```toml
//! kind = "paper_sensing"
//! name = "paper_sensing"
//! population = "../scenarios/population_motions.toml"
//! population_name = "population_motions_ft"     # the sensed population's name
//! reference = "../scenarios/arm6_fourier.toml"  # the F/T noise's signal RMS
//! ft_level = 5e-3                               # σ = ft_level × each body's RMS on it
//! noise_scale = { type = "log_normal", mu = 0.0, sigma = 1.2, low = 0.1, high = 10.0 }
//! arms = 6200
//! training = 6000
//! methods = ["mim_gls", "mim_stacked", "nim"]
//! set_encoder = { steps = 8000, check = 1000 }
//! held_out_family = "fourier"                   # paper | fourier | point_to_point
//! family_arms = 200
//! noise_study = "nim_paper_noise.toml"
//! exact = ["../scenarios/paper_rail.toml", "../scenarios/arm6_fourier.toml"]
//! exact_methods = ["mim_stacked", "nim"]
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::scenario::Scenario;
use sim::scenario::population::Distribution;
use sim::scenario::population::motion::FamilyId;

use super::checks::{MAX_ARMS, MAX_STEPS};
use super::trained::{joint_nim, sweep_with_models};
use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::estimate::nim::joint::Sensing;
use crate::estimate::{Estimator, Options};
use crate::study::cache;
use crate::study::file::{Study, StudyError};
use crate::study::joint_level::{self, OtherArms};
use crate::study::paper_sensing::{self, PaperSensingStudy};
use crate::study::sweep::SweepResult;
use sim::reading::Run;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    population: PathBuf,
    population_name: String,
    reference: PathBuf,
    ft_level: f64,
    noise_scale: Distribution,
    arms: usize,
    training: usize,
    methods: Vec<String>,
    set_encoder: SetEncoderFile,
    held_out_family: String,
    family_arms: usize,
    noise_study: PathBuf,
    exact: Vec<PathBuf>,
    exact_methods: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetEncoderFile {
    steps: usize,
    check: usize,
}

/// A paper-sensing study.
#[derive(Clone, Debug)]
pub struct PaperSensingPlan {
    /// Its name.
    pub name: String,
    /// The population scenario (resolved) and the sensed population's name.
    pub population: (PathBuf, String),
    /// The run whose signals set the force/torque noise (resolved).
    pub reference: PathBuf,
    /// The noise: σ = `ft_level` × each body's signal RMS on the reference.
    pub ft_level: f64,
    /// Each arm's factor on it.
    pub noise_scale: Distribution,
    /// The population's arms, and the first of them that train.
    pub arms: (usize, usize),
    /// The estimators compared on held-out arms (registry names), the set encoder beside.
    pub methods: Vec<String>,
    /// The set encoder's optimizer steps and how often its checkpoint is checked.
    pub set_encoder: (usize, usize),
    /// The motion family held out of a second training, and its arms scored.
    pub held_out_family: (FamilyId, usize),
    /// The noise sweep run with the trained NIM.
    pub noise_study: Study,
    /// Exact runs (resolved) and the estimators scored on them.
    pub exact: (Vec<PathBuf>, Vec<String>),
}

impl PaperSensingPlan {
    /// The population with a force/torque sensor on every body, each arm at its own level.
    fn scenario(&self) -> crate::Result<Scenario> {
        let motions = Scenario::from_path(&self.population.0)?;
        let reference = Scenario::from_path(&self.reference)?;
        let sensed =
            crate::study::plan::populations::with_ft_sensors(&reference, &motions, self.ft_level)?;
        Ok(sensed.edited(|f| {
            f.name.clone_from(&self.population.1);
            if let Some(p) = f.population.as_mut() {
                p.noise_scale = Some(self.noise_scale.clone());
            }
        })?)
    }

    /// The NIM trained again without the held-out family, scored beside MIM-GLS on that
    /// family's training arms; the scored arms and the models' directory.
    fn held_out_family(
        &self,
        ctx: &Context,
        name: &str,
        key: &str,
        training: &[Run],
    ) -> crate::Result<(OtherArms, PathBuf)> {
        let (held, count) = self.held_out_family;
        let (others, family): (Vec<Run>, Vec<Run>) =
            (training.iter().cloned()).partition(|r| r.manifest.motion_family != Some(held));
        let family = &family[..count.min(family.len())];
        let label = format!("nim_noise_without_{held}");
        let (trained, models) = joint_nim(ctx, &label, Sensing::Paper, name, key, &others)?;
        let options = Options {
            nim_models: Some(models.clone()),
            ..Default::default()
        };
        let study = joint_level::evaluate(
            Sensing::Paper,
            name,
            &others,
            family,
            &[EstimatorId::MimGls, EstimatorId::Nim],
            &options,
        )?;
        let other = OtherArms {
            title: "A motion family none of the training arms had".into(),
            description: format!(
                "{} arms of the `{held}` family (every joint on a Fourier series, as \
                 `arm6_fourier`), identified by MIM-GLS and by a NIM trained the same way on the {} \
                 training arms of the other two families only (`paper` rail runs and servo-tracked \
                 point-to-point moves; {} fit, {} kept out, {} steps, σ × {:.2}; saved in `{}`); \
                 `{}` is those arms' mean",
                family.len(),
                others.len(),
                trained.arms,
                trained.calibration_arms,
                trained.steps,
                trained.sigma_scale,
                trained.saved,
                joint_level::POPULATION_MEAN,
            ),
            ..study.into()
        };
        Ok((other, models))
    }

    /// The noise sweep with the study's `models`, and `nim` alone with the `without_family`
    /// models, its rows named `nim_without_<family>`.
    fn sweep(
        &self,
        ctx: &Context,
        models: &Path,
        without_family: &Path,
    ) -> crate::Result<SweepResult> {
        let study = &self.noise_study;
        let held = self.held_out_family.0;
        let label = format!("nim_without_{held}");
        let mut merged = sweep_with_models(ctx, study, models, None, &study.name)?;
        let part = sweep_with_models(
            ctx,
            study,
            without_family,
            Some(vec![EstimatorId::Nim]),
            &format!("{}_{label}", study.name),
        )?;
        merged.rows.extend(part.rows.into_iter().map(|mut r| {
            r.method.clone_from(&label);
            r
        }));
        merged.notes.push(format!(
            "`{label}`: the NIM trained without the `{held}` motion family (`{}`), on the same \
             measured copies.",
            ctx.shown(&ctx.models().join(format!("nim_noise_without_{held}")))
        ));
        Ok(merged)
    }

    /// The exact runs, each simulated into `runs/` and scored.
    fn exact(
        &self,
        ctx: &Context,
        options: &Options,
    ) -> crate::Result<Vec<paper_sensing::ExactRow>> {
        let methods: Vec<&str> = self.exact.1.iter().map(String::as_str).collect();
        let mut rows = Vec::new();
        for path in &self.exact.0 {
            let run = ctx.simulated(path)?;
            rows.extend(paper_sensing::exact(&run, &methods, options)?);
        }
        Ok(rows)
    }
}

impl StudyKind for PaperSensingPlan {
    const NAME: &'static str = "paper_sensing";
    type Result = PaperSensingStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        if !(f.ft_level.is_finite() && f.ft_level > 0.0) {
            return Err(at.invalid(
                "ft_level",
                format!("expected a positive level, got {}", f.ft_level),
            ));
        }
        let arms = at.count("arms", f.arms, MAX_ARMS)?;
        if f.training == 0 || f.training >= arms {
            return Err(at.invalid(
                "training",
                format!("expected 1 to arms − 1 = {}, got {}", arms - 1, f.training),
            ));
        }
        let held = (f.held_out_family.parse::<FamilyId>())
            .map_err(|e| at.invalid("held_out_family", e.to_string()))?;
        let exact = (f.exact.iter().enumerate())
            .map(|(k, p)| at.scenario(&format!("exact[{k}]"), p))
            .collect::<Result<_, _>>()?;
        let noise = at.existing("noise_study", &f.noise_study, "study file")?;
        Ok(PaperSensingPlan {
            name: f.name,
            population: (at.scenario("population", &f.population)?, f.population_name),
            reference: at.scenario("reference", &f.reference)?,
            ft_level: f.ft_level,
            noise_scale: f.noise_scale,
            arms: (arms, f.training),
            methods: f.methods,
            set_encoder: (
                at.count("set_encoder.steps", f.set_encoder.steps, MAX_STEPS)?,
                at.count("set_encoder.check", f.set_encoder.check, MAX_STEPS)?,
            ),
            held_out_family: (held, at.count("family_arms", f.family_arms, MAX_ARMS)?),
            noise_study: Study::from_path(&noise, at.known)?,
            exact: (exact, f.exact_methods),
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<PaperSensingStudy> {
        let t0 = std::time::Instant::now();
        let scenario = self.scenario()?;
        let (runs, _) = cache::population(&ctx.populations(), &scenario, self.arms.0)?;
        let key = cache::population_key(&scenario);
        let (training, held_out) = runs.split_at(self.arms.1);
        let name = &scenario.file.name;
        let (trained, models) = joint_nim(ctx, "nim_noise", Sensing::Paper, name, &key, training)?;
        println!(
            "trained the paper-sensing NIM on {} arms, {} kept out ({} skipped): MIM-GLS {:.1} s, \
             {} steps chosen, σ × {:.2}, training {:.1} s, saved {}",
            trained.arms,
            trained.calibration_arms,
            trained.skipped,
            trained.encode_seconds,
            trained.steps,
            trained.sigma_scale,
            trained.train_seconds,
            models.display()
        );
        let options = Options {
            nim_models: Some(models.clone()),
            ..Default::default()
        };
        let (steps, check) = self.set_encoder;
        let (set_nim, set_training) =
            paper_sensing::set_encoder::train_set_encoder(training, steps, check)?;
        println!(
            "trained the learned set encoder on {} arms in {:.1} s, step {} kept, σ × {:.2}",
            set_training.arms,
            set_training.train_seconds,
            set_training.steps,
            set_training.sigma_scale
        );
        let registry: Vec<Box<dyn Estimator>> = (self.methods.iter())
            .map(|m| {
                crate::estimate::by_name(&options, m).ok_or_else(|| {
                    crate::Error::UnknownEstimator {
                        name: m.clone(),
                        known: crate::estimate::registry_names(),
                    }
                })
            })
            .collect::<crate::Result<_>>()?;
        let methods: Vec<&dyn Estimator> = (registry.iter().map(|e| e.as_ref()))
            .chain([&set_nim as &dyn Estimator])
            .collect();
        let mut arms =
            joint_level::evaluate_with(Sensing::Paper, name, training, held_out, &methods)?;
        arms.training = Some(trained);
        println!(
            "scored {} held-out arms in {:.1} s",
            held_out.len(),
            t0.elapsed().as_secs_f64()
        );
        let (family, without_family) = self.held_out_family(ctx, name, &key, training)?;
        arms.others.push(family);
        let sweep = self.sweep(ctx, &models, &without_family)?;
        let exact = self.exact(ctx, &options)?;
        let mut result = PaperSensingStudy::new(arms, sweep, exact)?;
        result.set_encoder = Some(set_training);
        Ok(result)
    }

    fn markdown(result: &PaperSensingStudy) -> String {
        crate::report::paper_sensing::markdown(result)
    }

    fn summary(result: &PaperSensingStudy) -> String {
        format!("{} exact-run rows", result.exact.len())
    }
}
