//! NIM, the MIM paper's neural identifier (its eqs. 21–25 and Algorithm 1): an MLP per body
//! from per-sample measurements to `(m, J11, J22, J33)`. [`protocol`] reproduces the paper's
//! one-run protocol; [`population`] is the version trained on many arms and scored on unseen
//! ones (with the changes it needs, documented there).

pub mod dense;
pub mod ensemble;
pub mod features;
pub mod mlp;
pub mod network;
pub mod population;
pub mod protocol;
pub mod targets;

pub use features::{Inputs, Scaler};
pub use network::{Loss, Network, Predictor, TrainConfig, TrainReport};
pub use targets::Parametrization;

/// The paper's layer widths between inputs and the 4 outputs: five hidden layers of 128.
pub const HIDDEN: [usize; 5] = [128; 5];

/// Outputs, in order.
pub const OUTPUTS: [&str; 4] = ["m", "j11", "j22", "j33"];

/// A trained NIM for one body kind: the network with the standardization of its inputs and
/// targets and its input schema.
pub struct Nim<N: Predictor> {
    /// The network (standardized inputs → standardized targets).
    pub network: N,
    /// Input standardization.
    pub inputs: Scaler,
    /// Target standardization.
    pub targets: Scaler,
    /// Which inputs.
    pub schema: Inputs,
    /// Whether the network also outputs a log-variance per target ([`Loss::GaussianNll`]).
    pub variance: bool,
    /// What the targets are ([`targets`]).
    pub parametrization: Parametrization,
}

/// Smallest scale of a logarithmic target (e-folds): labels that barely vary (one body's, as in
/// the paper's protocol) are standardized against 5 % relative, not against their magnitude.
pub const LOG_TARGET_FLOOR: f64 = 0.05;

/// Bound on a standardized network input at inference, in standard deviations of the training
/// inputs: far outside any training data, yet no layer can overflow `f32`.
pub const INPUT_BOUND: f32 = 1e6;

/// Bound on a standardized network output (mean) at inference, in standard deviations of the
/// training targets: any input, however far from the training data, decodes to finite values.
pub const OUTPUT_BOUND: f32 = 12.0;
/// Bounds on a predicted log-variance (standardized), as in training ([`Loss::GaussianNll`]).
pub const LOG_VARIANCE_BOUNDS: (f32, f32) = (-16.0, 8.0);

/// One sample's prediction of `(m, J11, J22, J33)` (kg, kg·m²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The predicted values.
    pub value: [f64; 4],
    /// Their predicted variances (kg², kg²·m⁴; to first order from the targets'), `None` for
    /// a network trained with MSE.
    pub variance: Option<[f64; 4]>,
    /// The predicted targets ([`Parametrization`]), which pooling averages.
    pub targets: [f64; 4],
    /// Their predicted variances.
    pub target_variance: Option<[f64; 4]>,
    /// What the targets are.
    pub parametrization: Parametrization,
}

/// Metadata stored beside the weights.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    inputs: Scaler,
    targets: Scaler,
    input_names: Vec<String>,
    output_names: Vec<String>,
    hidden: Vec<usize>,
    /// Outputs carry a log-variance per target after the means.
    #[serde(default)]
    log_variance: bool,
    /// What the targets are (absent in models saved before: direct values).
    #[serde(default)]
    parametrization: Parametrization,
}

/// Layer widths of a NIM: inputs, [`HIDDEN`], outputs (the targets, and their log-variances).
fn widths(inputs: usize, hidden: &[usize], variance: bool) -> Vec<usize> {
    let mut w = vec![inputs];
    w.extend(hidden);
    w.push(OUTPUTS.len() * if variance { 2 } else { 1 });
    w
}

impl<N: Network> Nim<N> {
    /// Trains on input rows `x` (the schema's columns) against label rows `y` (`OUTPUTS`),
    /// regressing [`Parametrization::LogSecondMoments`]: every output a valid body.
    pub fn train(
        schema: Inputs,
        x: &[f32],
        y: &[f32],
        config: &TrainConfig,
    ) -> (Self, TrainReport) {
        Self::train_as(Parametrization::LogSecondMoments, schema, x, y, config)
    }

