//! The choice of per-run algorithm behind the MIM, frequency-domain and time-domain
//! estimators, for the studies that compare them on the same runs: each is a plain type of its
//! family ([`crate::estimate::mim::algorithm`], [`crate::estimate::frequency::algorithm`],
//! [`crate::estimate::time_domain::algorithm`]) returning estimates by
//! [`crate::param::ParamId`] ([`Values`]). The project's one estimator trait is
//! [`crate::estimate::Estimator`].

use crate::dataset::Measurements;
use crate::estimate::EstimateError;
use crate::estimate::frequency::algorithm as frequency;
use crate::estimate::mim::algorithm as mim;
use crate::estimate::time_domain::algorithm as time_domain;
use crate::param::Values;

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
