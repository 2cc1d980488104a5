//! NIM's forward pass with nalgebra, from the weights a [`super::Network`] saved: inference
//! without the training framework. burn builds tensors and dispatches each layer per call, a
//! fixed cost that dominates small batches; here a batch of rows is one matrix and each layer one
//! matrix product (nalgebra → `matrixmultiply`'s SGEMM), so a whole run's samples of a body cost
//! a few microseconds each. Tested to agree with [`super::mlp::BurnMlp`] to 1e-6.
//!
//! The file layout is [`super::Network::save`]'s: `layers.<k>.weight` as `[inputs, outputs]`
//! row-major f32 and `layers.<k>.bias`; hidden layers are followed by ReLU, the last is linear.

use std::path::Path;

use nalgebra::{DMatrix, DVector};
use safetensors::{Dtype, SafeTensors};

use super::network::Predictor;

/// An MLP's layers: weight `outputs × inputs`, bias `outputs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    layers: Vec<(DMatrix<f32>, DVector<f32>)>,
}

impl Dense {
    /// The MLP of `layers`: weight `outputs × inputs` and bias `outputs` each, ReLU after every
    /// layer but the last.
    pub(crate) fn from_layers(layers: Vec<(DMatrix<f32>, DVector<f32>)>) -> Self {
        Dense { layers }
    }

    /// Layer widths: inputs, hidden…, outputs.
    pub fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.layers.iter().map(|(m, _)| m.ncols()).collect();
        w.extend(self.layers.last().map(|(m, _)| m.nrows()));
        w
    }

    /// The outputs (`rows × outputs`, row-major) of rows `x` (`rows × inputs`, row-major).
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        let inputs = self.layers.first().map_or(0, |(m, _)| m.ncols());
        let rows = x.len() / inputs.max(1);
        // Column-major: column r is row r of `x`.
        let mut h = DMatrix::from_column_slice(inputs, rows, &x[..rows * inputs]);
        let last = self.layers.len().saturating_sub(1);
        for (k, (w, b)) in self.layers.iter().enumerate() {
            let mut z = w * &h;
            for mut column in z.column_iter_mut() {
                column += b;
                if k < last {
                    column.apply(|v| *v = v.max(0.0));
                }
            }
            h = z;
        }
        h.as_slice().to_vec()
    }
}

/// A tensor of the file as f32 values with its shape; `Err` names the file and tensor.
fn tensor(file: &SafeTensors, name: &str, origin: &Path) -> crate::Result<(Vec<f32>, Vec<usize>)> {
    let format = |message: String| crate::Error::Format {
        path: origin.to_path_buf(),
        message: format!("tensor `{name}`: {message}"),
    };
    let t = file.tensor(name).map_err(|e| format(e.to_string()))?;
    if t.dtype() != Dtype::F32 {
        return Err(format(format!("expected F32, got {:?}", t.dtype())));
    }
    let values = t
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok((values, t.shape().to_vec()))
}

impl Predictor for Dense {
    fn predict(&self, x: &[f32]) -> Vec<f32> {
        self.forward(x)
    }

    fn load(path: &Path, widths: &[usize]) -> crate::Result<Self> {
        let bytes = std::fs::read(path).map_err(crate::Error::io(path))?;
        let file = SafeTensors::deserialize(&bytes).map_err(|e| crate::Error::Format {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let layers = widths
            .windows(2)
            .enumerate()
            .map(|(k, w)| {
                let (weight, shape) = tensor(&file, &format!("layers.{k}.weight"), path)?;
                let (bias, bias_shape) = tensor(&file, &format!("layers.{k}.bias"), path)?;
                if shape != [w[0], w[1]] || bias_shape != [w[1]] {
                    return Err(crate::Error::Format {
                        path: path.to_path_buf(),
                        message: format!(
                            "layer {k}: expected weight [{}, {}] and bias [{}], got {shape:?} and {bias_shape:?}",
                            w[0], w[1], w[1]
                        ),
                    });
                }
                // `[inputs, outputs]` row-major is the `outputs × inputs` matrix column-major.
                Ok((
                    DMatrix::from_column_slice(w[1], w[0], &weight),
                    DVector::from_vec(bias),
                ))
            })
            .collect::<crate::Result<Vec<_>>>()?;
        Ok(Dense { layers })
    }
}
