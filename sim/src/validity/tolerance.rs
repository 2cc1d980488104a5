//! The tolerances of the validity gates.

/// Largest relative inverse-dynamics residual of a valid run.
pub(crate) const RNEA_TOLERANCE: f64 = 1e-9;
/// Largest relative Newton–Euler residual of a body's recorded columns in a valid run.
pub const NEWTON_EULER_TOLERANCE: f64 = 1e-9;
/// Largest deviation of a prescribed joint from its profile in a valid run (rad or m).
pub const TRACKING_TOLERANCE: f64 = 1e-9;
/// Largest relative resolution of a world position in a valid run (see the module docs).
pub(crate) const PRECISION_TOLERANCE: f64 = 1e-9;
/// Largest relative difference between the engine's step and the recorded acceleration of a
/// joint that the engine integrates.
pub const INTEGRATION_TOLERANCE: f64 = 0.05;
