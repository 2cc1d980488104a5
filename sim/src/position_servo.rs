//! A position servo as the firmware of a hobby or smart servo runs it (Feetech STS, Dynamixel,
//! the motors of LeRobot's SO-100/SO-101 and Koch arms): the commanded angle reaches the loop
//! late, the loop pushes with a spring and a damper, its output saturates, and a small error is
//! left alone.
//!
//! ```text
//! τ = sat( k_p · dz(q_c(t − δ) − q) − k_d · q̇ ,  ±τ_max )
//! dz(e) = sign(e) · max(|e| − d, 0)
//! ```
//!
//! `q_c` the command (the servo's reference profile, rad or m), `δ` the command delay (s: bus,
//! firmware and the loop's period together), `d` the dead band (rad or m), `k_p` (N·m/rad or
//! N/m), `k_d` (N·m·s/rad or N·s/m) on the joint's own rate, `τ_max` the torque limit (N·m or N).
//! With `δ = d = 0` this is MuJoCo's `<position kp kv forcerange>` actuator; the joint's armature,
//! damping and friction are the joint's own terms, not the servo's. Backlash is not modelled.
//! The law is evaluated, as every servo's, at the start of each integrator step from the exact
//! joint state and held over the step ([`crate::drive::Servo`]). A command of held samples (a
//! logged stream, [`crate::profile::Profile::Held`]) enters as its mean over the step's delayed
//! span `[t − δ, t + h − δ)`: a switch inside the step counts for the part after it, so the delay
//! acts at its value, not rounded up to a step, and a fit by simulation sees the delay's effect
//! change smoothly with it.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, non_negative};

/// The servo's parameters (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionServo {
    /// Stiffness `k_p` (N·m/rad or N/m).
    pub kp: f64,
    /// Damping `k_d` on the joint's rate (N·m·s/rad or N·s/m).
    pub kd: f64,
    /// Torque limit `τ_max` (N·m or N); none by default.
    #[serde(default = "unlimited")]
    pub torque_limit: f64,
    /// Command delay `δ` (s).
    #[serde(default)]
    pub delay: f64,
    /// Dead band `d` (rad or m).
    #[serde(default)]
    pub dead_band: f64,
}

/// No torque limit: the serde default of a servo's `torque_limit` (here and in a drive train's
/// `[[servo]]`).
pub(crate) fn unlimited() -> f64 {
    f64::INFINITY
}

impl PositionServo {
    /// The torque (N·m or N) for the delayed command's error `error = q_c(t − δ) − q` and the
    /// joint's rate `qd`.
    pub fn torque(&self, error: f64, qd: f64) -> f64 {
        let past = (error.abs() - self.dead_band).max(0.0).copysign(error);
        (self.kp * past - self.kd * qd).clamp(-self.torque_limit, self.torque_limit)
    }

    /// The time at which the command acting at `t` was given.
    pub fn commanded_at(&self, t: f64) -> f64 {
        t - self.delay
    }

    /// Checks the parameters; `Err` names the offending field.
    pub fn validate(&self) -> Result<(), ParamError> {
        non_negative("kp", self.kp)?;
        non_negative("kd", self.kd)?;
        non_negative("delay", self.delay)?;
        non_negative("dead_band", self.dead_band)?;
        if self.torque_limit.is_nan() || self.torque_limit <= 0.0 {
            return Err((
                "torque_limit".into(),
                format!(
                    "expected a positive limit (or inf), got {}",
                    self.torque_limit
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servo() -> PositionServo {
        PositionServo {
            kp: 4.0,
            kd: 0.5,
            torque_limit: 2.0,
            delay: 0.1,
            dead_band: 0.01,
        }
    }

    #[test]
    fn the_law_has_its_dead_band_damping_and_limit() {
        let s = servo();
        assert_eq!(s.torque(0.005, 0.0), 0.0);
        assert_eq!(s.torque(-0.005, 0.0), 0.0);
        assert!((s.torque(0.11, 0.0) - 0.4).abs() < 1e-12);
        assert!((s.torque(-0.11, 0.2) - (-0.4 - 0.1)).abs() < 1e-12);
        assert_eq!(s.torque(10.0, 0.0), 2.0);
        assert_eq!(s.torque(-10.0, 0.0), -2.0);
        assert!((s.commanded_at(1.0) - 0.9).abs() < 1e-15);
    }

    #[test]
    fn parameters_are_checked_by_name() {
        let mut s = servo();
        s.delay = -0.1;
        assert_eq!(s.validate().unwrap_err().0, "delay");
        let mut s = servo();
        s.torque_limit = 0.0;
        assert_eq!(s.validate().unwrap_err().0, "torque_limit");
        let toml: PositionServo = toml::from_str("kp = 3.0\nkd = 0.1").unwrap();
        assert_eq!(toml.torque_limit, f64::INFINITY);
        assert!(toml.validate().is_ok());
    }
}
