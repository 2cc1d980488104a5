//! The MLP of the paper's eqs. 21–25 on burn 0.22 (CPU backend `flex`, autodiff, Adam). Hidden
//! layers are `Linear + ReLU`, the output layer is linear. With [`super::set::network`] (the
//! learned set encoder, built from this file's `Net`), the only code that uses burn.

use std::path::Path;

use burn::module::Module;
use burn::nn::{Linear, LinearConfig, Relu};
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::TensorData;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::dense::Dense;
use super::network::{Loss, Network, Predictor, TrainConfig, TrainReport};

/// A burn MLP: `Linear + ReLU` hidden layers, a linear output layer.
#[derive(Module, Debug)]
pub(super) struct Net {
    layers: Vec<Linear>,
    activation: Relu,
}

impl Net {
    /// Layer widths: inputs, hidden…, outputs (weights drawn from the device's stream).
    pub(super) fn new(widths: &[usize], device: &Device) -> Self {
        Net {
            layers: widths
                .windows(2)
                .map(|w| LinearConfig::new(w[0], w[1]).init(device))
                .collect(),
            activation: Relu::new(),
        }
    }

    /// The outputs of rows `x`.
    pub(super) fn forward(&self, mut x: Tensor<2>) -> Tensor<2> {
        let last = self.layers.len() - 1;
        for (i, layer) in self.layers.iter().enumerate() {
            x = layer.forward(x);
            if i < last {
                x = self.activation.forward(x);
            }
        }
        x
    }

    /// The same network for inference without burn ([`Dense`]).
    pub(super) fn dense(&self) -> Dense {
        let values = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().expect("f32 weights");
        Dense::from_layers(
            (self.layers.iter())
                .map(|l| {
                    let [inputs, outputs] = l.weight.dims();
                    let bias = l.bias.as_ref().expect("a bias per layer").val();
                    let bias = bias.into_data().try_to_vec::<f32>().expect("f32 bias");
                    // `[inputs, outputs]` row-major is the `outputs × inputs` matrix column-major.
                    let w = values(l.weight.val());
                    (
                        nalgebra::DMatrix::from_column_slice(outputs, inputs, &w),
                        nalgebra::DVector::from_vec(bias),
                    )
                })
                .collect(),
        )
    }
}

/// The Gaussian negative log-likelihood of [`Loss::GaussianNll`] of predictions `pred`
/// (means, then log-variances, `outputs` each) against `target`, and the means' MSE (the
/// loss is a tensor to differentiate; the MSE one value).
pub(super) fn gaussian_nll(
    pred: Tensor<2>,
    target: Tensor<2>,
    outputs: usize,
    beta: f64,
) -> (Tensor<1>, Tensor<1>) {
    let mean = pred.clone().narrow(1, 0, outputs);
    // Bounded so that one sample cannot blow the loss up or away.
    let log_var = pred.narrow(1, outputs, outputs).clamp(-16.0, 8.0);
    let sq = (mean - target).powf_scalar(2.0);
    let nll = (log_var.clone() + sq.clone() * log_var.clone().neg().exp()) * 0.5;
    let weight = (log_var * beta).exp().detach();
    ((nll * weight).mean(), sq.mean())
}

/// `init` run on an autodiff device with the backend's random stream seeded by `seed`, and the
/// device. The stream is one global and burn initializes parameters lazily, at their first use:
/// `init` must materialize every weight it creates (a forward pass does), and holds one lock
/// while it does, so that networks created on several threads at once each get their seed's
/// weights, exactly as one at a time would (training draws nothing from it: the batch order
/// has its own stream).
pub(super) fn seeded<T>(seed: u64, init: impl FnOnce(&Device) -> T) -> (T, Device) {
    static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _init = INIT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let device = Device::default().autodiff();
    device.seed(seed);
    (init(&device), device)
}

/// The burn implementation of [`Network`].
#[derive(Debug)]
pub struct BurnMlp {
    net: Net,
    device: Device,
    widths: Vec<usize>,
}

/// Rows `rows` (row-major, `cols` wide) as a tensor on `device`.
pub(super) fn tensor(rows: &[f32], cols: usize, device: &Device) -> Tensor<2> {
    Tensor::<2>::from_data(
        TensorData::new(rows.to_vec(), [rows.len() / cols, cols]),
        device,
    )
}

