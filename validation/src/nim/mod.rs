//! NIM, the MIM paper's neural identifier (its eqs. 21–25 and Algorithm 1): an MLP per body
//! from per-sample measurements to `(m, J11, J22, J33)`.

pub mod features;
pub mod mlp;
pub mod network;
pub mod population;
pub mod protocol;

pub use features::{Inputs, Scaler};
pub use network::{Network, TrainConfig, TrainReport};

/// The paper's layer widths between inputs and the 4 outputs: five hidden layers of 128.
pub const HIDDEN: [usize; 5] = [128; 5];

/// Outputs, in order.
pub const OUTPUTS: [&str; 4] = ["m", "j11", "j22", "j33"];

/// A trained NIM for one body kind: the network with the standardization of its inputs and
/// targets and its input schema.
pub struct Nim<N: Network> {
    /// The network (standardized inputs → standardized targets).
    pub network: N,
    /// Input standardization.
    pub inputs: Scaler,
    /// Target standardization.
    pub targets: Scaler,
    /// Which inputs.
    pub schema: Inputs,
}

/// Metadata stored beside the weights.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    inputs: Scaler,
    targets: Scaler,
    input_names: Vec<String>,
    output_names: Vec<String>,
    hidden: Vec<usize>,
}

impl<N: Network> Nim<N> {
    /// Trains on input rows `x` (the schema's columns) against label rows `y` (`OUTPUTS`).
    pub fn train(
        schema: Inputs,
        x: &[f32],
        y: &[f32],
        config: &TrainConfig,
    ) -> (Self, TrainReport) {
        let inputs = Scaler::fit(x, schema.len());
        let targets = Scaler::fit(y, OUTPUTS.len());
        let mut widths = vec![schema.len()];
        widths.extend(HIDDEN);
        widths.push(OUTPUTS.len());
        let mut network = N::new(&widths, config.seed);
        let report = network.train(&inputs.apply(x), &targets.apply(y), config);
        (
            Nim {
                network,
                inputs,
                targets,
                schema,
            },
            report,
        )
    }

    /// `(m, J11, J22, J33)` per input row.
    pub fn predict(&self, x: &[f32]) -> Vec<[f64; 4]> {
        let z = self.network.predict(&self.inputs.apply(x));
        self.targets
            .invert(&z)
            .chunks(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect()
    }

    /// Saves weights (safetensors) with the standardization and input schema as metadata.
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        let meta = Stored {
            inputs: self.inputs.clone(),
            targets: self.targets.clone(),
            input_names: self.schema.names(),
            output_names: OUTPUTS.map(String::from).to_vec(),
            hidden: HIDDEN.to_vec(),
        };
        self.network
            .save(path, &serde_json::to_string(&meta).expect("serializes"))
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
        let schema = match meta.input_names.len() {
            18 => Inputs::Paper,
            24 => Inputs::WithChild,
            n => return Err(format!("{}: {n} inputs; expected 18 or 24", path.display())),
        };
        let mut widths = vec![schema.len()];
        widths.extend(&meta.hidden);
        widths.push(OUTPUTS.len());
        Ok(Nim {
            network: N::load(path, &widths)?,
            inputs: meta.inputs,
            targets: meta.targets,
            schema,
        })
    }
}
