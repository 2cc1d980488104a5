//! The paper's NIM protocol on one run (its section "Numerical simulation of NIM"): per body,
//! train on the first 80 of 100 samples with the body's true parameters as labels, predict the
//! last 20 and average. Every training label of a body is the same constant, so the network can
//! meet the stopping rule without using its inputs; [`TestInputs`] measures whether it does.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::features::{Inputs, rows};
use super::{Network, Nim, TrainConfig, TrainReport};
use sim::reading::Run;

/// What the trained network is shown at test time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestInputs {
    /// The test samples' own inputs.
    Recorded,
    /// Each input column permuted at random across all samples of the run (the link between a
    /// sample's inputs and its time is broken).
    Shuffled,
    /// Every input at its training mean.
    Zeroed,
}

/// One body's result.
#[derive(Clone, Debug)]
pub struct BodyResult {
    /// Body (1-based).
    pub body: usize,
    /// Mean prediction over the test samples, `(m, J11, J22, J33)`.
    pub estimate: [f64; 4],
    /// Training.
    pub train: TrainReport,
    /// Mean wall-clock time of one single-sample prediction (s).
    pub latency: f64,
}

/// Runs the protocol on every body of `run`: train on samples `0..80`, test on `80..100`.
pub fn paper<N: Network>(
    run: &Run,
    inputs: Inputs,
    test: TestInputs,
    config: &TrainConfig,
) -> Vec<BodyResult> {
    let data = &run.measurements;
    let train: Vec<usize> = (0..80).collect();
    let test_samples: Vec<usize> = (80..100).collect();
    (1..=data.bodies.len())
        .map(|b| {
            let truth = &run.truth.bodies[b - 1];
            let label = [truth.mass, truth.j[0], truth.j[1], truth.j[2]].map(|v| v as f32);
            let x = rows(data, b, inputs, &train);
            let y: Vec<f32> = train.iter().flat_map(|_| label).collect();
            // The paper's formulation: the network outputs the values themselves.
            let direct = super::Parametrization::Direct;
            let (nim, report) = Nim::<N>::train_as(direct, inputs, &x, &y, config);
            let xt = match test {
                TestInputs::Recorded => rows(data, b, inputs, &test_samples),
                TestInputs::Zeroed => test_samples
                    .iter()
                    .flat_map(|_| nim.inputs.mean.iter().map(|m| *m as f32))
                    .collect(),
                TestInputs::Shuffled => {
                    let all: Vec<usize> = (0..100).collect();
                    let full = rows(data, b, inputs, &all);
                    let n = inputs.len();
                    let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ 0x5eed);
                    let mut cols: Vec<Vec<f32>> = (0..n)
                        .map(|c| full.chunks(n).map(|r| r[c]).collect())
                        .collect();
                    for c in &mut cols {
                        c.shuffle(&mut rng);
                    }
                    test_samples
                        .iter()
                        .flat_map(|&k| cols.iter().map(move |c| c[k]))
                        .collect()
                }
            };
            let estimate = super::population::pool(&nim.predict(&xt));
            let one = &xt[..inputs.len()];
            let t0 = std::time::Instant::now();
            let reps = 200;
            for _ in 0..reps {
                std::hint::black_box(nim.predict(one));
            }
            BodyResult {
                body: b,
                estimate,
                train: report,
                latency: t0.elapsed().as_secs_f64() / f64::from(reps),
            }
        })
        .collect()
}