impl Network for BurnMlp {
    /// Weights drawn from `seed` alone, whatever else runs at once (`seeded`; one forward
    /// pass of a zero row materializes them).
    fn new(widths: &[usize], seed: u64) -> Self {
        let (net, device) = seeded(seed, |device| {
            let net = Net::new(widths, device);
            let _ = net.forward(tensor(&vec![0.0; widths[0]], widths[0], device));
            net
        });
        BurnMlp {
            net,
            device,
            widths: widths.to_vec(),
        }
    }

    fn train(&mut self, x: &[f32], y: &[f32], config: &TrainConfig) -> TrainReport {
        let ni = self.widths[0];
        let n = x.len() / ni;
        let no = y.len() / n.max(1);
        let batch = config.batch.min(n).max(1);
        let mut optimizer = AdamConfig::new().init();
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let mut order: Vec<usize> = (0..n).collect();
        let mut net = self.net.clone();
        let t0 = std::time::Instant::now();
        let (mut first, mut last, mut steps) = (f64::NAN, f64::NAN, 0);
        let mut cursor = n;
        while steps < config.max_steps {
            if cursor + batch > n {
                order.shuffle(&mut rng);
                cursor = 0;
            }
            let idx = &order[cursor..cursor + batch];
            cursor += batch;
            let xb: Vec<f32> = idx
                .iter()
                .flat_map(|&i| x[i * ni..(i + 1) * ni].iter().copied())
                .collect();
            let yb: Vec<f32> = idx
                .iter()
                .flat_map(|&i| y[i * no..(i + 1) * no].iter().copied())
                .collect();
            let pred = net.forward(tensor(&xb, ni, &self.device));
            let target = tensor(&yb, no, &self.device);
            let (loss, mse) = match config.loss {
                Loss::Mse => {
                    let mse = (pred - target).powf_scalar(2.0).mean();
                    (mse.clone(), mse)
                }
                Loss::GaussianNll { beta } => gaussian_nll(pred, target, no, beta),
            };
            let value = f64::from(mse.into_data().try_to_vec::<f32>().expect("f32")[0]);
            if steps == 0 {
                first = value;
            }
            last = value;
            steps += 1;
            // Whole-set convergence, as the paper's stopping rule (checked on the full set when
            // the batch is the full set; otherwise on the batch).
            if value < config.target_mse {
                break;
            }
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optimizer.step(config.learning_rate_at(steps - 1), net, grads);
        }
        self.net = net;
        let seconds = t0.elapsed().as_secs_f64();
        TrainReport {
            steps,
            first_mse: first,
            final_mse: last,
            seconds,
            samples_per_second: (steps * batch) as f64 / seconds.max(1e-12),
        }
    }

    fn save(&self, path: &Path, metadata: &str) -> crate::Result<()> {
        // Replaces an existing file (burn writes it atomically either way).
        let mut store = SafetensorsStore::from_file(path)
            .overwrite(true)
            .metadata("nim", metadata);
        self.net
            .save_into(&mut store)
            .map_err(|e| crate::Error::Format {
                path: path.to_path_buf(),
                message: format!("{e:?}"),
            })?;
        canonical_header(path)
    }
}

/// Rewrites the safetensors file at `path` with its JSON header's keys sorted: burn writes the
/// header's metadata from a hash map, so the same weights would otherwise give different bytes
/// from run to run. The header is re-padded with spaces to a multiple of 8 bytes (the format's
/// alignment); the tensor data, addressed from the header's end, is unchanged.
fn canonical_header(path: &Path) -> crate::Result<()> {
    let bad = |message: String| crate::Error::Format {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(crate::Error::io(path))?;
    let n = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
        .filter(|&n| 8 + n <= bytes.len())
        .ok_or_else(|| bad("a safetensors file too short for its header".into()))?;
    // serde_json's map is ordered by key (no `preserve_order`): serializing sorts.
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n])
        .map_err(|e| bad(format!("the safetensors header: {e}")))?;
    let mut text = serde_json::to_string(&header).expect("a JSON value serializes");
    text.push_str(&" ".repeat((8 - text.len() % 8) % 8));
    let mut out = Vec::with_capacity(8 + text.len() + bytes.len() - 8 - n);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&bytes[8 + n..]);
    crate::files::write_atomic_with(path, |tmp| {
        std::fs::write(tmp, &out).map_err(crate::Error::io(tmp))
    })
}

