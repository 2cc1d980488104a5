//! The `nim-train` and `nim-predict` commands: the population NIM trained on a population
//! directory, and a run's bodies estimated with saved models. The NIM studies are files
//! (`studies/nim*.toml`).

use std::path::Path;
use std::time::Instant;

use validation::dataset::{Run, read_run};

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
    use validation::dataset::PopulationReader;
    use validation::estimate::nim::mlp::BurnMlp;
    use validation::estimate::nim::population::train;
    let inputs = parse_inputs(inputs)?;
    let reader = PopulationReader::open(population)?;
    let arms = reader.arms()?;
    if arms.is_empty() {
        return Err(format!(
            "{}: no complete arms (manifests/shard=*/part-0.parquet)",
            population.display()
        )
        .into());
    }
    let runs = reader.read_many(&arms)?;
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
