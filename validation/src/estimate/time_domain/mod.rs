//! Inverse-dynamics least squares in the time domain on the full nonlinear model of a planar arm
//! under periodic (multisine) torques, the geometry known.
//!
//! - [`algorithm`]: the stacked regression and how `q̇, q̈` are obtained;
//! - [`estimator`]: its binding to [`crate::estimate::Estimator`].

pub mod algorithm;
pub mod estimator;

pub use estimator::TimeDomain;
