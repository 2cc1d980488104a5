//! The network NIM trains, behind a small trait so that only [`super::mlp`] compiles against
//! the neural-network crate.

use std::path::Path;

/// Training settings (the paper's Algorithm 1: Adam, lr 2.5e-4, MSE, stop at MSE < 1e-5).
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// Adam learning rate.
    pub learning_rate: f64,
    /// Stop when the training MSE (standardized units) falls below this.
    pub target_mse: f64,
    /// Largest number of optimizer steps.
    pub max_steps: usize,
    /// Mini-batch size (the whole set when larger).
    pub batch: usize,
    /// Seed of the weight initialization and the batch order.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            learning_rate: 2.5e-4,
            target_mse: 1e-5,
            max_steps: 20_000,
            batch: 256,
            seed: 0,
        }
    }
}

/// What a training run did.
#[derive(Clone, Debug)]
pub struct TrainReport {
    /// Optimizer steps taken.
    pub steps: usize,
    /// Training MSE (standardized units) at the first step and at the end.
    pub first_mse: f64,
    /// Final training MSE.
    pub final_mse: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Samples processed per second (steps × batch / seconds).
    pub samples_per_second: f64,
}

/// A regression network: `inputs → outputs`, rows of `f32`.
pub trait Network: Sized {
    /// A fresh network with the given layer widths (inputs, hidden…, outputs).
    fn new(widths: &[usize], seed: u64) -> Self;
    /// Trains on rows `x` (n × inputs) against `y` (n × outputs), row-major.
    fn train(&mut self, x: &[f32], y: &[f32], config: &TrainConfig) -> TrainReport;
    /// Predictions for rows `x`, row-major.
    fn predict(&self, x: &[f32]) -> Vec<f32>;
    /// Saves the weights as safetensors with a metadata entry `nim` holding `metadata`.
    fn save(&self, path: &Path, metadata: &str) -> Result<(), String>;
    /// Loads weights saved by [`Network::save`] into a network of the given widths.
    fn load(path: &Path, widths: &[usize]) -> Result<Self, String>;
}
