//! The Butterworth design and its zero-phase filtering live in the simulator's crate
//! ([`sim::butterworth`]), where the sensor chain's anti-aliasing filter uses them too.

pub use sim::butterworth::{Biquad, Butterworth};
