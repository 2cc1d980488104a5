//! NIM, the MIM paper's neural identification method ([`crate::estimate::nim`]), with models from a
//! directory: an ensemble written by the NIM motion study (`studies/nim_motions*.toml`) (`ensemble.json`,
//! `member<i>/body<k>.safetensors`) or one network per body position from `armid
//! nim-train` or `studies/nim_full.toml` (`body<k>.safetensors`), read as a one-member ensemble
//! ([`crate::estimate::nim::ensemble::Ensemble::load`]). Each body's estimate pools its samples'
//! predictions and the members'; its standard deviation is given where the ensemble is
//! calibrated (an uncalibrated σ would be a number without a meaning). NIM always answers: where
//! the motion does not determine a parameter its estimate is the population's prior.
//!
//! A directory with a joint-level model instead (`joint.json`, [`crate::estimate::nim::joint`],
//! written by `cargo xtask reproduce --only joint_level`) makes `nim` a joint-level identifier:
//! IDIM-OLS on the run's angles and drive torques, its base parameters revised by the network,
//! each with its standard deviation, and the revised torque model (so validation runs get
//! `torque_nrms` rows). A joint-level model of paper sensing (its card's `sensing = "paper"`,
//! written by `cargo xtask reproduce --only paper_sensing`) revises MIM-GLS's body parameters
//! instead ([`crate::estimate::nim::joint::bodies`]).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::estimate::Family;
use crate::estimate::idim::Refined;
use crate::estimate::nim::dense::Dense;
use crate::estimate::nim::joint::{JointNim, Sensing};
use crate::estimate::{
    Estimate, EstimateError, Estimates, Estimator, Experiment, NotApplicable, ParamId,
};

/// Inference through the nalgebra forward pass ([`crate::estimate::nim::dense`]).
type Model = crate::estimate::nim::ensemble::Ensemble<Dense>;

/// The models of a directory: per-body networks, or one joint-level model.
enum Loaded {
    Bodies(Model),
    Joint(Arc<JointNim<Dense>>),
}

impl Loaded {
    fn load(dir: &std::path::Path) -> crate::Result<Loaded> {
        if JointNim::<Dense>::is_in(dir) {
            Ok(Loaded::Joint(Arc::new(JointNim::load(dir)?)))
        } else {
            Ok(Loaded::Bodies(Model::load(dir)?))
        }
    }
}

/// NIM with its models' directory (loaded on first use).
pub struct NimModels {
    dir: Option<PathBuf>,
    /// Inputs from the encoder-only kinematics ([`crate::encoder`]) instead of the sensed body
    /// columns.
    encoders: bool,
    /// The models, loaded once (the error kept for every experiment asked).
    models: OnceLock<Result<Loaded, crate::Error>>,
}

impl NimModels {
    /// NIM with models from `dir` (`None`: not applicable).
    pub fn new(dir: Option<PathBuf>) -> Self {
        NimModels {
            dir,
            encoders: false,
            models: OnceLock::new(),
        }
    }

    /// NIM on the encoder-only kinematics, with models from `dir`.
    pub fn encoders(dir: Option<PathBuf>) -> Self {
        NimModels {
            encoders: true,
            ..Self::new(dir)
        }
    }

    fn models(&self) -> Result<&Loaded, NotApplicable> {
        let dir = self.dir.as_ref().ok_or_else(|| {
            NotApplicable::new(
                "needs trained NIM models (--nim-models DIR from the NIM motion study, \
                 `studies/nim_full.toml` or `armid nim-train`)",
            )
        })?;
        self.models
            .get_or_init(|| Loaded::load(dir))
            .as_ref()
            .map_err(|e| NotApplicable::new(e.to_string()))
    }

    /// The joint-level identifier of `model`, under this estimator's name.
    fn joint(&self, model: &Arc<JointNim<Dense>>) -> Refined {
        Refined {
            name: self.static_name(),
            refine: model.clone(),
        }
    }

    fn static_name(&self) -> &'static str {
        use crate::estimate::EstimatorId;
        if self.encoders {
            EstimatorId::NimEncoders.name()
        } else {
            EstimatorId::Nim.name()
        }
    }
}

impl Estimator for NimModels {
    fn name(&self) -> &str {
        self.static_name()
    }

    fn family(&self) -> Family {
        Family::Nim
    }

    fn needs(&self) -> &str {
        "trained models (--nim-models DIR) and the sensing they were trained on"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let models = match self.models()? {
            Loaded::Joint(_) if self.encoders => {
                return Err(NotApplicable::new(
                    "the models are run-level (`joint.json`): they read least squares on the \
                     sensed run, not encoder-only body kinematics",
                ));
            }
            Loaded::Joint(model) if model.card.sensing == Sensing::Paper => {
                return model.applies_to_bodies(experiment);
            }
            Loaded::Joint(model) => return self.joint(model).applies(experiment),
            Loaded::Bodies(models) => models,
        };
        let data = crate::estimate::single(experiment)?;
        if models.bodies() != data.bodies.len() {
            return Err(NotApplicable::new(format!(
                "needs one NIM model per body: the models cover {} bodies, the run has {}",
                models.bodies(),
                data.bodies.len()
            )));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let err = |e: NotApplicable| e.into_error(self.name());
        self.applies(experiment).map_err(err)?;
        let models = match self.models().map_err(err)? {
            Loaded::Joint(model) if model.card.sensing == Sensing::Paper => {
                return (model.identify_bodies(experiment))
                    .map_err(|e| NotApplicable(e.to_string()).into_error(self.name()));
            }
            Loaded::Joint(model) => return self.joint(model).estimate(experiment),
            Loaded::Bodies(models) => models,
        };
        let view;
        let data = if self.encoders {
            view = crate::estimate::mim::encoder_view(experiment).map_err(err)?;
            &view
        } else {
            crate::estimate::single(experiment).map_err(err)?
        };
        let calibrated = models.calibration.is_fitted();
        let mut out = Estimates::default();
        for i in 0..models.bodies() {
            let e = models.estimate(data, i + 1);
            let b = (i + 1) as u8;
            let ids = [
                ParamId::mass(b),
                ParamId::moment(b, 1),
                ParamId::moment(b, 2),
                ParamId::moment(b, 3),
            ];
            for (k, id) in ids.into_iter().enumerate() {
                let (v, s) = (e.value[k], e.sigma[k]);
                out.values.insert(
                    id,
                    Estimate {
                        value: v.is_finite().then_some(v),
                        std: (calibrated && s.is_finite()).then_some(s),
                    },
                );
            }
        }
        Ok(out)
    }
}
