//! A scenario's `[time]` section and how many integrator steps it may ask for.

use serde::{Deserialize, Serialize};

/// Largest number of integrator steps a scenario may ask for (time.end / time.step): about 15
/// hours of simulation on one core at today's speed.
pub const MAX_STEPS: usize = 2_000_000_000;

/// `[time]`: all in seconds.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// End time (s); the first sample is at 0.
    pub end: f64,
    /// Integrator step (s).
    pub step: f64,
    /// Output sample period (s), an integer multiple of `step`.
    pub sample_period: f64,
    /// Whether the record must end at steady state (for frequency-domain analyses): the run
    /// is then invalid unless its last excitation period repeats the one before
    /// ([`crate::validity`], gate `steady_state`). Needs periodic torques on every driven
    /// joint and at least two whole periods recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub steady_state: bool,
}
