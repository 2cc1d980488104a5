//! `cargo xtask reproduce --only paper_sensing`: the run-level NIM under the MIM paper's sensing
//! ([`validation::study::paper_sensing`]): trained on arm6-family arms read by noisy
//! force/torque sensors, scored on held-out arms and in a noise sweep on fixed runs.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sim::scenario::Scenario;
use sim::scenario::population::Distribution;
use sim::scenario::population::motion::FamilyId;
use validation::dataset::Run;
use validation::estimate::Estimator;
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
    let (set_nim, set_training) =
        paper_sensing::set_encoder::train_set_encoder(training, SET_STEPS, SET_CHECK)?;
    println!(
        "trained the learned set encoder on {} arms in {:.1} s, step {} kept, σ × {:.2}",
        set_training.arms, set_training.train_seconds, set_training.steps, set_training.sigma_scale
    );
    let registry: Vec<Box<dyn Estimator>> = (["mim_gls", "mim_stacked", "nim"].iter())
        .map(|m| validation::estimate::by_name(&options, m).expect("a registry name"))
        .collect();
    let methods: Vec<&dyn Estimator> = (registry.iter().map(|e| e.as_ref()))
        .chain([&set_nim as &dyn Estimator])
        .collect();
    let mut arms = joint_level::evaluate_with(Sensing::Paper, name, training, held_out, &methods)?;
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
    let (family, without_family) = held_out_family(root, name, training, out)?;
    arms.others.push(family);
    let sweep = sweep(root, out, &models, &without_family)?;
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
    let mut result = paper_sensing::PaperSensingStudy::new(arms, sweep, exact)?;
    result.set_encoder = Some(set_training);
    let markdown = validation::report::paper_sensing::markdown(&result);
    crate::write_report(out, "paper_sensing", &result, markdown, t0)?;
    Ok(())
}

/// The learned set encoder's optimizer steps (the checkpoint with the best calibration
/// likelihood is kept; checked every [`SET_CHECK`]): about 2.5 minutes on 2 cores.
const SET_STEPS: usize = 8000;
const SET_CHECK: usize = 1000;

/// The motion family held out: arms of [`HELD_OUT_FAMILY`].
const HELD_OUT_FAMILY: FamilyId = FamilyId::Fourier;
/// Its arms scored.
const FAMILY_ARMS: usize = 200;

/// The NIM trained again without one motion family ([`HELD_OUT_FAMILY`]): on the `training`
/// arms of the other families (saved into generated/models/nim_noise_without_fourier), scored
/// beside MIM-GLS on [`FAMILY_ARMS`] training arms of that family, which it never saw; the
/// population mean is the other families' arms'. The scored arms and the models' directory.
fn held_out_family(
    root: &Path,
    name: &str,
    training: &[Run],
    out: &Path,
) -> Result<(joint_level::OtherArms, PathBuf), Box<dyn std::error::Error>> {
    let (others, family): (Vec<Run>, Vec<Run>) =
        (training.iter().cloned()).partition(|r| r.manifest.motion_family != Some(HELD_OUT_FAMILY));
    let family = &family[..FAMILY_ARMS.min(family.len())];
    let models = out
        .join("models")
        .join(format!("nim_noise_without_{HELD_OUT_FAMILY}"));
    let trained = joint_level::train(Sensing::Paper, name, &others, &Default::default(), &models)?;
    let options = validation::estimate::Options {
        nim_models: Some(models.clone()),
        ..Default::default()
    };
    let methods = ["mim_gls", "nim"];
    let study = joint_level::evaluate(Sensing::Paper, name, &others, family, &methods, &options)?;
    let shown = models.strip_prefix(root).unwrap_or(&models);
    let other = joint_level::OtherArms {
        title: "A motion family none of the training arms had".into(),
        description: format!(
            "{} arms of the `{HELD_OUT_FAMILY}` family (every joint on a Fourier series, as \
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
            shown.display(),
            joint_level::POPULATION_MEAN,
        ),
        ..study.into()
    };
    Ok((other, models))
}

/// `studies/nim_paper_noise.toml` with the study's `models`, into
/// generated/studies/nim_paper_noise, and `nim` alone with the `without_family` models (the NIM
/// trained without the held-out family), its rows named `nim_without_<family>`.
fn sweep(
    root: &Path,
    out: &Path,
    models: &Path,
    without_family: &Path,
) -> Result<validation::study::sweep::SweepResult, Box<dyn std::error::Error>> {
    use validation::study::{file::Study, sweep::SweepResult};
    let study = crate::study_with_models(&root.join("studies/nim_paper_noise.toml"), models)?;
    let label = format!("nim_without_{HELD_OUT_FAMILY}");
    let mut merged: Option<SweepResult> = None;
    for (dir_name, models, estimators) in [
        (study.name.clone(), models, study.estimators.clone()),
        (
            format!("{}_{label}", study.name),
            without_family,
            vec!["nim".into()],
        ),
    ] {
        let sweeps = (study.sweeps.iter().cloned())
            .map(|mut s| {
                s.estimators = estimators.clone();
                s
            })
            .collect();
        let study = Study {
            nim_models: Some(models.to_path_buf()),
            estimators,
            sweeps,
            ..study.clone()
        };
        let part = crate::run_fresh(&study, &out.join("studies").join(dir_name))?;
        match merged.as_mut() {
            None => merged = Some(part),
            Some(m) => m.rows.extend(part.rows.into_iter().map(|mut r| {
                r.method = label.clone();
                r
            })),
        }
    }
    let mut merged = merged.expect("two parts");
    merged.notes.push(format!(
        "`{label}`: the NIM trained without the `{HELD_OUT_FAMILY}` motion family \
         (`generated/models/nim_noise_without_{HELD_OUT_FAMILY}`), on the same measured copies."
    ));
    Ok(merged)
}
