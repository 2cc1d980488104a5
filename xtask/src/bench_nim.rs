//! `cargo xtask bench`'s NIM part: inference latency per body-sample (one body's inputs at one
//! sample → its four parameters and variances) through burn and through the nalgebra forward
//! pass, on a whole `paper_rail` run in one batch and one row at a time, against MIM's solve of
//! all six bodies at one instant; and NIM's training throughput. The network has the
//! generalizing NIM's shape (15 centroidal inputs, 5 × 128 ReLU, 8 outputs); its weights do not
//! matter for the timing (one Adam step from the seed).

use std::path::Path;
use std::time::Instant;

use validation::estimate::mim::SingleInstant;
use validation::estimate::nim::dense::Dense;
use validation::estimate::nim::features::rows;
use validation::estimate::nim::mlp::BurnMlp;
use validation::estimate::nim::population::recipe;
use validation::estimate::nim::{Inputs, Nim, Predictor};
use validation::estimate::{Experiment, engine};

/// Mean seconds per call of `f` over `reps` calls.
fn per_call(reps: usize, mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..reps {
        f();
    }
    t0.elapsed().as_secs_f64() / reps as f64
}

/// Seconds per body-sample of predicting `x` (`rows` rows) in one batch, and one row at a time.
fn latency<N: Predictor>(nim: &Nim<N>, x: &[f32], width: usize, reps: usize) -> (f64, f64) {
    let rows = x.len() / width;
    let batch = per_call(reps, || {
        std::hint::black_box(nim.predict(x));
    }) / rows as f64;
    let single = per_call(reps, || {
        for r in x.chunks(width).take(16) {
            std::hint::black_box(nim.predict(r));
        }
    }) / 16.0;
    (batch, single)
}

/// Runs the NIM benchmark and prints it.
pub fn bench(root: &Path, tmp: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let rail = sim::scenario::Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let run = sim::reading::from_simulated(&sim::simulate(&rail, None), tmp)?;
    let data = &run.measurements;
    // The widest schema, the motion study's (25 inputs).
    let inputs = Inputs::PerAxisLog;
    let samples: Vec<usize> = (0..data.samples()).collect();
    let x: Vec<f32> = (1..=data.bodies.len())
        .flat_map(|b| rows(data, b, inputs, &samples))
        .collect();
    let y: Vec<f32> = (0..x.len() / inputs.len())
        .flat_map(|k| [1.0 + k as f32, 1.0, 2.0, 2.5])
        .collect();

    let (trained, report) = Nim::<BurnMlp>::train(inputs, &x, &y, &recipe(200));
    println!(
        "NIM training:                {:>10.0} samples/s (Adam, batch {}, {} steps)",
        report.samples_per_second,
        recipe(1).batch,
        report.steps
    );
    let path = tmp.join("nim-bench.safetensors");
    trained.save(&path)?;
    let burn = Nim::<BurnMlp>::load(&path)?;
    let dense = Nim::<Dense>::load(&path)?;
    let worst = burn
        .predict(&x)
        .iter()
        .zip(dense.predict(&x))
        .flat_map(|(a, b)| (0..4).map(move |i| (a.value[i] - b.value[i]).abs() / a.value[i].abs()))
        .fold(0.0f64, f64::max);

    let body_samples = x.len() / inputs.len();
    let (burn_batch, burn_single) = latency(&burn, &x, inputs.len(), 20);
    let (dense_batch, dense_single) = latency(&dense, &x, inputs.len(), 200);
    let mim = SingleInstant::paper();
    let experiment = Experiment::single(data);
    let mim_solve = per_call(200, || {
        std::hint::black_box(engine::run(&mim, &experiment).ok());
    });
    let us = 1e6;
    println!(
        "NIM inference ({} inputs), burn: {:>7.2} µs per body-sample in one batch of {body_samples} (a whole run), {:.1} µs one at a time",
        inputs.len(),
        burn_batch * us,
        burn_single * us
    );
    println!(
        "NIM inference, nalgebra:     {:>10.2} µs per body-sample in one batch, {:.1} µs one at a time (agrees with burn to {worst:.1e})",
        dense_batch * us,
        dense_single * us
    );
    let bodies = data.bodies.len() as f64;
    println!(
        "MIM, one instant, {} bodies:  {:>10.2} µs; NIM (nalgebra, batched) for the same {} body-samples: {:.2} µs, ratio MIM/NIM {:.1}",
        data.bodies.len(),
        mim_solve * us,
        data.bodies.len(),
        bodies * dense_batch * us,
        mim_solve / (bodies * dense_batch)
    );
    Ok(())
}
