//! What a run-level NIM reads (its [`super::Card`]'s `sensing`): the estimator that encodes a
//! run into parameter estimates with standard deviations, and the parameters the network
//! revises.
//!
//! - [`Sensing::JointLevel`] (what real arms log: joint angles and drive torques or currents):
//!   IDIM-OLS's base parameters `base.k` ([`crate::estimate::idim::refined`], which keeps its
//!   friction terms).
//! - [`Sensing::Paper`] (the MIM paper's: a 6-axis force/torque sensor at every joint and the
//!   bodies' kinematics): MIM's six parameters of every body, `m_e1..3` and `j11..j33`
//!   ([`crate::estimate::mim::algorithm::PARAMETERS`]), by the whole-arm GLS, whose σ is the
//!   Cramér–Rao bound under the run's stated wrench noise ([`crate::estimate::mim::gls`]). A run
//!   that states no wrench noise (exact data) is encoded by MIM stacked body by body with its
//!   least-squares σ, which is about zero on exact data: there the estimate passes through the
//!   network unrevised (its posterior is the estimate).

use serde::{Deserialize, Serialize};

use crate::estimate::mim::algorithm::{PARAMETERS, param};
use crate::estimate::mim::{Stacked, WholeArmGls};
use crate::estimate::{Estimates, Estimator, EstimatorId, Experiment, engine};
use crate::param::ParamId;

/// What a run-level NIM reads (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sensing {
    /// Joint angles and drive torques or currents: IDIM-OLS's base parameters.
    #[default]
    JointLevel,
    /// Force/torque sensors at the joints and body kinematics: MIM-GLS's body parameters.
    Paper,
}

impl Sensing {
    /// The registry name of the estimator that encodes a run (on runs with stated noise).
    pub fn encoder(self) -> EstimatorId {
        match self {
            Sensing::JointLevel => EstimatorId::IdimOls,
            Sensing::Paper => EstimatorId::MimGls,
        }
    }
}

/// MIM's parameters of an arm of `bodies` bodies, in a paper-sensing model's order: body by
/// body, each in the order of [`PARAMETERS`].
pub fn body_parameters(bodies: usize) -> Vec<ParamId> {
    (1..=bodies as u8)
        .flat_map(|b| (0..PARAMETERS.len()).map(move |k| param(b, k)))
        .collect()
}

/// `estimates`' `(value, std)` of each of `ids`, NaN where one is missing.
pub fn read(estimates: &Estimates, ids: &[ParamId]) -> Vec<(f64, f64)> {
    (ids.iter())
        .map(|id| match estimates.values.get(id) {
            Some(e) => (e.value.unwrap_or(f64::NAN), e.std.unwrap_or(f64::NAN)),
            None => (f64::NAN, f64::NAN),
        })
        .collect()
}

/// An encoded run: the parameters and their estimates `(value, std)`, NaN where none.
pub type Encoding = (Vec<ParamId>, Vec<(f64, f64)>);

/// A paper-sensing encoding of `experiment`'s run: MIM-GLS's body parameters where the run
/// states its wrench noise, MIM stacked's where it does not (module docs); `Err` with the
/// reason where neither applies.
pub(crate) fn encode_bodies(experiment: &Experiment) -> crate::Result<Encoding> {
    let data = crate::estimate::single(experiment).map_err(|e| e.into_error("MIM encoding"))?;
    let ids = body_parameters(data.bodies.len());
    let estimated = if WholeArmGls.applies(experiment).is_ok() {
        engine::required(&WholeArmGls, experiment)
    } else {
        engine::required(&Stacked::default(), experiment)
    };
    let estimates = estimated?;
    let encoded = read(&estimates, &ids);
    Ok((ids, encoded))
}
