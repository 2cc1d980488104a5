//! NIM in `reproduce` (the paper's protocol and a small population study) and the full
//! population study, `cargo xtask nim-study`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sim::population::Shard;
use sim::scenario::Scenario;
use validation::dataset::{Run, read_population_arm, read_run};
use validation::nim::TrainConfig;
use validation::study::nim::{NimStudy, PopulationRuns, population_study};

/// Sizes of a population study.
pub struct StudySize {
    /// Training arms.
    pub train: usize,
    /// Held-out arms (same distributions).
    pub test: usize,
    /// Out-of-distribution arms (20 % denser).
    pub ood: usize,
    /// Optimizer steps per body network.
    pub steps: usize,
    /// Training-set sizes of the learning curve (besides `train`).
    pub curve: Vec<usize>,
    /// Seed of the population networks' initialization and batch order.
    pub seed: u64,
}

/// `text` (a population scenario) with force/torque sensors on every body whose noise is
/// `level` × that body's signal RMS on the paper's clean rail run (`paper_rail`), per channel:
/// noise-augmented training data.
pub(crate) fn with_ft_sensors(
    root: &Path,
    text: &str,
    level: f64,
) -> Result<String, Box<dyn std::error::Error>> {
    let rail = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let clean = sim::simulate(&rail, None);
    #[derive(serde::Serialize)]
    struct Sensors {
        sensor: Vec<sim::sensor::Sensor>,
    }
    let sensors = validation::study::sweep::measurement(
        validation::study::file::SensorFamily::ForceTorque,
        level,
        &clean.recording,
    )
    .sensors;
    Ok(format!(
        "{text}\n{}",
        toml::to_string(&Sensors { sensor: sensors })?
    ))
}

/// Generates (or resumes) a population with `arms` arms from `text` into `dir`.
pub(crate) fn population(
    text: &str,
    origin: &Path,
    arms: usize,
    dir: &Path,
) -> Result<Vec<Run>, Box<dyn std::error::Error>> {
    let text = text.replace("arms = 1000", &format!("arms = {arms}"));
    let s = Scenario::from_toml(&text, &origin.display().to_string())?;
    let t0 = Instant::now();
    let g = sim::batch::generate(&s, dir, Shard::ALL, false, None)?;
    if g.written > 0 {
        println!(
            "simulated {} arms into {} in {:.1} s ({:.2} arms/s)",
            g.written,
            dir.display(),
            t0.elapsed().as_secs_f64(),
            g.written as f64 / t0.elapsed().as_secs_f64()
        );
    }
    Ok((0..arms)
        .map(|k| read_population_arm(dir, k))
        .collect::<Result<_, _>>()?)
}

/// A population file (`file`, for the message) with every density 20 % higher, bounds too (the
/// densities of `population_rail` and `population_motions`), and its seed line `seed.0`
/// replaced by `seed.1`.
pub(crate) fn denser(
    text: &str,
    seed: (&str, &str),
    file: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let reseeded = text.replace(seed.0, seed.1);
    let heavy = reseeded
        .replace(
            "mean = 1741.8, std = 87.0, low = 1480.0, high = 2000.0",
            "mean = 2090.16, std = 104.4, low = 1776.0, high = 2400.0",
        )
        .replace(
            "mean = 1178.9, std = 59.0, low = 1000.0, high = 1360.0",
            "mean = 1414.68, std = 70.8, low = 1200.0, high = 1632.0",
        );
    if heavy == reseeded || reseeded == text {
        return Err(format!(
            "{file} changed: update the out-of-distribution densities and seed in xtask/src/nim.rs"
        )
        .into());
    }
    Ok(heavy)
}

/// Runs the NIM report: the paper's protocol on `paper_rail` and a population study of `size`.
pub fn report(root: &Path, out: &Path, size: &StudySize) -> Result<(), Box<dyn std::error::Error>> {
    let rail = out.join("runs").join("paper_rail");
    if !rail.join("manifest.json").exists() {
        let scenario = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
        crate::simulate_all(&[scenario], std::slice::from_ref(&rail))?;
    }
    let t0 = Instant::now();
    let paper_run = read_run(&rail)?;
    let config = TrainConfig {
        seed: size.seed,
        ..validation::nim::population::recipe(size.steps)
    };
    let report = NimStudy::new(&paper_run, TrainConfig::default())?;

    let path = root.join("scenarios/population_rail.toml");
    let text = std::fs::read_to_string(&path)?;
    let pops: PathBuf = out.join("populations");
    let arms = population(
        &text,
        &path,
        size.train + size.test,
        &pops.join("population_rail"),
    )?;
    // Out of distribution: every density 20 % higher (bounds too), another seed.
    let heavy = denser(
        &text,
        ("seed = 2026", "seed = 2027"),
        "population_rail.toml",
    )?;
    let ood = population(&heavy, &path, size.ood, &pops.join("population_rail_heavy"))?;
    let runs = PopulationRuns {
        train: arms[..size.train].iter().collect(),
        heldout: arms[size.train..].iter().collect(),
        out_of_distribution: ood.iter().collect(),
        ood_description: format!(
            "{} arms of the same population with every density 20 % higher (mean 2090.2 kg/m³, B6 1414.7 kg/m³)",
            size.ood
        ),
    };
    let models = out.join("models").join("nim_population");
    let study = population_study(&runs, &paper_run, &config, &size.curve, Some(&models))?;
    let report = report.with_population(study);
    let dir = out.join("report");
    validation::report::nim::write(&report, &dir)?;
    let (m, j) = report.heldout_error().unwrap_or((f64::NAN, f64::NAN));
    println!(
        "wrote {}/nim.md and nim.csv in {:.1} s: paper protocol largest relative error {:.1e} ({:.1e} with shuffled inputs); \
         population NIM on held-out arms: mass {:.2} %, identifiable moments {:.2} %",
        dir.display(),
        t0.elapsed().as_secs_f64(),
        report.max_rel_error("paper"),
        report.max_rel_error("paper_inputs_shuffled"),
        100.0 * m,
        100.0 * j,
    );
    Ok(())
}

