//! What a servo arm's log says without any model: that each joint is where it was told to be.
//! A model of a servo arm is worth simulating where its rollouts beat this baseline.

use serde::{Deserialize, Serialize};

use super::Windows;
use super::window::Logged;

/// The error of taking the command for the position, at the horizon of every rollout window
/// (the same windows as the model's), on the joints with commands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandBaseline {
    /// Per joint (the model's order), the mean `|q_cmd − q_rec|` at the windows' horizons
    /// (rad or m; NaN, `null` in JSON, on a joint without commands).
    pub horizon: Vec<f64>,
    /// Its mean over the joints with commands: the figure a servo model's
    /// [`super::Fidelity::mean_horizon`] is set beside.
    pub mean_horizon: f64,
}

/// The baseline over the windows of `log` from `from` (s); `None` where no joint has commands
/// or no window fits.
pub fn command_baseline(log: &Logged, windows: Windows, from: f64) -> Option<CommandBaseline> {
    let (starts, length) = windows.starts(&log.t, from);
    if starts.is_empty() || log.q_cmd.iter().all(Option::is_none) {
        return None;
    }
    let horizon: Vec<f64> = (log.q.iter().zip(&log.q_cmd))
        .map(|(q, c)| match c {
            None => f64::NAN,
            Some(c) => {
                let errors = starts.iter().map(|s| (c[s + length] - q[s + length]).abs());
                errors.sum::<f64>() / starts.len() as f64
            }
        })
        .collect();
    let commanded: Vec<f64> = horizon.iter().copied().filter(|h| !h.is_nan()).collect();
    Some(CommandBaseline {
        mean_horizon: commanded.iter().sum::<f64>() / commanded.len() as f64,
        horizon,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_is_the_commands_error_at_each_horizon() {
        let t: Vec<f64> = (0..=10).map(|k| f64::from(k) * 0.1).collect();
        let q: Vec<f64> = t.iter().map(|x| x * x).collect();
        let c: Vec<f64> = t.iter().map(|x| 2.0 * x).collect();
        let log = Logged {
            t: t.clone(),
            q: vec![q.clone(), q],
            qd: vec![vec![0.0; 11]; 2],
            tau: vec![vec![0.0; 11]; 2],
            q_cmd: vec![None, Some(c)],
        };
        let windows = Windows {
            horizon: 0.3,
            spacing: 0.5,
        };
        // Windows from samples 0 and 5, horizons at 0.3 and 0.8 s: |2t − t²| = 0.51, 0.96.
        let b = command_baseline(&log, windows, 0.0).unwrap();
        assert!(b.horizon[0].is_nan());
        assert!((b.horizon[1] - (0.51 + 0.96) / 2.0).abs() < 1e-12, "{b:?}");
        assert_eq!(b.mean_horizon, b.horizon[1]);
        let none = Logged {
            q_cmd: vec![None, None],
            ..log
        };
        assert!(command_baseline(&none, windows, 0.0).is_none());
    }
}