    /// [`Nim::train`] with the targets represented as `parametrization`.
    pub fn train_as(
        parametrization: Parametrization,
        schema: Inputs,
        x: &[f32],
        y: &[f32],
        config: &TrainConfig,
    ) -> (Self, TrainReport) {
        let y: Vec<f32> = y
            .chunks(OUTPUTS.len())
            .flat_map(|v| {
                let v = [v[0], v[1], v[2], v[3]].map(f64::from);
                let z = parametrization.encode(v);
                assert!(
                    z.iter().all(|z| z.is_finite()),
                    "NIM labels must be bodies with m > 0 and positive moments, got {v:?}"
                );
                z.map(|z| z as f32)
            })
            .collect();
        let inputs = Scaler::fit(x, schema.len(), features::COMPONENTS);
        let targets = match parametrization {
            Parametrization::Direct => Scaler::fit(&y, OUTPUTS.len(), 1),
            // Logarithms: spread in e-folds, at least LOG_TARGET_FLOOR.
            Parametrization::LogSecondMoments => {
                Scaler::fit_spread(&y, OUTPUTS.len(), LOG_TARGET_FLOOR)
            }
        };
        let variance = matches!(config.loss, Loss::GaussianNll { .. });
        let mut network = N::new(&widths(schema.len(), &HIDDEN, variance), config.seed);
        let report = network.train(&inputs.apply(x), &targets.apply(&y), config);
        (
            Nim {
                network,
                inputs,
                targets,
                schema,
                variance,
                parametrization,
            },
            report,
        )
    }

    /// Saves weights (safetensors) with the standardization and input schema as metadata.
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let meta = Stored {
            inputs: self.inputs.clone(),
            targets: self.targets.clone(),
            input_names: self.schema.names(),
            output_names: OUTPUTS.map(String::from).to_vec(),
            hidden: HIDDEN.to_vec(),
            log_variance: self.variance,
            parametrization: self.parametrization,
        };
        self.network
            .save(path, &serde_json::to_string(&meta).expect("serializes"))
    }
}

impl<N: Predictor> Nim<N> {
    /// The prediction for each input row, in one batch. Standardized inputs are bounded
    /// ([`INPUT_BOUND`]: no overflow inside the network) and so are the outputs
    /// ([`OUTPUT_BOUND`], [`LOG_VARIANCE_BOUNDS`]), so that any finite input gives finite values,
    /// and with [`Parametrization::LogSecondMoments`] a physically valid body. A non-finite
    /// input (never in a valid dataset) gives NaN.
    pub fn predict(&self, x: &[f32]) -> Vec<Prediction> {
        let mut standardized = self.inputs.apply(x);
        standardized
            .iter_mut()
            .for_each(|v| *v = v.clamp(-INPUT_BOUND, INPUT_BOUND));
        let z = self.network.predict(&standardized);
        let n = OUTPUTS.len();
        let (lo, hi) = LOG_VARIANCE_BOUNDS;
        z.chunks(if self.variance { 2 * n } else { n })
            .map(|row| {
                let mean: Vec<f32> = row[..n]
                    .iter()
                    .map(|v| v.clamp(-OUTPUT_BOUND, OUTPUT_BOUND))
                    .collect();
                let t = self.targets.invert(&mean);
                let targets = [t[0], t[1], t[2], t[3]];
                let target_variance = self.variance.then(|| {
                    std::array::from_fn(|i| {
                        f64::from(row[n + i].clamp(lo, hi)).exp() * self.targets.scale[i].powi(2)
                    })
                });
                let p = self.parametrization;
                Prediction {
                    value: p.decode(targets),
                    variance: target_variance.map(|v| p.decode_variance(targets, v)),
                    targets,
                    target_variance,
                    parametrization: p,
                }
            })
            .collect()
    }

    /// Loads a model saved by [`Nim::save`].
    pub fn load(path: &std::path::Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (_, header) = safetensors::SafeTensors::read_metadata(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let text = header
            .metadata()
            .as_ref()
            .and_then(|m| m.get("nim"))
            .ok_or_else(|| format!("{}: no `nim` metadata (not a NIM model)", path.display()))?;
        let meta: Stored =
            serde_json::from_str(text).map_err(|e| format!("{}: metadata: {e}", path.display()))?;
        let schema = Inputs::ALL
            .into_iter()
            .find(|i| i.names() == meta.input_names)
            .ok_or_else(|| {
                format!(
                    "{}: input_names {:?} match no NIM input schema (paper 18, with-child 24, centroidal 15, normalized 15)",
                    path.display(),
                    meta.input_names
                )
            })?;
        Ok(Nim {
            network: N::load(path, &widths(schema.len(), &meta.hidden, meta.log_variance))?,
            inputs: meta.inputs,
            targets: meta.targets,
            schema,
            variance: meta.log_variance,
            parametrization: meta.parametrization,
        })
    }
}
