//! NIM, the MIM paper's neural identifier (its eqs. 21–25 and Algorithm 1): an MLP per body
//! from per-sample measurements to `(m, J11, J22, J33)`. [`protocol`] reproduces the paper's
//! one-run protocol; [`population`] is the version trained on many arms and scored on unseen
//! ones (with the changes it needs, documented there).

pub mod dense;
pub mod ensemble;
pub mod estimator;
pub mod features;
pub mod joint;
pub mod mlp;
pub mod network;
pub mod pooling;
pub mod population;
pub mod protocol;
pub mod saved;
pub mod set;
pub mod targets;

pub use estimator::NimModels;
pub use features::{Inputs, Scaler};
pub use network::{Loss, Network, Predictor, TrainConfig, TrainReport};
pub use targets::Parametrization;

/// The paper's layer widths between inputs and the 4 outputs: five hidden layers of 128.
pub const HIDDEN: [usize; 5] = [128; 5];

/// Outputs, in order.
pub(crate) const OUTPUTS: [&str; 4] = ["m", "j11", "j22", "j33"];

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
pub(crate) const LOG_TARGET_FLOOR: f64 = 0.05;

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

/// The input column a NIM's `ln m` target is relative to ([`Nim::train_as`]): the schema's
/// `ln |F/a|`, with log targets only.
fn log_mass_column(parametrization: Parametrization, schema: Inputs) -> Option<usize> {
    match parametrization {
        Parametrization::LogSecondMoments => schema.log_mass_column(),
        Parametrization::Direct => None,
    }
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

    /// [`Nim::train`] with the targets represented as `parametrization`. With log targets and a
    /// schema that carries `ln |F/a|` ([`Inputs::log_mass_column`]), the network regresses
    /// `ln m − ln |F/a|`, the sample's departure from Newton's equation (zero without noise),
    /// and the prediction adds `ln |F/a|` back ([`Nim::log_mass_baseline`]). Without it, a
    /// network whose every output shares one trunk pulls the mass of a body at the edge of the
    /// population towards the population's usual mass for the body's rotational response:
    /// measured on `population_motions` (600 arms), the heaviest held-out B2 (1066 kg) came out
    /// 0.1–6.6 % light, sample by sample, although its `ln |F/a|` input read 1066 kg at every
    /// sample.
    pub(crate) fn train_as(
        parametrization: Parametrization,
        schema: Inputs,
        x: &[f32],
        y: &[f32],
        config: &TrainConfig,
    ) -> (Self, TrainReport) {
        let column = log_mass_column(parametrization, schema);
        let baseline = |row: &[f32]| column.map_or(0.0, |c| f64::from(row[c]));
        let y: Vec<f32> = y
            .chunks(OUTPUTS.len())
            .zip(x.chunks(schema.len()))
            .flat_map(|(v, row)| {
                let v = [v[0], v[1], v[2], v[3]].map(f64::from);
                let mut z = parametrization.encode(v);
                assert!(
                    z.iter().all(|z| z.is_finite()),
                    "NIM labels must be bodies with m > 0 and positive moments, got {v:?}"
                );
                z[0] -= baseline(row);
                z.map(|z| z as f32)
            })
            .collect();
        let inputs = Scaler::fit(x, &schema.group_sizes());
        let targets = match parametrization {
            Parametrization::Direct => Scaler::fit(&y, &[1; OUTPUTS.len()]),
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
    pub fn save(&self, path: &std::path::Path) -> crate::Result<()> {
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
            .zip(x.chunks(self.schema.len()))
            .map(|(row, input)| {
                let mean: Vec<f32> = row[..n]
                    .iter()
                    .map(|v| v.clamp(-OUTPUT_BOUND, OUTPUT_BOUND))
                    .collect();
                let t = self.targets.invert(&mean);
                let base = self.log_mass_baseline(input);
                let targets = [t[0] + base, t[1], t[2], t[3]];
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

    /// What the network's first target is relative to for input row `row`: `ln |F/a|` where
    /// [`Nim::train_as`] says so (bounded to [`OUTPUT_BOUND`] standard deviations of its
    /// training values, so that any input decodes to a finite mass), else 0.
    pub(crate) fn log_mass_baseline(&self, row: &[f32]) -> f64 {
        log_mass_column(self.parametrization, self.schema).map_or(0.0, |c| {
            let (mean, scale) = (self.inputs.mean[c], self.inputs.scale[c]);
            let bound = f64::from(OUTPUT_BOUND) * scale;
            mean + (f64::from(row[c]) - mean).clamp(-bound, bound)
        })
    }

    /// Loads a model saved by [`Nim::save`].
    pub fn load(path: &std::path::Path) -> crate::Result<Self> {
        let bytes = std::fs::read(path).map_err(crate::Error::io(path))?;
        let (_, header) =
            safetensors::SafeTensors::read_metadata(&bytes).map_err(|e| crate::Error::Format {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let text = header
            .metadata()
            .as_ref()
            .and_then(|m| m.get("nim"))
            .ok_or_else(|| crate::Error::Format {
                path: path.to_path_buf(),
                message: "no `nim` metadata (not a NIM model)".into(),
            })?;
        let meta: Stored = serde_json::from_str(text).map_err(|e| crate::Error::Format {
            path: path.to_path_buf(),
            message: format!("metadata: {e}"),
        })?;
        let schema = Inputs::ALL
            .into_iter()
            .find(|i| i.names() == meta.input_names)
            .ok_or_else(|| {
                let known: Vec<String> = Inputs::ALL
                    .iter()
                    .map(|i| format!("{} ({})", i.id(), i.len()))
                    .collect();
                crate::Error::Format {
                    path: path.to_path_buf(),
                    message: format!(
                        "input_names {:?} match no NIM input schema ({})",
                        meta.input_names,
                        known.join(", ")
                    ),
                }
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
