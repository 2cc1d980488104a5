//! Cogging (`[[joint]] cogging = { amplitude, period, phase }`): a permanent-magnet motor's
//! rotor is drawn toward the positions where its magnets align with the stator's teeth, a torque
//! periodic in the rotor's angle whatever the current (Zhu & Howe, "Influence of design
//! parameters on cogging torque in permanent magnet machines", IEEE Trans. Energy Conversion
//! 15(4), 2000: period `2π / lcm(slots, poles)` of the rotor). Seen at the joint through a gear
//! of ratio `G` its period is that over `G`; a direct drive feels it whole. Its fundamental is
//!
//! `τ_cog = −A sin(2π q / p + φ)`,
//!
//! `A ≥ 0` the amplitude at the joint (N·m, or N on a prismatic joint), `p > 0` the period in
//! the joint's coordinate (rad or m) and `φ` a phase (rad): with `φ = 0`, `q = 0` is a detent
//! (a stable rest of the unloaded joint). It is conservative, the force of the potential
//! `U(q) = −(A p / 2π) cos(2π q / p + φ)`, and not friction: no estimator's friction columns
//! describe it.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative, positive};
use crate::term::{Contribution, JointNow, JointTerm, Place, PlaceError, not_on_the_rail};

/// A joint's cogging torque.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cogging {
    /// `A`: the amplitude at the joint (N·m or N).
    pub amplitude: f64,
    /// `p`: the period in the joint's coordinate (rad or m).
    pub period: f64,
    /// `φ`: the phase (rad); default 0.
    #[serde(default)]
    pub phase: f64,
}

impl Cogging {
    /// The generalized force at the joint coordinate `q` (N·m or N).
    pub fn force(&self, q: f64) -> f64 {
        -self.amplitude * (std::f64::consts::TAU * q / self.period + self.phase).sin()
    }

    /// The potential `U(q)` whose negative slope is [`Cogging::force`] (J).
    pub fn potential(&self, q: f64) -> f64 {
        let k = std::f64::consts::TAU / self.period;
        -self.amplitude / k * (k * q + self.phase).cos()
    }
}

/// `cogging` (`sim::scenario::terms`): a force, on any joint but the rail.
impl JointTerm for Cogging {
    fn check_params(&self) -> Result<(), ParamError> {
        non_negative("amplitude", self.amplitude)?;
        positive(
            "period",
            self.period,
            "period in rad (m on a prismatic joint)",
        )?;
        finite("phase", self.phase)
    }

    fn check_place(&self, place: &Place) -> Result<(), PlaceError> {
        not_on_the_rail(place)
    }

    fn at(&self, now: &JointNow) -> Contribution {
        Contribution::Force(self.force(now.q))
    }
}
