//! The rollout errors of a model over a log's windows, and their means.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::window::{Logged, RolloutError, roll_out};
use super::{BLOWN_UP, Model, Windows};

/// One window's errors (rad or m, per joint in the model's order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowError {
    /// The window's first sample time (s).
    pub start: f64,
    /// The integrator step it was simulated with (s; [`super::steps_per_sample`]).
    pub step: f64,
    /// `|q_sim − q_rec|` at the horizon.
    pub horizon: Vec<f64>,
    /// RMS of `q_sim − q_rec` over the window's samples.
    pub rms: Vec<f64>,
    /// Whether the window blew up (module docs); its errors are then those up to where it
    /// stopped, or NaN.
    pub blown_up: bool,
}

/// A model's rollout fidelity on a log (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fidelity {
    /// The windows rolled out.
    pub windows: Windows,
    /// Windows that blew up.
    pub blown_up: usize,
    /// Per joint, the mean horizon error over the windows that did not blow up (rad or m; NaN,
    /// `null` in JSON, where every window blew up).
    pub horizon: Vec<f64>,
    /// Per joint, the mean window RMS over them (rad or m).
    pub rms: Vec<f64>,
    /// The mean of [`Fidelity::horizon`] over joints: the figure a model is judged by.
    pub mean_horizon: f64,
    /// The mean of [`Fidelity::rms`] over joints.
    pub mean_rms: f64,
    /// Every window's errors, in time order.
    pub per_window: Vec<WindowError>,
}

/// `model` rolled out on every window of `log` that starts at or after `from` (s): windows in
/// parallel, results in time order (the same whatever the thread count). `Err` where the model
/// and the log disagree, or where no window fits.
pub fn fidelity(
    model: &Model,
    log: &Logged,
    windows: Windows,
    from: f64,
) -> Result<Fidelity, RolloutError> {
    let (starts, length) = windows.starts(&log.t, from);
    let per_window = starts
        .par_iter()
        .map(|&s| window_error(model, log, s, length))
        .collect::<Result<Vec<_>, _>>()?;
    let kept: Vec<&WindowError> = per_window.iter().filter(|w| !w.blown_up).collect();
    let nj = log.q.len();
    let mean = |f: fn(&WindowError) -> &Vec<f64>| -> Vec<f64> {
        (0..nj)
            .map(|j| kept.iter().map(|w| f(w)[j]).sum::<f64>() / kept.len() as f64)
            .collect()
    };
    let (horizon, rms) = (mean(|w| &w.horizon), mean(|w| &w.rms));
    let over = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Ok(Fidelity {
        windows,
        blown_up: per_window.len() - kept.len(),
        mean_horizon: over(&horizon),
        mean_rms: over(&rms),
        horizon,
        rms,
        per_window,
    })
}

/// One window's errors.
fn window_error(
    model: &Model,
    log: &Logged,
    start: usize,
    length: usize,
) -> Result<WindowError, RolloutError> {
    let rolled = roll_out(model, log, start, length)?;
    let q = &rolled.q;
    let nj = log.q.len();
    let error = |k: usize, j: usize| q[k][j] - log.q[j][start + k];
    let reached = q.len();
    let mut rms = vec![0.0; nj];
    for k in 0..reached {
        for (j, r) in rms.iter_mut().enumerate() {
            *r += error(k, j).powi(2);
        }
    }
    rms.iter_mut()
        .for_each(|r| *r = (*r / reached as f64).sqrt());
    let horizon: Vec<f64> = (0..nj)
        .map(|j| {
            if reached == length + 1 {
                error(length, j).abs()
            } else {
                f64::NAN
            }
        })
        .collect();
    let blown_up = reached < length + 1
        || (0..reached)
            .any(|k| (0..nj).any(|j| error(k, j).is_nan() || error(k, j).abs() > BLOWN_UP));
    Ok(WindowError {
        start: log.t[start],
        step: rolled.step,
        horizon,
        rms,
        blown_up,
    })
}
