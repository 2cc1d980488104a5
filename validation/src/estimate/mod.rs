//! The estimation API: one trait for every estimator of the project, over an [`Experiment`],
//! returning estimates keyed by typed parameter identifiers ([`ParamId`]).
//!
//! Every estimator sees only what the sensors gave ([`crate::dataset::Run::measurements`]) and
//! the experiment's design (drive references, torque signals, the stated sensor models: a
//! datasheet, not the noise drawn). The truth is read only by the scorer
//! ([`crate::param::truth_table`]).
//!
//! One folder per estimator family holds its algorithms and their bindings to this API: [`mim`] (the MIM paper's method, per body, whole-arm, GLS, standard
//! parameters, encoder-only), [`frequency`] and [`time_domain`] (the multisine paper's
//! estimators on a known geometry), [`idim`] (whole-arm identification from joint torques: the
//! teaching paper's pipeline, IDIM-OLS/WLS/TLS, with a prior, physically consistent) and [`nim`]
//! (the MIM paper's neural identifier); in [`idim`] each registry name is one type in its own
//! file. Adding an estimator is one new file in its family and one line in [`registry`].
//! [`engine`] runs them ([`engine::run`]: the one place an estimator is applied) and
//! [`score`] scores what they give.

pub mod choice;
pub mod engine;
pub mod experiment;
pub mod external;
pub mod frequency;
pub mod id;
pub mod idim;
pub mod known_geometry;
pub mod mim;
pub mod nim;
pub mod score;
pub mod time_domain;

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::param::{Estimate, ParamId, Values};
pub use experiment::{Experiment, Role};
pub use id::EstimatorId;
use idim::TorqueModel;

/// An estimator that cannot run on the given data.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{estimator}: {message}")]
pub struct EstimateError {
    /// The estimator's name.
    pub estimator: String,
    /// What is missing or wrong.
    pub message: String,
}

/// What an estimator returns.
#[derive(Default)]
pub struct Estimates {
    /// Per parameter.
    pub values: Values,
    /// The identified torque model, for methods that give one.
    pub predictor: Option<Box<dyn TorqueModel>>,
    /// For online methods: `(t, estimates)` over the data, `t` in seconds of data consumed.
    pub history: Vec<(f64, BTreeMap<ParamId, f64>)>,
    /// For methods that estimate standard parameters: one set per link, link frames of the
    /// run's kinematics (may be physically inconsistent: [`sim::physical::check`]).
    pub standard: Option<Vec<sim::dynamics::StandardParameters>>,
    /// The identified model (the run's kinematics with the estimated bodies), where every body
    /// is physically consistent; it can be written as URDF.
    pub model: Option<sim::model::Chain>,
}

impl std::fmt::Debug for Estimates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Estimates")
            .field("values", &self.values)
            .field("predictor", &self.predictor.is_some())
            .field("history", &self.history.len())
            .field("standard", &self.standard)
            .field("model", &self.model.as_ref().map(|m| &m.name))
            .finish()
    }
}

/// Why an estimator does not apply to an experiment: one clear sentence.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotApplicable(pub String);

impl NotApplicable {
    /// A reason.
    pub fn new(reason: impl Into<String>) -> Self {
        NotApplicable(reason.into())
    }

    /// The error of estimator `name` called where it does not apply.
    pub(crate) fn into_error(self, name: &str) -> EstimateError {
        EstimateError {
            estimator: name.into(),
            message: self.0,
        }
    }
}

/// At least `n` samples in the single run, or why the method (`what` needs them) does not apply.
pub(crate) fn enough_samples<'a>(
    experiment: &Experiment<'a>,
    n: usize,
    what: &str,
) -> Result<&'a crate::dataset::Measurements, NotApplicable> {
    let data = single(experiment)?;
    if data.samples() < n {
        return Err(NotApplicable::new(format!(
            "needs at least {n} samples ({what})"
        )));
    }
    Ok(data)
}

/// The family an estimator belongs to: the folder of `estimate/` that holds it, or an
/// estimator from outside the project (an external command, a Python callable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// [`mim`]: per body from joint wrenches and body kinematics (the MIM paper).
    Mim,
    /// [`frequency`]: the multisine paper's frequency-domain fits.
    Frequency,
    /// [`time_domain`]: the multisine paper's arm in the time domain.
    TimeDomain,
    /// [`idim`]: whole-arm identification from joint torques.
    Idim,
    /// [`nim`]: learned identifiers.
    Nim,
    /// From outside the project.
    External,
}

impl Family {
    /// Its name, as `armid estimators` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Mim => "mim",
            Family::Frequency => "frequency",
            Family::TimeDomain => "time_domain",
            Family::Idim => "idim",
            Family::Nim => "nim",
            Family::External => "external",
        }
    }
}

/// An estimator of inertial (and friction) parameters.
pub trait Estimator: Send + Sync {
    /// Its name: the `method` column of every output file.
    fn name(&self) -> &str;

    /// Its family (`armid estimators`).
    fn family(&self) -> Family {
        Family::External
    }

    /// What it needs of an experiment, in a line (`armid estimators`; [`Estimator::applies`]
    /// says why a given one does not do).
    fn needs(&self) -> &str {
        "what its author states"
    }

    /// `Ok` if it can run on the experiment, else the reason it cannot.
    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable>;

    /// The estimates. Call only where [`Estimator::applies`] is `Ok`.
    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError>;
}

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

/// The single run of an experiment, or why there is none.
pub(crate) fn single<'a>(
    experiment: &Experiment<'a>,
) -> Result<&'a crate::dataset::Measurements, NotApplicable> {
    match experiment.with_role(Role::Single).as_slice() {
        [one] => Ok(one),
        [] => Err(NotApplicable::new("needs a single run (role `single`)")),
        _ => Err(NotApplicable::new("needs exactly one run of role `single`")),
    }
}

/// The estimates of a per-run algorithm (a family's `algorithm` module) as an estimator's.
pub(crate) fn from_values(values: Values) -> Estimates {
    Estimates {
        values,
        ..Default::default()
    }
}

/// The scored quantities of one body's standard parameters (`x`: link frame, `None` where not
/// determined): mass, first moments `m·c` along the link axes and the central moments about
/// them (`I_O` minus the parallel-axis term; determined where `m`, `m·c` and that diagonal of
/// `I_O` are).
pub(crate) fn standard_values(body: u8, x: &[Option<f64>; 10]) -> Vec<(ParamId, Estimate)> {
    use crate::param::Inertial;
    let at = |quantity, value| (ParamId::Body { body, quantity }, Estimate::value(value));
    let central = |k: usize| -> Option<f64> {
        let (m, h) = (x[0]?, [x[1]?, x[2]?, x[3]?]);
        let diagonal = [x[4]?, x[7]?, x[9]?][k];
        let off_axis: f64 = (0..3).filter(|&i| i != k).map(|i| h[i] * h[i]).sum();
        Some(diagonal - off_axis / m)
    };
    let mut out = vec![at(Inertial::Mass, x[0])];
    for k in 0..3u8 {
        out.push(at(Inertial::FirstMoment(k + 1), x[1 + k as usize]));
        out.push(at(Inertial::Moment(k + 1), central(k as usize)));
    }
    out
}