impl Predictor for BurnMlp {
    fn predict(&self, x: &[f32]) -> Vec<f32> {
        let ni = self.widths[0];
        let net = self.net.valid();
        net.forward(tensor(x, ni, &self.device))
            .into_data()
            .try_to_vec::<f32>()
            .expect("f32 output")
    }

    fn load(path: &Path, widths: &[usize]) -> crate::Result<Self> {
        let mut mlp = BurnMlp::new(widths, 0);
        let mut store = SafetensorsStore::from_file(path);
        mlp.net
            .load_from(&mut store)
            .map_err(|e| crate::Error::Format {
                path: path.to_path_buf(),
                message: format!("{e:?}"),
            })?;
        Ok(mlp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> (Vec<f32>, Vec<f32>) {
        // y = (x0 + 2 x1, x0 x1) on a grid.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..8 {
            for j in 0..8 {
                let (a, b) = (i as f32 / 4.0 - 1.0, j as f32 / 4.0 - 1.0);
                x.extend([a, b]);
                y.extend([a + 2.0 * b, a * b]);
            }
        }
        (x, y)
    }

    #[test]
    fn training_decreases_the_loss_and_a_saved_model_reloads_identically() {
        let (x, y) = data();
        let widths = [2, 32, 32, 2];
        let mut mlp = BurnMlp::new(&widths, 1);
        let report = mlp.train(
            &x,
            &y,
            &TrainConfig {
                learning_rate: 1e-2,
                max_steps: 300,
                batch: 64,
                ..TrainConfig::default()
            },
        );
        assert!(report.final_mse < 0.05 * report.first_mse, "{report:?}");
        let path = std::env::temp_dir().join(format!("nim-mlp-{}.safetensors", std::process::id()));
        mlp.save(&path, "{\"test\": true}").unwrap();
        let loaded = BurnMlp::load(&path, &widths).unwrap();
        assert_eq!(mlp.predict(&x), loaded.predict(&x));
        // The same weights give the same bytes, save after save (the header's keys sorted).
        let first = std::fs::read(&path).unwrap();
        for _ in 0..4 {
            mlp.save(&path, "{\"test\": true}").unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), first);
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn the_dense_copy_of_a_burn_network_gives_its_outputs() {
        let (x, _) = data();
        let mlp = BurnMlp::new(&[2, 16, 8, 3], 4);
        let dense = mlp.net.dense();
        assert_eq!(dense.widths(), vec![2, 16, 8, 3]);
        for (a, b) in mlp.predict(&x).iter().zip(dense.forward(&x)) {
            assert!((a - b).abs() < 1e-5, "{a} {b}");
        }
    }

    #[test]
    fn gaussian_nll_learns_where_the_targets_are_noisy() {
        // y = x0 + σ(x1)·ε with σ = 0.05 for x1 < 0 and 0.5 for x1 > 0: the predicted
        // log-variance (second output) must separate the halves.
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..2048 {
            let a: f32 = rand::Rng::random_range(&mut rng, -1.0..1.0);
            let b: f32 = rand::Rng::random_range(&mut rng, -1.0..1.0);
            let e: f32 = StandardNormal.sample(&mut rng);
            x.extend([a, b]);
            y.push(a + if b < 0.0 { 0.05 } else { 0.5 } * e);
        }
        let mut mlp = BurnMlp::new(&[2, 32, 32, 2], 1);
        let config = TrainConfig {
            learning_rate: 3e-3,
            max_steps: 1500,
            batch: 256,
            loss: Loss::GaussianNll { beta: 0.5 },
            ..TrainConfig::default()
        };
        mlp.train(&x, &y, &config);
        let out = mlp.predict(&[0.0, -0.5, 0.0, 0.5]);
        let (quiet, noisy) = (f64::from(out[1]).exp(), f64::from(out[3]).exp());
        // True variances 0.0025 and 0.25.
        assert!(noisy > 20.0 * quiet, "variances {quiet:e}, {noisy:e}");
        assert!((0.1..0.6).contains(&noisy), "{noisy}");
        assert!(
            (f64::from(out[0])).abs() < 0.1 && (f64::from(out[2])).abs() < 0.2,
            "{out:?}"
        );
    }
}
