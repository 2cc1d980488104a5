//! Where the rollout windows of a log start.

use serde::{Deserialize, Serialize};

/// The rollout windows of a log: each `horizon` seconds long, one starting every `spacing`
/// seconds from the first sample at or after the part judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Windows {
    /// Length of each rollout (s).
    pub horizon: f64,
    /// Time between the starts of consecutive windows (s).
    pub spacing: f64,
}

impl Windows {
    /// The default for a torque-driven arm: 0.3 s rollouts every 0.15 s. An arm's links answer
    /// a torque error within tenths of a second; over longer open-loop horizons every model
    /// drifts, and the figure compares drifts, not models.
    pub const TORQUE: Windows = Windows {
        horizon: 0.3,
        spacing: 0.15,
    };

    /// The default for a position-servo arm: 1 s rollouts every 0.5 s. The servo's loop keeps a
    /// model near its commands, so errors are its lag and sag, which take a second to show.
    pub const SERVO: Windows = Windows {
        horizon: 1.0,
        spacing: 0.5,
    };

    /// The default windows for rolling `model` out on `log`: [`Windows::SERVO`] where some joint
    /// is driven by a position servo ([`super::servo_driven`]), else [`Windows::TORQUE`].
    pub fn for_rollout(model: &super::Model, log: &super::Logged) -> Windows {
        let servo = |j| super::servo_driven(model, log, j).is_some();
        match (0..log.q.len()).any(servo) {
            true => Windows::SERVO,
            false => Windows::TORQUE,
        }
    }

    /// The first sample of each window over the uniform grid `t` (s), for windows that start
    /// at or after `from` (s) and end within the grid; with each, the window's samples after its
    /// first (`horizon / period`, rounded).
    pub fn starts(&self, t: &[f64], from: f64) -> (Vec<usize>, usize) {
        if t.len() < 2 || !(self.horizon > 0.0 && self.spacing > 0.0) {
            return (Vec::new(), 0);
        }
        let period = (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64;
        let length = (self.horizon / period).round().max(1.0) as usize;
        let every = (self.spacing / period).round().max(1.0) as usize;
        let first = t.partition_point(|&x| x < from - 1e-9 * period);
        let starts = (first..t.len().saturating_sub(length))
            .step_by(every)
            .collect();
        (starts, length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_fit_inside_the_judged_part() {
        let t: Vec<f64> = (0..=1000).map(|k| k as f64 * 1e-3).collect();
        let (starts, length) = Windows::TORQUE.starts(&t, 0.5);
        assert_eq!(length, 300);
        assert_eq!(starts, vec![500, 650]);
        assert!(starts.iter().all(|s| s + length < t.len()));
        assert!(Windows::SERVO.starts(&t, 0.5).0.is_empty());
    }
}
