//! A joint's motor as its drive electronics make it (`[[joint]] motor = { torque_constant_error,
//! current_bandwidth, gear_efficiency }`), so that a current-based torque reading is biased the
//! way real ones are:
//!
//! - the current loop follows its command `i* = u / K` (the drive's stated gain `K`, `u` the
//!   commanded torque of a torque signal or servo) as a first-order lag of bandwidth `ω_c`
//!   (rad/s): `di/dt = ω_c (i* − i)`, starting settled on the first command; over each
//!   integrator step the command is held and the lag is advanced exactly,
//!   `i(t + h) = i* + (i(t) − i*) e^{−ω_c h}`, and the motor's torque over the step is that of
//!   the current at its start (the arm's integrator holds every load over the step);
//! - the true torque constant differs from the stated one, `K_true = (1 + ε) K`, so the motor
//!   delivers `τ_m = K_true i` while an estimator that trusts the datasheet reads `K i`;
//! - the gear loses power (`gear_efficiency` `η ∈ (0, 1]`, the common model of a gear's
//!   efficiency, e.g. Pham & Ahn's harmonic-drive survey, or the load-dependent friction of
//!   Bittencourt & Gunnarsson 2012 in its simplest form): what reaches the joint is
//!   `η τ_m` while the motor drives the load (`τ_m q̇ ≥ 0`) and `τ_m / η` while the load
//!   back-drives the motor, the rate `q̇` the joint's at the step's start (the motor side's on
//!   an elastic joint). The losses act on the motor's torque; a rotor's inertia (`sim::rotor`)
//!   is reflected without loss. To a reading `K i` they look like a friction that grows with
//!   the load, `|τ| (1/η − 1)` when motoring.
//!
//! The dataset records the true current `i` and, in `tau`, the torque that reaches the link
//! (`K_true i`, less a rotor's share, `sim::rotor`). A prescribed joint's motor supplies what its
//! motion takes, so only `ε` shows there: `i = τ_m / K_true`. Without a `motor` section a joint's
//! current is its command and `K_true = K`.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, positive};

/// The motor of a joint (revolute: N·m/A; prismatic: N/A) and its gear's efficiency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motor {
    /// Relative error of the stated torque constant, `ε` in `K_true = (1 + ε) K` (> −1).
    #[serde(default)]
    pub torque_constant_error: f64,
    /// Bandwidth `ω_c` of the current loop (rad/s); none: the current is its command.
    #[serde(default)]
    pub current_bandwidth: Option<f64>,
    /// The gear's efficiency `η ∈ (0, 1]`; none: lossless.
    #[serde(default)]
    pub gear_efficiency: Option<f64>,
}

impl Motor {
    /// The true torque constant for the stated gain `k`.
    pub(crate) fn torque_constant(&self, k: f64) -> f64 {
        (1.0 + self.torque_constant_error) * k
    }

    /// The torque that reaches the joint from the motor's torque `motor` at the joint rate
    /// `rate`: `η τ_m` when motoring, `τ_m / η` when back-driven.
    pub(crate) fn through_gear(&self, motor: f64, rate: f64) -> f64 {
        match self.gear_efficiency {
            Some(eta) if motor * rate >= 0.0 => eta * motor,
            Some(eta) => motor / eta,
            None => motor,
        }
    }

    /// The motor's torque that puts `delivered` through the gear at the joint rate `rate` (the
    /// inverse of [`Motor::through_gear`]).
    pub(crate) fn behind_gear(&self, delivered: f64, rate: f64) -> f64 {
        match self.gear_efficiency {
            Some(eta) if delivered * rate >= 0.0 => delivered / eta,
            Some(eta) => delivered * eta,
            None => delivered,
        }
    }

    /// The current `h` seconds later under the held command `command` (A).
    pub fn advance(&self, current: f64, command: f64, h: f64) -> f64 {
        match self.current_bandwidth {
            Some(w) => command + (current - command) * (-w * h).exp(),
            None => command,
        }
    }

    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        finite("torque_constant_error", self.torque_constant_error)?;
        if self.torque_constant_error <= -1.0 {
            return Err((
                "torque_constant_error".into(),
                format!(
                    "expected a relative error above −1, got {}",
                    self.torque_constant_error
                ),
            ));
        }
        if let Some(w) = self.current_bandwidth {
            positive("current_bandwidth", w, "bandwidth in rad/s")?;
        }
        match self.gear_efficiency {
            Some(eta) if !(eta > 0.0 && eta <= 1.0) => Err((
                "gear_efficiency".into(),
                format!("expected an efficiency in (0, 1], got {eta}"),
            )),
            _ => Ok(()),
        }
    }
}
