//! The frequency-domain paper's estimators of a planar arm under multisine joint torques: link
//! parameters from the Fourier coefficients of the steady-state joint angles.
//!
//! - [`algorithm`]: the published per-joint fit and the corrected linearized model;
//! - [`estimator`]: their bindings to [`crate::estimate::Estimator`] (excitation from the run's
//!   design, geometry from its kinematics).

pub mod algorithm;
pub mod estimator;

pub use estimator::{Linearized, Paper, Told};
pub(crate) use estimator::{MULTISINE_RUN, multisine_run};