/// An input schema named on the command line (`--inputs`).
pub(crate) fn parse_inputs(id: &str) -> Result<validation::nim::Inputs, String> {
    use validation::nim::Inputs;
    Inputs::ALL
        .into_iter()
        .find(|i| i.id() == id)
        .ok_or_else(|| {
            let ids: Vec<String> = Inputs::ALL
                .iter()
                .map(|i| format!("{} ({})", i.id(), i.len()))
                .collect();
            format!("--inputs {id}: expected one of {}", ids.join(", "))
        })
}

/// `cargo xtask nim-train`: one network per body on every complete arm of a population.
pub fn train_cli(
    population: &Path,
    model_dir: &Path,
    steps: usize,
    inputs: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    use validation::dataset::population_arms;
    use validation::nim::mlp::BurnMlp;
    use validation::nim::population::train;
    let inputs = parse_inputs(inputs)?;
    let arms = population_arms(population)?;
    if arms.is_empty() {
        return Err(format!(
            "{}: no complete arms (manifests/arm=*.json)",
            population.display()
        )
        .into());
    }
    let runs = arms
        .iter()
        .map(|&k| read_population_arm(population, k))
        .collect::<Result<Vec<_>, _>>()?;
    let config = validation::nim::population::recipe(steps);
    let t0 = Instant::now();
    let refs: Vec<&Run> = runs.iter().collect();
    let nims = train::<BurnMlp>(&refs, inputs, &config);
    // The model directory is replaced whole, or left as it was.
    validation::report::write_dir_atomic(model_dir, |work| {
        for (b, (nim, _)) in nims.iter().enumerate() {
            nim.save(&work.join(format!("body{}.safetensors", b + 1)))?;
        }
        Ok(())
    })?;
    for (b, (_, report)) in nims.iter().enumerate() {
        let path = model_dir.join(format!("body{}.safetensors", b + 1));
        println!(
            "body {}: {} steps, training MSE {:.2e} → {:.2e} (standardized), {:.0} samples/s → {}",
            b + 1,
            report.steps,
            report.first_mse,
            report.final_mse,
            report.samples_per_second,
            path.display()
        );
    }
    println!(
        "trained {} networks on {} arms in {:.1} s",
        nims.len(),
        runs.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `cargo xtask nim-predict`: each body's estimate (its samples' predictions pooled, an
/// ensemble's members too: [`validation::nim::ensemble`]) from saved models, ± its calibrated σ
/// where the models carry a calibration; the run's truth, where it has one, is printed beside
/// for comparison only.
pub fn predict_cli(model_dir: &Path, run_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use validation::nim::dense::Dense;
    use validation::nim::ensemble::Ensemble;
    let run = read_run(run_dir)?;
    let models = Ensemble::<Dense>::load(model_dir)?;
    let calibrated = models.calibration.is_fitted();
    println!(
        "body, m, j11, j22, j33 (kg, kg·m²): estimate{} | truth",
        if calibrated {
            " ± σ (calibrated)"
        } else {
            " (uncalibrated: no σ)"
        }
    );
    for b in 1..=run.measurements.bodies.len().min(models.bodies()) {
        let e = models.estimate(&run.measurements, b);
        let t = &run.truth.bodies[b - 1];
        let shown: Vec<String> = (0..4)
            .map(|o| match calibrated {
                true => format!("{:.4} ± {:.4}", e.value[o], e.sigma[o]),
                false => format!("{:.4}", e.value[o]),
            })
            .collect();
        println!(
            "B{b}: {} | {:.4} {:.4} {:.4} {:.4}",
            shown.join(" "),
            t.mass,
            t.j[0],
            t.j[1],
            t.j[2]
        );
    }
    Ok(())
}
