//! `cargo xtask reproduce --only paper_sensing`: the run-level NIM under the MIM paper's sensing
//! ([`validation::study::paper_sensing`]): trained on arm6-family arms read by noisy
//! force/torque sensors, scored on held-out arms and in a noise sweep on fixed runs.

use std::path::Path;
use std::time::Instant;

use sim::scenario::Scenario;
use sim::scenario::population::Distribution;
use validation::estimate::nim::joint::Sensing;
use validation::study::{joint_level, paper_sensing};

/// Arms of the population, and how many of them are training arms (the NIM's, the population
/// mean's); the rest are held out.
const ARMS: usize = 6200;
const TRAINING: usize = 6000;
/// The file's force/torque noise: σ = `LEVEL` × each body's signal RMS on `arm6_fourier`.
const LEVEL: f64 = 5e-3;
/// Each arm's factor on it (`noise_scale`): log-normal about 1, so that the arms' levels span
/// the sweep's 1e-3 … 3e-2 and beyond (5e-4 … 5e-2).
const NOISE_SCALE: Distribution = Distribution::LogNormal {
    mu: 0.0,
    sigma: 1.2,
    low: Some(0.1),
    high: Some(10.0),
};

/// `scenarios/population_motions.toml` (arm6 variants on three motion families) with a
/// force/torque sensor at every joint at [`LEVEL`] of `arm6_fourier`'s signals, each arm at its
/// own factor [`NOISE_SCALE`].
fn population(root: &Path) -> Result<Scenario, Box<dyn std::error::Error>> {
    let motions = Scenario::from_path(&root.join("scenarios/population_motions.toml"))?;
    let reference = Scenario::from_path(&root.join("scenarios/arm6_fourier.toml"))?;
    let sensed =
        validation::study::plan::populations::with_ft_sensors(&reference, &motions, LEVEL)?;
    Ok(sensed.edited(|f| {
        f.name = "population_motions_ft".into();
        if let Some(p) = f.population.as_mut() {
            p.noise_scale = Some(NOISE_SCALE);
        }
    })?)
}

/// The study: [`ARMS`] arms into generated/populations/population_motions_ft (resumed if
/// there), the NIM trained on the first [`TRAINING`] and saved into generated/models/nim_noise,
/// the rest held out; then `studies/nim_paper_noise.toml` with those models, and the exact runs
/// of its scenarios (into generated/runs); generated/report/paper_sensing.json and .md.
pub fn reproduce(root: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let scenario = population(root)?;
    let dir = out.join("populations").join(&scenario.file.name);
    let runs = validation::study::plan::populations::population(&scenario, ARMS, &dir)?;
    let (training, held_out) = runs.split_at(TRAINING);
    let models = out.join("models").join("nim_noise");
    let name = &scenario.file.name;
    let trained = joint_level::train(Sensing::Paper, name, training, &Default::default(), &models)?;
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
    let options = validation::estimate::Options {
        nim_models: Some(models.clone()),
        ..Default::default()
    };
    let methods = ["mim_gls", "mim_stacked", "nim"];
    let mut arms =
        joint_level::evaluate(Sensing::Paper, name, training, held_out, &methods, &options)?;
    let shown = models.strip_prefix(root).unwrap_or(&models);
    arms.training = Some(joint_level::Training {
        saved: shown.display().to_string(),
        ..trained
    });
    println!(
        "scored {} held-out arms in {:.1} s",
        held_out.len(),
        t0.elapsed().as_secs_f64()
    );
    let sweep = sweep(root, out, &models)?;
    let mut exact = Vec::new();
    for name in ["paper_rail", "arm6_fourier"] {
        let scenario = Scenario::from_path(&root.join(format!("scenarios/{name}.toml")))?;
        let run = validation::dataset::write_and_read(
            &sim::simulate(&scenario, None),
            &out.join("runs").join(name),
        )?;
        exact.extend(paper_sensing::exact(
            &run,
            &["mim_stacked", "nim"],
            &options,
        )?);
    }
    let result = paper_sensing::PaperSensingStudy::new(arms, sweep, exact)?;
    let markdown = validation::report::paper_sensing::markdown(&result);
    crate::write_report(out, "paper_sensing", &result, markdown, t0)?;
    Ok(())
}

/// `studies/nim_paper_noise.toml` with the study's `models`, into
/// generated/studies/nim_paper_noise.
fn sweep(
    root: &Path,
    out: &Path,
    models: &Path,
) -> Result<validation::study::sweep::SweepResult, Box<dyn std::error::Error>> {
    use validation::study::{file::Study, run_into, sweep::SweepResult};
    let names: Vec<&'static str> = validation::estimate::registry(&Default::default())
        .iter()
        .map(|e| e.name())
        .collect();
    let study = Study::from_path(&root.join("studies/nim_paper_noise.toml"), &names)?;
    let study = Study {
        nim_models: Some(models.to_path_buf()),
        ..study
    };
    let none = |_: &SweepResult, _: &Path| Ok(());
    let dir = out.join("studies").join(&study.name);
    // A sweep resumes from its directory: models retrained since make its rows stale.
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(run_into(&study, &dir, None, &none)?)
}
