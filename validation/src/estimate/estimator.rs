//! What an estimator is and gives: the [`Estimator`] trait, its result [`Estimates`] (with the
//! [`TorqueModel`] an identifier may give), why one does not apply ([`NotApplicable`]) or fails
//! ([`EstimateError`]), its [`Family`], and the helpers its implementations share.

use std::collections::BTreeMap;

use crate::estimate::experiment::{Experiment, Role};
use crate::param::{Estimate, ParamId, Values};

/// A predictor of the joint torques `τ(q, q̇, q̈)` (dataset joint order).
pub trait TorqueModel {
    /// The predicted actuator torques.
    fn torque(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64>;
}

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

impl Estimates {
    /// An identifier's estimates: a value for each of `parameters` (no σ) and its torque model.
    pub fn identified(parameters: Vec<(ParamId, f64)>, model: Box<dyn TorqueModel>) -> Estimates {
        Estimates {
            values: (parameters.into_iter())
                .map(|(p, v)| (p, Estimate::value(Some(v))))
                .collect(),
            predictor: Some(model),
            ..Default::default()
        }
    }

    /// The same with the standard deviations `std` of the parameters it names.
    pub fn with_std(mut self, std: Vec<(ParamId, f64)>) -> Estimates {
        for (p, s) in std {
            if let Some(e) = self.values.get_mut(&p) {
                e.std = Some(s);
            }
        }
        self
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
) -> Result<&'a sim::reading::Measurements, NotApplicable> {
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

    /// Whether it reads the joints' torque (or current): it then does not apply to a log whose
    /// joint has none (a servo arm's commands only; [`Experiment::torque_less_joint`]), which
    /// the engine checks before [`Estimator::applies`].
    fn reads_torque(&self) -> bool {
        true
    }

    /// `Ok` if it can run on the experiment, else the reason it cannot.
    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable>;

    /// The estimates. Call only where [`Estimator::applies`] is `Ok`.
    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError>;
}

/// The single run of an experiment, or why there is none.
pub(crate) fn single<'a>(
    experiment: &Experiment<'a>,
) -> Result<&'a sim::reading::Measurements, NotApplicable> {
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
