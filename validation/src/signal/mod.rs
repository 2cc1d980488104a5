//! The signal chain from sampled joint readings to the kinematics an estimator uses: one
//! module for recorded and simulated-encoder data alike.
//!
//! 1. [`resample`]: the stamps onto a uniform grid (median interval, linear interpolation; a
//!    uniform recording is kept bit for bit).
//! 2. [`butterworth`]: a zero-phase Butterworth low-pass of stated order and cut-off, or a
//!    cut-off chosen from the spectrum ([`cutoff`]), or none.
//! 3. [`derivative`]: `q̇` from the filtered `q` where the recording has no `q̇`, `q̈` from the
//!    filtered `q̇` where it has no `q̈` (five-point differences); given rates are filtered
//!    like `q`.
//!
//! Torques are resampled but **never low-pass filtered**: they are the target an identified
//! model is judged against, and filtering the target would hide the error. Every choice is
//! written as a [`sim::dataset::recorded::Chain`] into the run's manifest.

pub mod butterworth;
pub mod chain;
pub mod cutoff;
pub mod derivative;
pub mod resample;
pub mod spectrum;

pub use chain::Processed;
