//! NIM, the MIM paper's neural identification method ([`crate::nim`]), with models trained by
//! `cargo xtask nim-train` (one network per body position, `body<k>.safetensors` in a
//! directory). Each body's estimate pools its samples' predictions
//! ([`crate::nim::population::pool`]). NIM gives no standard deviation, and it always answers:
//! where the motion does not determine a parameter its estimate is the population's prior.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use super::{Estimate, EstimateError, Estimates, Estimator, Experiment, NotApplicable, ParamId};
use crate::nim::dense::Dense;
use crate::nim::features::rows;
use crate::nim::population::pool;

/// Inference through the nalgebra forward pass ([`crate::nim::dense`]).
type Model = crate::nim::Nim<Dense>;

/// NIM with its models' directory (loaded on first use).
pub struct Nim {
    dir: Option<PathBuf>,
    /// Inputs from the encoder-only kinematics ([`crate::encoder`]) instead of the sensed body
    /// columns.
    encoders: bool,
    models: OnceLock<Result<Vec<Mutex<Model>>, String>>,
}

impl Nim {
    /// NIM with models from `dir` (`None`: not applicable).
    pub fn new(dir: Option<PathBuf>) -> Self {
        Nim {
            dir,
            encoders: false,
            models: OnceLock::new(),
        }
    }

    /// NIM on the encoder-only kinematics, with models from `dir`.
    pub fn encoders(dir: Option<PathBuf>) -> Self {
        Nim {
            encoders: true,
            ..Self::new(dir)
        }
    }

    fn models(&self) -> Result<&[Mutex<Model>], NotApplicable> {
        let dir = self.dir.as_ref().ok_or_else(|| {
            NotApplicable::new(
                "needs trained NIM models (--nim-models DIR from `cargo xtask nim-train`)",
            )
        })?;
        self.models
            .get_or_init(|| {
                let mut out = Vec::new();
                for b in 1.. {
                    let path = dir.join(format!("body{b}.safetensors"));
                    if !path.exists() {
                        break;
                    }
                    out.push(Mutex::new(Model::load(&path)?));
                }
                if out.is_empty() {
                    return Err(format!(
                        "needs NIM models body1.safetensors, … in {}; it has none",
                        dir.display()
                    ));
                }
                Ok(out)
            })
            .as_deref()
            .map_err(|e| NotApplicable::new(e.clone()))
    }
}

impl Estimator for Nim {
    fn name(&self) -> &'static str {
        if self.encoders { "nim_encoders" } else { "nim" }
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let data = super::single(experiment)?;
        let models = self.models()?;
        if models.len() != data.bodies.len() {
            return Err(NotApplicable::new(format!(
                "needs one NIM model per body: the models cover {} bodies, the run has {}",
                models.len(),
                data.bodies.len()
            )));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let err = |e: NotApplicable| e.into_error(self.name());
        self.applies(experiment).map_err(err)?;
        let view;
        let data = if self.encoders {
            view = super::encoders::encoder_view(experiment).map_err(err)?;
            &view
        } else {
            super::single(experiment).map_err(err)?
        };
        let samples: Vec<usize> = (0..data.samples()).collect();
        let mut out = Estimates::default();
        for (i, model) in self.models().map_err(err)?.iter().enumerate() {
            let nim = model.lock().expect("a NIM model lock");
            let e = pool(&nim.predict(&rows(data, i + 1, nim.schema, &samples)));
            let b = (i + 1) as u8;
            let ids = [
                ParamId::mass(b),
                ParamId::moment(b, 1),
                ParamId::moment(b, 2),
                ParamId::moment(b, 3),
            ];
            for (id, v) in ids.into_iter().zip(e) {
                out.values
                    .insert(id, Estimate::value(v.is_finite().then_some(v)));
            }
        }
        Ok(out)
    }
}
