//! The learned set encoder's training, on burn: `φ`, an MLP applied to every sample's row; the
//! mean over the run's samples; `ρ`, an MLP from that mean and the run's context to a mean and
//! a log-variance per target (DeepSets: Zaheer et al., NeurIPS 2017), trained end to end by
//! β-NLL ([`crate::estimate::nim::Loss::GaussianNll`]) with Adam and a cosine learning rate,
//! the weights kept at the checkpoint with the best likelihood on calibration arms (early
//! stopping on arms it does not train on). The trained model runs without burn
//! ([`super::SetEncoder`]).

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::SetEncoder;
pub use super::samples::SetData;
use crate::estimate::nim::TrainConfig;
use crate::estimate::nim::mlp::{Net, gaussian_nll, seeded, tensor};

#[derive(Module, Debug)]
struct SetNet {
    phi: Net,
    rho: Net,
}

impl SetNet {
    /// Outputs for `rows` (`arms × samples` rows) and `context` (one row per arm).
    fn forward(&self, rows: Tensor<2>, context: Tensor<2>, samples: usize) -> Tensor<2> {
        let h = self.phi.forward(rows);
        let [n, width] = h.dims();
        let pooled = h.reshape([n / samples, samples, width]).mean_dim(1);
        let pooled = pooled.reshape([n / samples, width]);
        self.rho.forward(Tensor::cat(vec![pooled, context], 1))
    }
}

impl SetData {
    fn width(values: &[f32], arms: usize) -> usize {
        values.len() / arms.max(1)
    }

    /// The rows, context and targets of arms `idx`.
    fn batch(&self, idx: &[usize]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let rows = self.samples * self.row_width;
        let (c, t) = (
            Self::width(&self.context, self.arms),
            Self::width(&self.targets, self.arms),
        );
        let gather = |values: &[f32], w: usize| -> Vec<f32> {
            (idx.iter())
                .flat_map(|&i| values[i * w..(i + 1) * w].iter().copied())
                .collect()
        };
        (
            gather(&self.rows, rows),
            gather(&self.context, c),
            gather(&self.targets, t),
        )
    }
}

/// How the set encoder is trained.
#[derive(Clone, Debug)]
pub struct SetTraining {
    /// `φ`'s widths after its input (the last is the pooled width).
    pub phi: Vec<usize>,
    /// `ρ`'s hidden widths.
    pub rho: Vec<usize>,
    /// Optimizer and batches: `batch` counts arms, `max_steps` is the longest run, `seed` seeds
    /// the weights and the batch order, `loss` must be Gaussian NLL.
    pub config: TrainConfig,
    /// Steps between two checks of the calibration likelihood.
    pub check_every: usize,
}

