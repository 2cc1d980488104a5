//! Estimators of inertial parameters, scoring against the ground truth, and reproduction
//! reports.
//!
//! Data flows one way: a run directory is read by [`sim::dataset`] into measurements and truth; an
//! [`estimate::Estimator`] sees only the measurements; [`estimate::score`] compares its estimates with
//! the truth; [`report`] writes what a reader sees. [`consistency`] checks the physics of a run
//! from its files, with the independent inverse dynamics of [`inverse_dynamics`].

pub mod cli;
pub mod consistency;
pub mod encoder;
pub mod error;
pub mod estimate;
pub mod excitation;
pub mod files;
pub mod fourier;
pub mod geometry;
pub mod import;
pub mod kind;
pub mod lsq;
pub mod paper;
pub mod param;
pub mod regressor;
pub mod report;
pub mod signal;
pub mod study;

pub use error::{Error, Result};

/// The independent recursive Newton–Euler inverse dynamics (plain nalgebra, no Rapier). It lives
/// in `sim` so that every run can write its residual into its manifest; this is the same code.
pub mod inverse_dynamics {
    pub use sim::dynamics::{BodyMotion, InverseDynamics, rnea};
}
