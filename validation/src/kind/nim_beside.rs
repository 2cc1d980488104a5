//! `kind = "nim_beside"`: a sweep with the generalizing NIM beside it — the sweep file run as
//! it is, then a NIM sweep file once per model set, each set trained here on a population
//! (clean, or measured by force/torque sensors: noise augmentation) as a user would with
//! `armid nim-train`; NIM's rows join the sweep's as `nim_<label>…`. Report `<name>.md`,
//! `.csv`, `.png` (the sweep's).
//!
//! ```toml
//! kind = "nim_beside"
//! name = "mim_noise"
//! study = "mim_noise.toml"          # the sweep
//! nim_study = "nim_noise.toml"      # NIM's sweep, run with each model set
//! population = "../scenarios/population_rail.toml"
//! reference = "../scenarios/paper_rail.toml"   # the augmentation's signal RMS
//! arms = 80
//! steps = 3000                      # Adam steps per body network
//! inputs = "centroidal"
//!
//! [[models]]
//! label = "clean"
//!
//! [[models]]
//! label = "ft"
//! ft_noise = 1e-2                   # σ = ft_noise × each body's RMS on the reference
//! ```
//!
//! The model sets train one after the other in this process (NIM training runs on one core).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::scenario::Scenario;

use super::checks::{MAX_ARMS, MAX_STEPS};
use super::trained::sweep_with_models;
use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::estimate::nim::Inputs;
use crate::study::cache;
use crate::study::file::{Study, StudyError};
use crate::study::sweep::SweepResult;
use sim::reading::Run;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    study: PathBuf,
    nim_study: PathBuf,
    population: PathBuf,
    reference: PathBuf,
    arms: usize,
    steps: usize,
    inputs: String,
    models: Vec<ModelsFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelsFile {
    label: String,
    #[serde(default)]
    ft_noise: f64,
}

/// A sweep with NIM beside it.
#[derive(Clone, Debug)]
pub struct NimBesidePlan {
    /// Its name (the merged result's).
    pub name: String,
    /// The sweep.
    pub study: Study,
    /// NIM's sweep.
    pub nim_study: Study,
    /// The training population's scenario and the augmentation's reference run (resolved).
    pub population: (PathBuf, PathBuf),
    /// Training arms and Adam steps per body network.
    pub size: (usize, usize),
    /// The networks' inputs.
    pub inputs: Inputs,
    /// The model sets: label and relative force/torque noise (0: clean).
    pub models: Vec<(String, f64)>,
}

/// Trains one network per body on `runs` into `dir`; a line per body.
fn train(runs: &[Run], inputs: Inputs, steps: usize, dir: &Path) -> crate::Result<Vec<String>> {
    use crate::estimate::nim::mlp::BurnMlp;
    let refs: Vec<&Run> = runs.iter().collect();
    let config = crate::estimate::nim::population::recipe(steps);
    let nims = crate::estimate::nim::population::train::<BurnMlp>(&refs, inputs, &config);
    crate::files::write_dir_atomic(dir, |work| {
        for (b, (nim, _)) in nims.iter().enumerate() {
            nim.save(&work.join(format!("body{}.safetensors", b + 1)))?;
        }
        Ok(())
    })?;
    Ok((nims.iter().enumerate())
        .map(|(b, (_, r))| {
            format!(
                "body {}: {} steps, training MSE {:.2e} → {:.2e} (standardized)",
                b + 1,
                r.steps,
                r.first_mse,
                r.final_mse
            )
        })
        .collect())
}

