//! The generalizing NIM: one network per body position, trained on every sample of many arms
//! of a population (labels: each arm's own truth), scored on arms it has never seen. An arm's
//! estimate is the mean of the network's predictions over the arm's samples.

use super::features::{Inputs, rows};
use super::{Network, Nim, TrainConfig, TrainReport};
use crate::dataset::Run;

/// Labels of body `b` (1-based) of an arm: `(m, J11, J22, J33)`.
fn label(run: &Run, b: usize) -> [f32; 4] {
    let t = &run.truth.bodies[b - 1];
    [t.mass, t.j[0], t.j[1], t.j[2]].map(|v| v as f32)
}

/// Inputs and labels of body `b` over every sample of `arms`.
pub fn training_set(arms: &[&Run], b: usize, inputs: Inputs) -> (Vec<f32>, Vec<f32>) {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for run in arms {
        let samples: Vec<usize> = (0..run.measurements.samples()).collect();
        x.extend(rows(&run.measurements, b, inputs, &samples));
        for _ in &samples {
            y.extend(label(run, b));
        }
    }
    (x, y)
}

/// The estimate of body `b` of an arm: the mean prediction over its samples.
pub fn estimate<N: Network>(nim: &Nim<N>, run: &Run, b: usize) -> [f64; 4] {
    let samples: Vec<usize> = (0..run.measurements.samples()).collect();
    let predictions = nim.predict(&rows(&run.measurements, b, nim.schema, &samples));
    let mut e = [0.0; 4];
    for p in &predictions {
        for (a, v) in e.iter_mut().zip(p) {
            *a += v / predictions.len() as f64;
        }
    }
    e
}

/// One network per body, trained on `arms`.
pub fn train<N: Network>(
    arms: &[&Run],
    inputs: Inputs,
    config: &TrainConfig,
) -> Vec<(Nim<N>, TrainReport)> {
    let bodies = arms.first().map_or(0, |r| r.measurements.bodies.len());
    (1..=bodies)
        .map(|b| {
            let (x, y) = training_set(arms, b, inputs);
            Nim::<N>::train(inputs, &x, &y, config)
        })
        .collect()
}
