//! `cargo xtask reproduce --only joint_level`: the joint-level study
//! ([`validation::study::joint_level`]) on Panda-family arms, another motion family and random
//! serial arms, with the joint-level NIM it trains.

use std::path::Path;
use std::time::Instant;

use sim::scenario::Scenario;

/// The joint-level study (`validation::study::joint_level`): `JOINT_LEVEL_ARMS` arms of
/// `scenarios/population_panda.toml` into generated/populations/population_panda (resumed if
/// there), the first `JOINT_LEVEL_TRAINING` the training arms (the population mean's and the
/// joint-level NIM's, saved into generated/models/nim_joint_panda), the rest held out and
/// identified by the IDIM family and the NIM; generated/report/joint_level.json and .md.
pub fn reproduce(root: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use validation::study::joint_level;
    let t0 = Instant::now();
    let scenario = Scenario::from_path(&root.join("scenarios/population_panda.toml"))?;
    let dir = out.join("populations").join(&scenario.file.name);
    let runs = validation::study::plan::populations::population(&scenario, JOINT_LEVEL_ARMS, &dir)?;
    let (training, held_out) = runs.split_at(JOINT_LEVEL_TRAINING);
    let models = out.join("models").join("nim_joint_panda");
    // The chapter names the directory as a user types it.
    let shown = models
        .strip_prefix(root)
        .unwrap_or(&models)
        .display()
        .to_string();
    let trained = joint_level::train(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        training,
        &Default::default(),
        &models,
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
    let models_dir = models.clone();
    let options = validation::estimate::Options {
        nim_models: Some(models),
        ..Default::default()
    };
    let methods = ["idim_ols", "idim_wls", "idim_irls", "nim"];
    let mut result = joint_level::evaluate(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        training,
        held_out,
        &methods,
        &options,
    )?;
    let (family, seed) = validation::study::plan::populations::other_fourier_family(
        &scenario,
        JOINT_LEVEL_FAMILY.0,
        JOINT_LEVEL_FAMILY.1,
        JOINT_LEVEL_FAMILY.3,
    )?;
    let family_dir = out
        .join("populations")
        .join("population_panda_other_family");
    let family_arms = validation::study::plan::populations::population(
        &family,
        JOINT_LEVEL_FAMILY.2,
        &family_dir,
    )?;
    let description = format!(
        "{} arms of the same family (seed {seed}) on Fourier motions of base frequency {} Hz with \
         {} harmonics over {} s (the training arms': {} Hz, {}, {} s), the NIM and the \
         population mean those trained above",
        JOINT_LEVEL_FAMILY.2,
        JOINT_LEVEL_FAMILY.0,
        JOINT_LEVEL_FAMILY.1,
        JOINT_LEVEL_FAMILY.3,
        scenario
            .file
            .population
            .as_ref()
            .and_then(|p| p.fourier.as_ref())
            .map_or(f64::NAN, |f| f.base_frequency),
        scenario
            .file
            .population
            .as_ref()
            .and_then(|p| p.fourier.as_ref())
            .map_or(0, |f| f.harmonics),
        scenario.file.time.end,
    );
    let other = joint_level::evaluate(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        training,
        &family_arms,
        &methods,
        &options,
    )?;
    result.others.push(joint_level::OtherArms {
        title: "A motion family none of the training arms had".into(),
        description,
        ..other.into()
    });
    result.others.push(random_arms(root, out)?);
    result.sweep = Some(noise_sweep(root, out, &models_dir)?);
    result.training = Some(joint_level::Training {
        saved: shown,
        ..trained
    });
    let markdown = validation::report::joint_level::markdown(&result);
    crate::write_report(out, "joint_level", &result, markdown, t0)?;
    Ok(())
}

/// `studies/nim_joint_noise.toml` with the Panda-family `models` (into
/// generated/studies/nim_joint_noise), summarized against IDIM-OLS over the base parameters.
fn noise_sweep(
    root: &Path,
    out: &Path,
    models: &Path,
) -> Result<validation::study::level_summary::LevelSummary, Box<dyn std::error::Error>> {
    use validation::study::level_summary::{LevelSummary, levels};
    let path = root.join("studies/nim_joint_noise.toml");
    let study = crate::study_with_models(&path, models)?;
    let dir = out.join("studies").join(&study.name);
    let result = crate::run_fresh(&study, &dir)?;
    validation::report::sweep::write(&result, &dir)?;
    let report = dir.join("sweep.md");
    Ok(LevelSummary {
        study: study.name.clone(),
        seeds: study.seeds,
        report: report
            .strip_prefix(root)
            .unwrap_or(&report)
            .display()
            .to_string(),
        levels: levels(&result, "idim_ols", |p| p.starts_with("base.")),
    })
}

/// The joint-level yardstick on random serial arms (`scenarios/population_random.toml`,
/// `JOINT_LEVEL_RANDOM.0` arms into generated/populations/population_random, the first
/// `JOINT_LEVEL_RANDOM.1` the population's links): IDIM beside the population's answer for
/// each arm's own kinematics, and the joint-level NIM of many structures trained on the
/// training arms (saved in generated/models/nim_joint_random).
fn random_arms(
    root: &Path,
    out: &Path,
) -> Result<validation::study::joint_level::OtherArms, Box<dyn std::error::Error>> {
    use validation::study::joint_level;
    let scenario = Scenario::from_path(&root.join("scenarios/population_random.toml"))?;
    let dir = out.join("populations").join(&scenario.file.name);
    let (arms, training) = JOINT_LEVEL_RANDOM;
    let runs = validation::study::plan::populations::population(&scenario, arms, &dir)?;
    let (training, held_out) = runs.split_at(training);
    let models = out.join("models").join("nim_joint_random");
    let trained = joint_level::train(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        training,
        &Default::default(),
        &models,
    )?;
    println!(
        "trained the random arms' joint-level NIM on {} arms, {} kept out: {} steps, σ × {:.2}, saved {}",
        trained.arms,
        trained.calibration_arms,
        trained.steps,
        trained.sigma_scale,
        models.display()
    );
    let methods = ["idim_ols", "idim_wls", "idim_irls", "nim"];
    let options = validation::estimate::Options {
        nim_models: Some(models),
        ..Default::default()
    };
    let study = joint_level::evaluate(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        training,
        held_out,
        &methods,
        &options,
    )?;
    Ok(joint_level::OtherArms {
        title: "Random serial arms".into(),
        description: format!(
            "{} held-out arms of `{}` (2–7 revolute joints on random Denavit–Hartenberg steps, \
             box links, drawn Coulomb–viscous friction, each at its own noise level): each arm \
             its own base parameters. `{}` answers each arm with the mean of {} training arms' \
             links put on the arm's own kinematics and mapped through its base map \
             (`validation::estimate::nim::joint::LinkPopulation`); `{}` shrinks IDIM-OLS toward it \
             by the links' spread on that arm; `nim` is the joint-level NIM of many structures \
             (one parameter at a time, each arm's prior from the links), trained on {} of the \
             training arms' least squares, {} kept out to choose its length ({} steps) and \
             calibrate its σ (× {:.2}), saved in `generated/models/nim_joint_random`",
            held_out.len(),
            scenario.file.name,
            joint_level::POPULATION_MEAN,
            training.len(),
            joint_level::shrunk(validation::estimate::nim::joint::Sensing::JointLevel),
            trained.arms,
            trained.calibration_arms,
            trained.steps,
            trained.sigma_scale,
        ),
        ..study.into()
    })
}

/// Arms of the random-arm yardstick, and how many of them make the population's links.
const JOINT_LEVEL_RANDOM: (usize, usize) = (700, 500);

/// Arms of the joint-level study's population, and how many of them are training arms (the
/// population mean's and the NIM's).
const JOINT_LEVEL_ARMS: usize = 1200;
const JOINT_LEVEL_TRAINING: usize = 1000;
/// The held-out motion family: base frequency (Hz), harmonics, arms, run length (s). IDIM
/// keeps whole periods after the first and fits 200 harmonics of the period to the angles (a
/// period of at least 4 s at 100 Hz): a 10 s period needs 20 s runs.
const JOINT_LEVEL_FAMILY: (f64, usize, usize, f64) = (0.1, 8, 100, 20.0);
