//! Friction that drifts as a joint warms (`[[joint]] friction_drift = { change, time_constant }`):
//! a gear's lubricant thins as it warms under work, and its friction falls with the temperature
//! (Carvalho Bittencourt & Gunnarsson, "Static friction in a robot joint — modeling and
//! identification of load and temperature effects", J. Dyn. Sys. Meas. Control 134, 2012, where
//! friction is close to linear in the temperature over a working range). The joint's
//! temperature rises toward its working level as a first-order thermal system, so the friction
//! model's torque (`friction`, `load_friction`; not the viscous `damping`) is scaled by
//!
//! `s(t) = 1 + Δ (1 − e^{−t/T})`,
//!
//! `Δ` the relative change reached when warm (−0.3: 30 % less friction) and `T` (s) the
//! thermal time constant; the run starts cold (`s(0) = 1`). An estimator that fits one friction
//! for the whole run sees its time average.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, positive};
use crate::term::{Contribution, JointNow, JointTerm};

/// A friction drift over the run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drift {
    /// `Δ`: the friction's relative change when warm (> −1).
    pub change: f64,
    /// `T`: the thermal time constant (s).
    pub time_constant: f64,
}

impl Drift {
    /// The scale `s(t)` of the friction at time `t` (s).
    pub fn factor(&self, t: f64) -> f64 {
        1.0 + self.change * (1.0 - (-t / self.time_constant).exp())
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        finite("change", self.change)?;
        if self.change <= -1.0 {
            return Err((
                "change".into(),
                format!("expected a relative change above −1, got {}", self.change),
            ));
        }
        positive("time_constant", self.time_constant, "time constant in s")
    }
}

/// `friction_drift` (`sim::scenario::terms`): a scale of the friction, on any joint.
impl JointTerm for Drift {
    fn check_params(&self) -> Result<(), ParamError> {
        self.validate()
    }

    fn at(&self, now: &JointNow) -> Contribution {
        Contribution::Scale(self.factor(now.t))
    }
}
