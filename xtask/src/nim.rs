//! NIM in `reproduce` (the paper's protocol and a small population study) and the full
//! population study, `cargo xtask nim-study`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use sim::population::Shard;
use sim::scenario::Scenario;
use validation::dataset::{Run, read_population_arm, read_run};
use validation::estimate::nim::TrainConfig;
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

/// `scenario` (a population) with force/torque sensors on every body whose noise is `level` ×
/// that body's signal RMS on the paper's clean rail run (`paper_rail`), per channel:
/// noise-augmented training data.
pub(crate) fn with_ft_sensors(
    root: &Path,
    scenario: &Scenario,
    level: f64,
) -> Result<Scenario, Box<dyn std::error::Error>> {
    let rail = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let clean = sim::simulate(&rail, None);
    let sensors = validation::study::sweep::measurement(
        validation::study::file::SensorFamily::ForceTorque,
        level,
        &clean.recording,
    )
    .sensors;
    Ok(scenario.edited(|f| f.sensor.extend(sensors))?)
}

/// Generates (or resumes) `scenario`'s population with `arms` arms into `dir`.
pub(crate) fn population(
    scenario: &Scenario,
    arms: usize,
    dir: &Path,
) -> Result<Vec<Run>, Box<dyn std::error::Error>> {
    let s = scenario.edited(|f| {
        if let Some(p) = f.population.as_mut() {
            p.arms = arms;
        }
    })?;
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

/// A population with every drawn density 20 % higher (bounds too) and the next seed: arms out
/// of the distribution `scenario`'s networks were trained on.
pub(crate) fn denser(scenario: &Scenario) -> Result<Scenario, Box<dyn std::error::Error>> {
    let file = scenario.path.as_deref().unwrap_or(Path::new("?")).display();
    let (mut scaled, mut reseeded) = (false, false);
    let heavy = scenario.edited(|f| {
        if let Some(p) = f.population.as_mut() {
            // Other arms need another seed: one the file states, plus one.
            if let Some(seed) = p.seed.as_mut() {
                *seed += 1;
                reseeded = true;
            }
            let densities = p.body.iter_mut().map(|b| &mut b.density);
            for d in std::iter::once(&mut p.density).chain(densities) {
                if let Some(d) = d.as_mut() {
                    *d = d.scaled(1.2);
                    scaled = true;
                }
            }
        }
    })?;
    if !(scaled && reseeded) {
        return Err(format!(
            "{file}: the out-of-distribution arms need a `[population]` seed and a drawn density"
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
        ..validation::estimate::nim::population::recipe(size.steps)
    };
    let report = NimStudy::new(&paper_run, TrainConfig::default())?;

    let rail = Scenario::from_path(&root.join("scenarios/population_rail.toml"))?;
    let pops: PathBuf = out.join("populations");
    let arms = population(&rail, size.train + size.test, &pops.join("population_rail"))?;
    // Out of distribution: every density 20 % higher (bounds too), another seed.
    let ood = population(
        &denser(&rail)?,
        size.ood,
        &pops.join("population_rail_heavy"),
    )?;
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
pub(crate) fn parse_inputs(id: &str) -> Result<validation::estimate::nim::Inputs, String> {
    use validation::estimate::nim::Inputs;
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
    use validation::estimate::nim::mlp::BurnMlp;
    use validation::estimate::nim::population::train;
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
    let config = validation::estimate::nim::population::recipe(steps);
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
/// ensemble's members too: [`validation::estimate::nim::ensemble`]) from saved models, ± its calibrated σ
/// where the models carry a calibration; the run's truth, where it has one, is printed beside
/// for comparison only.
pub fn predict_cli(model_dir: &Path, run_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    use validation::estimate::nim::dense::Dense;
    use validation::estimate::nim::ensemble::Ensemble;
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
