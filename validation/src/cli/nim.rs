//! `nim-train` and `nim-predict`: NIM saved as files ([`crate::estimate::nim::saved`]), what
//! they print.

use std::path::Path;

use crate::estimate::nim::Inputs;
use crate::estimate::nim::saved::{predict_dir, train_dir};

/// `nim-train`: trains, writes the model directory, prints each body's training.
pub(crate) fn train(
    population: &Path,
    model_dir: &Path,
    steps: usize,
    inputs: Inputs,
) -> crate::Result<()> {
    let trained = train_dir(population, model_dir, steps, inputs)?;
    for (b, (report, path)) in trained.bodies.iter().enumerate() {
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
        trained.bodies.len(),
        trained.arms,
        trained.seconds
    );
    Ok(())
}

/// `nim-predict`: each body's estimate, ± its calibrated σ where the models carry a
/// calibration, the run's truth beside it.
pub(crate) fn predict(model_dir: &Path, run_dir: &Path) -> crate::Result<()> {
    let found = predict_dir(model_dir, run_dir)?;
    println!(
        "body, m, j11, j22, j33 (kg, kg·m²): estimate{} | truth",
        if found.calibrated {
            " ± σ (calibrated)"
        } else {
            " (uncalibrated: no σ)"
        }
    );
    for (b, (e, t)) in found.estimates.iter().zip(&found.truth).enumerate() {
        let shown: Vec<String> = (0..4)
            .map(|o| match found.calibrated {
                true => format!("{:.4} ± {:.4}", e.value[o], e.sigma[o]),
                false => format!("{:.4}", e.value[o]),
            })
            .collect();
        println!(
            "B{}: {} | {:.4} {:.4} {:.4} {:.4}",
            b + 1,
            shown.join(" "),
            t[0],
            t[1],
            t[2],
            t[3]
        );
    }
    Ok(())
}