/// What training did.
#[derive(Clone, Debug, PartialEq)]
pub struct Trained {
    /// The weights kept.
    pub encoder: SetEncoder,
    /// The step they are from.
    pub steps: usize,
    /// Their mean NLL per target on the calibration arms.
    pub calibration_nll: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Trains on `train`, checking the likelihood on `calibration` every `check_every` steps
/// (module docs). `Err` where the loss is not Gaussian NLL or either set is empty.
pub fn train(train: &SetData, calibration: &SetData, how: &SetTraining) -> crate::Result<Trained> {
    let crate::estimate::nim::Loss::GaussianNll { beta } = how.config.loss else {
        return Err(crate::Error::invalid(
            "set encoder training",
            "a Gaussian NLL loss",
        ));
    };
    if train.arms == 0 || calibration.arms == 0 || how.config.max_steps == 0 {
        return Err(crate::Error::invalid(
            format!(
                "set encoder training ({} training arms, {} calibration arms, {} steps)",
                train.arms, calibration.arms, how.config.max_steps
            ),
            "at least one of each",
        ));
    }
    let targets = train.targets.len() / train.arms;
    let context = train.context.len() / train.arms;
    let mut phi = vec![train.row_width];
    phi.extend(&how.phi);
    let pooled = *phi.last().expect("φ has an output width");
    let mut rho = vec![pooled + context];
    rho.extend(&how.rho);
    rho.push(2 * targets);
    let (mut net, device) = seeded(how.config.seed, |device| {
        let net = SetNet {
            phi: Net::new(&phi, device),
            rho: Net::new(&rho, device),
        };
        let zeros = |w: usize| tensor(&vec![0.0; w], w, device);
        let _ = net.forward(zeros(train.row_width), zeros(context), 1);
        net
    });
    let batch = how.config.batch.clamp(1, train.arms);
    let mut optimizer = AdamConfig::new().init();
    let mut rng = ChaCha8Rng::seed_from_u64(how.config.seed);
    let mut order: Vec<usize> = (0..train.arms).collect();
    let mut cursor = train.arms;
    let t0 = std::time::Instant::now();
    let snapshot = |net: &SetNet| SetEncoder::new(net.phi.dense(), net.rho.dense(), train.samples);
    let mut best: Option<(f64, usize, SetEncoder)> = None;
    for step in 0..how.config.max_steps {
        if cursor + batch > train.arms {
            order.shuffle(&mut rng);
            cursor = 0;
        }
        let (rows, ctx, y) = train.batch(&order[cursor..cursor + batch]);
        cursor += batch;
        let pred = net.forward(
            tensor(&rows, train.row_width, &device),
            tensor(&ctx, context, &device),
            train.samples,
        );
        let (loss, _) = gaussian_nll(pred, tensor(&y, targets, &device), targets, beta);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        net = optimizer.step(how.config.learning_rate_at(step), net, grads);
        let done = step + 1;
        if done % how.check_every.max(1) == 0 || done == how.config.max_steps {
            let encoder = snapshot(&net);
            let nll = encoder.nll(calibration);
            if best.as_ref().is_none_or(|b| nll < b.0) {
                best = Some((nll, done, encoder));
            }
        }
    }
    let (calibration_nll, steps, encoder) = best.expect("at least one step checked");
    Ok(Trained {
        encoder,
        steps,
        calibration_nll,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::nim::Loss;
    use rand_distr::{Distribution, StandardNormal};

    /// Arms whose targets are statistics of their sets: the mean of the rows' first value and
    /// the mean of the products of the two values (what least squares sums), with a context
    /// that scales the rows' noise.
    fn sets(arms: usize, seed: u64) -> SetData {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let samples = 16;
        let mut d = SetData {
            samples,
            row_width: 2,
            arms,
            ..SetData::default()
        };
        for _ in 0..arms {
            let (mu, c): (f32, f32) = (
                rand::Rng::random_range(&mut rng, -1.0..1.0),
                rand::Rng::random_range(&mut rng, -1.0..1.0),
            );
            let noise = if c > 0.0 { 0.3 } else { 0.03 };
            let (mut mean, mut product) = (0.0, 0.0);
            for _ in 0..samples {
                let e: f32 = StandardNormal.sample(&mut rng);
                let b: f32 = StandardNormal.sample(&mut rng);
                let a = mu + noise * e;
                d.rows.extend([a, b]);
                mean += a / samples as f32;
                product += a * b / samples as f32;
            }
            d.context.push(c);
            d.targets.extend([2.0 * mean, 2.0 * product]);
        }
        d
    }

    #[test]
    fn the_set_encoder_learns_statistics_of_its_sets_and_keeps_its_best_checkpoint() {
        let (fit, calibration) = (sets(512, 1), sets(128, 2));
        let how = SetTraining {
            phi: vec![32, 32],
            rho: vec![32],
            config: TrainConfig {
                learning_rate: 3e-3,
                final_learning_rate: Some(1e-4),
                max_steps: 600,
                batch: 32,
                seed: 5,
                loss: Loss::GaussianNll { beta: 0.5 },
                ..TrainConfig::default()
            },
            check_every: 200,
        };
        let trained = train(&fit, &calibration, &how).unwrap();
        assert!(
            [200, 400, 600].contains(&trained.steps),
            "{}",
            trained.steps
        );
        // The calibration NLL of the kept weights, recomputed from the inference pass.
        assert!((trained.encoder.nll(&calibration) - trained.calibration_nll).abs() < 1e-9);
        // Predicted means against the targets: far better than the targets' spread (MSE 4/3
        // for the first, ~4/16 for the second).
        let out = trained
            .encoder
            .outputs(&calibration.rows, &calibration.context);
        let (mut mse, mut n) = ([0.0_f64; 2], 0.0);
        for (o, y) in out.chunks_exact(4).zip(calibration.targets.chunks_exact(2)) {
            for k in 0..2 {
                mse[k] += f64::from(o[k] - y[k]).powi(2);
            }
            n += 1.0;
        }
        let mse = mse.map(|m| m / n);
        assert!(mse[0] < 0.005 && mse[1] < 0.03, "{mse:?}");
        // Same seed, same weights.
        let again = train(&fit, &calibration, &how).unwrap();
        assert_eq!(again.encoder, trained.encoder);
        let mse_loss = SetTraining {
            config: TrainConfig {
                loss: Loss::Mse,
                ..how.config.clone()
            },
            ..how
        };
        assert!(train(&fit, &calibration, &mse_loss).is_err());
    }
}
