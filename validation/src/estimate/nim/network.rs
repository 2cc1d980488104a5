//! The network NIM trains, behind a small trait so that only [`super::mlp`] compiles against
//! the neural-network crate.

use std::path::Path;

/// Training settings (the paper's Algorithm 1: Adam, lr 2.5e-4, MSE, stop at MSE < 1e-5).
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Adam learning rate (at the first step).
    pub learning_rate: f64,
    /// Learning rate at the last step, reached by a cosine decay over `max_steps`; `None` keeps
    /// `learning_rate` throughout (the paper's Algorithm 1).
    pub final_learning_rate: Option<f64>,
    /// Stop when the training MSE (standardized units) falls below this.
    pub target_mse: f64,
    /// Largest number of optimizer steps.
    pub max_steps: usize,
    /// Mini-batch size (the whole set when larger).
    pub batch: usize,
    /// Seed of the weight initialization and the batch order.
    pub seed: u64,
    /// The training loss.
    pub loss: Loss,
}

/// What training minimizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Loss {
    /// Mean squared error of the outputs against the targets (the paper's eq. 25).
    Mse,
    /// Gaussian negative log-likelihood: the network outputs a mean and a log-variance per
    /// target (twice the targets' width: means first), and each sample's term
    /// `½(log σ² + (y − μ)²/σ²)` is weighted by `σ^(2β)` with the weight held out of the
    /// gradient (β-NLL, Seitzer et al., ICLR 2022; β = 0 is the plain NLL, β = 1 trains the
    /// means like MSE). The variance says how much a sample tells about its targets.
    GaussianNll {
        /// The exponent β in `[0, 1]`.
        beta: f64,
    },
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            learning_rate: 2.5e-4,
            final_learning_rate: None,
            target_mse: 1e-5,
            max_steps: 20_000,
            batch: 256,
            seed: 0,
            loss: Loss::Mse,
        }
    }
}

impl TrainConfig {
    /// The learning rate at optimizer step `step` (0-based).
    pub(crate) fn learning_rate_at(&self, step: usize) -> f64 {
        match self.final_learning_rate {
            None => self.learning_rate,
            Some(end) => {
                let progress = step as f64 / self.max_steps.saturating_sub(1).max(1) as f64;
                end + 0.5
                    * (self.learning_rate - end)
                    * (1.0 + (std::f64::consts::PI * progress).cos())
            }
        }
    }
}

/// What a training run did.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// Optimizer steps taken.
    pub steps: usize,
    /// Training MSE of the (mean) outputs, standardized units, at the first step.
    pub first_mse: f64,
    /// The same at the last step.
    pub final_mse: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Samples processed per second (steps × batch / seconds).
    pub samples_per_second: f64,
}

/// The inference side of a regression network: `inputs → outputs`, rows of `f32`, from weights
/// saved by a [`Network`].
pub trait Predictor: Sized {
    /// Predictions for rows `x`, row-major: a whole batch in one call.
    fn predict(&self, x: &[f32]) -> Vec<f32>;
    /// Loads weights saved by [`Network::save`] into a network of the given widths.
    fn load(path: &Path, widths: &[usize]) -> crate::Result<Self>;
}

/// A trainable regression network.
pub trait Network: Predictor {
    /// A fresh network with the given layer widths (inputs, hidden…, outputs).
    fn new(widths: &[usize], seed: u64) -> Self;
    /// Trains on rows `x` (n × inputs) against `y` (n × targets), row-major; the output width is
    /// the targets' for [`Loss::Mse`], twice that for [`Loss::GaussianNll`].
    fn train(&mut self, x: &[f32], y: &[f32], config: &TrainConfig) -> TrainReport;
    /// Saves the weights as safetensors with a metadata entry `nim` holding `metadata`: tensors
    /// `layers.<k>.weight` (`[inputs, outputs]`, row-major) and `layers.<k>.bias`.
    fn save(&self, path: &Path, metadata: &str) -> crate::Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_schedule_runs_from_the_first_to_the_final_rate() {
        let c = TrainConfig {
            learning_rate: 1e-3,
            final_learning_rate: Some(1e-5),
            max_steps: 101,
            ..TrainConfig::default()
        };
        assert_eq!(c.learning_rate_at(0), 1e-3);
        assert!((c.learning_rate_at(50) - 0.5 * (1e-3 + 1e-5)).abs() < 1e-12);
        assert!((c.learning_rate_at(100) - 1e-5).abs() < 1e-15);
        let constant = TrainConfig::default();
        assert_eq!(constant.learning_rate_at(1000), constant.learning_rate);
    }
}