impl NimBesidePlan {
    /// The model set `label` at relative noise `level`: its population (cached), its networks
    /// (cached) and what they were trained on.
    fn models(&self, ctx: &Context, label: &str, level: f64) -> crate::Result<(PathBuf, String)> {
        let rail = Scenario::from_path(&self.population.0)?;
        let scenario = match level > 0.0 {
            false => rail,
            true => {
                let reference = Scenario::from_path(&self.population.1)?;
                crate::study::plan::populations::with_ft_sensors(&reference, &rail, level)?
            }
        };
        let (arms, steps) = self.size;
        let (runs, _) = cache::population(&ctx.populations(), &scenario, arms)?;
        let key = cache::population_key(&scenario);
        let parts = [
            key.as_str(),
            &arms.to_string(),
            &steps.to_string(),
            self.inputs.id(),
        ];
        let (lines, dir) = cache::trained(&ctx.models(), &format!("nim_{label}"), &parts, |dir| {
            train(&runs, self.inputs, steps, dir)
        })?;
        for line in lines {
            println!("nim_{label} {line}");
        }
        let what = match level > 0.0 {
            false => format!(
                "{arms} arms of {}, clean, {steps} Adam steps per body",
                scenario.file.name
            ),
            true => format!(
                "{arms} arms of {} measured by force/torque sensors at σ = {level} × each body's RMS on {}, {steps} Adam steps per body",
                scenario.file.name,
                stem(&self.population.1)
            ),
        };
        Ok((dir, what))
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

impl StudyKind for NimBesidePlan {
    const NAME: &'static str = "nim_beside";
    type Result = SweepResult;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        let inputs = Inputs::from_id(&f.inputs).ok_or_else(|| {
            at.invalid(
                "inputs",
                format!("expected one of {}, got {:?}", Inputs::known(), f.inputs),
            )
        })?;
        let mut models = Vec::new();
        for (k, m) in f.models.iter().enumerate() {
            let ok = m.ft_noise.is_finite() && m.ft_noise >= 0.0;
            let unique = !models.iter().any(|(l, _): &(String, f64)| *l == m.label);
            if !ok || !unique || m.label.is_empty() {
                return Err(at.invalid(
                    &format!("models[{k}]"),
                    format!(
                        "expected a new label and ft_noise ≥ 0, got {:?}, {}",
                        m.label, m.ft_noise
                    ),
                ));
            }
            models.push((m.label.clone(), m.ft_noise));
        }
        let study = at.existing("study", &f.study, "study file")?;
        let nim_study = at.existing("nim_study", &f.nim_study, "study file")?;
        Ok(NimBesidePlan {
            name: f.name,
            study: Study::from_path(&study, at.known)?,
            nim_study: Study::from_path(&nim_study, at.known)?,
            population: (
                at.scenario("population", &f.population)?,
                at.scenario("reference", &f.reference)?,
            ),
            size: (
                at.count("arms", f.arms, MAX_ARMS)?,
                at.count("steps", f.steps, MAX_STEPS)?,
            ),
            inputs,
            models,
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<SweepResult> {
        let mut merged = crate::study::run_into(
            &self.study,
            &ctx.sweep_dir(&self.study.name),
            None,
            &crate::report::sweep::write,
        )?;
        for (label, level) in &self.models {
            let (models, what) = self.models(ctx, label, *level)?;
            let dir = format!("{}_{label}", self.nim_study.name);
            let part = sweep_with_models(ctx, &self.nim_study, &models, None, &dir)?;
            merged.rows.extend(part.rows.into_iter().map(|mut r| {
                let nim = EstimatorId::Nim.name();
                r.method = r.method.replacen(nim, &format!("{nim}_{label}"), 1);
                r
            }));
            merged.notes.push(format!(
                "`nim_{label}*`: NIM models {} ({what}); {} seeds per level.",
                ctx.shown(&ctx.models().join(format!("nim_{label}"))),
                self.nim_study.seeds
            ));
        }
        Ok(merged)
    }

    fn render(&self, result: &SweepResult, report: &Path) -> crate::Result<()> {
        crate::report::sweep::write_as(result, report, &self.name)
    }

    fn markdown(result: &SweepResult) -> String {
        crate::report::sweep::markdown(result)
    }

    fn summary(result: &SweepResult) -> String {
        format!("{} sweep rows, NIM's among them", result.rows.len())
    }
}
