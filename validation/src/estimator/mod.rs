//! The per-run algorithms of the MIM, frequency-domain and time-domain estimators, each a plain
//! type in its own file, returning estimates by [`crate::param::ParamId`] ([`Values`]). The public estimation API, which every
//! estimator of the project implements, is [`crate::estimate::Estimator`]; the reproduction
//! reports still call these algorithms directly.

pub mod frequency;
pub mod mim;
pub mod mim_gls;
pub mod mim_standard;
pub mod regressor;
pub mod time_domain;

use crate::dataset::Measurements;
use crate::param::Values;

/// An estimator that cannot run on the given data.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{estimator}: {message}")]
pub struct EstimateError {
    /// The estimator's name.
    pub estimator: String,
    /// What is missing or wrong.
    pub message: String,
}

/// A per-run inertial-parameter algorithm: one of this module's, each a plain type with `name`
/// and `estimate` that sees only the measurement columns of a run. The project's one estimator
/// trait is [`crate::estimate::Estimator`]; this is the choice of algorithm behind its MIM,
/// frequency-domain and time-domain bindings and the studies that compare them.
pub enum RunMethod {
    /// [`mim::MimSingleInstant`].
    MimSingle(mim::MimSingleInstant),
    /// [`mim::MimStacked`].
    MimStacked(mim::MimStacked),
    /// [`mim::MimWholeArm`].
    MimWholeArm(mim::MimWholeArm),
    /// [`time_domain::InverseDynamicsLs`].
    InverseDynamics(time_domain::InverseDynamicsLs),
    /// [`frequency::LinearizedFrequency`].
    Linearized(frequency::LinearizedFrequency),
    /// [`frequency::PaperFrequency`].
    PaperFrequency(frequency::PaperFrequency),
}

macro_rules! run_methods {
    ($($variant:ident($ty:ty)),*) => {
        impl RunMethod {
            /// Short name, the `method` column of reports.
            pub fn name(&self) -> String {
                match self {
                    $(RunMethod::$variant(m) => m.name(),)*
                }
            }

            /// Estimates the parameters of every body it can.
            pub fn estimate(&self, data: &Measurements) -> Result<Values, EstimateError> {
                match self {
                    $(RunMethod::$variant(m) => m.estimate(data),)*
                }
            }
        }
        $(impl From<$ty> for RunMethod {
            fn from(m: $ty) -> Self {
                RunMethod::$variant(m)
            }
        })*
    };
}

run_methods!(
    MimSingle(mim::MimSingleInstant),
    MimStacked(mim::MimStacked),
    MimWholeArm(mim::MimWholeArm),
    InverseDynamics(time_domain::InverseDynamicsLs),
    Linearized(frequency::LinearizedFrequency),
    PaperFrequency(frequency::PaperFrequency)
);
