//! The per-run algorithms of the MIM, frequency-domain and time-domain estimators, each one type
//! implementing [`RunEstimator`] in its own file. The public estimation API, which every
//! estimator of the project implements, is [`crate::estimate::Estimator`]; the reproduction
//! reports still call these algorithms directly.

pub mod frequency;
pub mod mim;
pub mod mim_gls;
pub mod mim_standard;
pub mod regressor;
pub mod time_domain;

use crate::dataset::Measurements;

/// An inertial parameter of one body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parameter {
    /// Mass identified from the force balance along world axis `e1(0)` (kg).
    MassE1,
    /// Mass identified along world `e2(0)` (kg).
    MassE2,
    /// Mass identified along world `e3(0)` (kg).
    MassE3,
    /// Mass from all axes together (kg).
    Mass,
    /// Central principal moment about body `e1` (kg·m²).
    J11,
    /// Central principal moment about body `e2` (kg·m²).
    J22,
    /// Central principal moment about body `e3` (kg·m²).
    J33,
    /// Viscous damping of the body's inner joint (N·m·s/rad).
    Damping,
}

impl Parameter {
    /// The name used in reports and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Parameter::MassE1 => "m_e1",
            Parameter::MassE2 => "m_e2",
            Parameter::MassE3 => "m_e3",
            Parameter::Mass => "m",
            Parameter::J11 => "j11",
            Parameter::J22 => "j22",
            Parameter::J33 => "j33",
            Parameter::Damping => "c",
        }
    }

    /// The truth of this parameter for a body.
    pub fn truth(self, body: &crate::dataset::BodyTruth) -> f64 {
        match self {
            Parameter::MassE1 | Parameter::MassE2 | Parameter::MassE3 | Parameter::Mass => {
                body.mass
            }
            Parameter::J11 => body.j[0],
            Parameter::J22 => body.j[1],
            Parameter::J33 => body.j[2],
            Parameter::Damping => body.joint_damping,
        }
    }
}

/// One estimated parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Body number (1-based).
    pub body: u8,
    /// Which parameter.
    pub parameter: Parameter,
    /// The estimate; `None` where the data cannot determine the parameter.
    pub value: Option<f64>,
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
            pub fn estimate(&self, data: &Measurements) -> Result<Vec<Estimate>, EstimateError> {
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
