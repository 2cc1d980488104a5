//! The registry: every estimator of the project by name ([`registry`], [`EstimatorId`]), with
//! what it needs from outside the data ([`Options`]).

use std::path::PathBuf;

use crate::estimate::{Estimator, EstimatorId};
use crate::estimate::{frequency, idim, mim, nim, time_domain};

/// What the registry needs from outside the data.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A directory of NIM models (`armid nim-train` output: `body<k>.safetensors`).
    pub nim_models: Option<PathBuf>,
    /// A prior model (URDF or MJCF, e.g. the CAD model) for the standard-parameter identifiers.
    pub prior: Option<PathBuf>,
}

/// The names of the registry's estimators, in its order.
pub fn registry_names() -> Vec<String> {
    let estimators = registry(&Options::default());
    estimators.iter().map(|e| e.name().to_owned()).collect()
}

/// The registry's estimators (with `options`), only those `only` names where given; `Err`
/// names the first unknown name and the known ones.
pub fn chosen(
    options: &Options,
    only: Option<&[String]>,
) -> crate::Result<Vec<Box<dyn Estimator>>> {
    let mut estimators = registry(options);
    if let Some(names) = only {
        let known: Vec<String> = estimators.iter().map(|e| e.name().to_owned()).collect();
        if let Some(bad) = names.iter().find(|n| !known.contains(n)) {
            return Err(crate::Error::UnknownEstimator {
                name: bad.clone(),
                known,
            });
        }
        estimators.retain(|e| names.iter().any(|n| n == e.name()));
    }
    Ok(estimators)
}

/// Every estimator of the project, with its default settings.
pub fn registry(options: &Options) -> Vec<Box<dyn Estimator>> {
    vec![
        Box::new(mim::SingleInstant::paper()),
        Box::new(mim::Stacked::default()),
        Box::new(mim::WholeArm::default()),
        Box::new(mim::WholeArmGls),
        Box::new(mim::Standard),
        Box::new(mim::MimEncoders),
        Box::new(frequency::Paper::default()),
        Box::new(frequency::Linearized::default()),
        Box::new(time_domain::TimeDomain::recorded()),
        Box::new(time_domain::TimeDomain::fourier()),
        Box::new(idim::SweepFit),
        Box::new(idim::IdimOls),
        Box::new(idim::IdimWls),
        Box::new(idim::IdimTls),
        Box::new(idim::IdimIrls),
        Box::new(idim::Iv::default()),
        Box::new(idim::Didim::default()),
        Box::new(idim::Cloe::default()),
        Box::new(idim::Ekf),
        Box::new(idim::Ukf),
        Box::new(idim::TwoStep),
        Box::new(idim::Adaptive::default()),
        Box::new(idim::IdimPrior::new(options.prior.clone())),
        Box::new(idim::IdimConsistent::new(options.prior.clone())),
        Box::new(idim::IdimSingle),
        Box::new(nim::NimModels::new(options.nim_models.clone())),
        Box::new(nim::NimModels::encoders(options.nim_models.clone())),
    ]
}

/// The estimator named `name`, if registered.
pub fn by_name(options: &Options, name: &str) -> Option<Box<dyn Estimator>> {
    registry(options).into_iter().find(|e| e.name() == name)
}

/// The registry's estimator `id` (with `options`).
pub fn by_id(options: &Options, id: EstimatorId) -> Box<dyn Estimator> {
    by_name(options, id.name()).expect("every identifier is registered (`estimate::id`'s test)")
}
