//! The replay's torque against the recording's: `sqrt(Σ(τ̂ − τ)² / Σ τ²)` pooled over joints
//! and samples, over the moving (sample, joint) pairs, and per joint — the definition of
//! `validation estimate`'s `torque_nrms` rows, so the two figures compare.

use crate::dataset::manifest::Replayed;
use crate::dataset::recorded::{Header, RecordedTable};
use crate::recording::Recording;

use super::DriveTrain;

/// Joint speed (rad/s or m/s) from which a joint counts as moving (as `validation`'s
/// identifiers count it).
pub(crate) const MOVING_SPEED: f64 = 0.05;

/// The samples `[from, to)` compared: the grid `t` without `settling` samples at each end, and
/// with `holdout = Some(F)` only those from `t₀ + (1 − F)(t_last − t₀)` on (`t₀`, `t_last` the
/// settled span's ends), the cut `validation estimate --holdout F` makes.
pub fn window(
    t: &[f64],
    settling: usize,
    holdout: Option<f64>,
) -> Result<[usize; 2], super::ReplayError> {
    let (from, to) = (settling, t.len().saturating_sub(settling));
    if to < from + 5 {
        return Err(super::ReplayError::Option(format!(
            "the recording has {} samples; {settling} at each end are the filter's transient",
            t.len()
        )));
    }
    let Some(f) = holdout else {
        return Ok([from, to]);
    };
    if !(f > 0.0 && f < 1.0) {
        return Err(super::ReplayError::Option(format!(
            "--holdout: expected a fraction in (0, 1), got {f}"
        )));
    }
    let cut_time = t[from] + (1.0 - f) * (t[to - 1] - t[from]);
    let cut = from + t[from..to].partition_point(|s| *s < cut_time);
    Ok([cut, to])
}

/// Compares the replay `replay` (its joints' `tau`, plus `drives`' terms at its rates) with the
/// recorded torque over `window`. The paths and digests of the result are left empty.
pub fn compare(
    recorded: &RecordedTable,
    header: &Header,
    replay: &Recording,
    drives: Option<&DriveTrain>,
    window: [usize; 2],
) -> Replayed {
    let nj = recorded.joints.len();
    let (mut err, mut total) = (vec![0.0; nj], vec![0.0; nj]);
    let (mut moving_err, mut moving_total) = (0.0, 0.0);
    for k in window[0]..window[1] {
        let sample = &replay.joints[k * nj..(k + 1) * nj];
        let qd: Vec<f64> = sample.iter().map(|j| j.qd).collect();
        let qdd: Vec<f64> = sample.iter().map(|j| j.qdd).collect();
        let extra = drives.map_or(vec![0.0; nj], |d| d.torque(&qd, &qdd));
        for (j, joint) in recorded.joints.iter().enumerate() {
            let predicted = sample[j].tau + extra[j];
            let (e, t) = ((predicted - joint.tau[k]).powi(2), joint.tau[k].powi(2));
            err[j] += e;
            total[j] += t;
            if joint.qd[k].abs() >= MOVING_SPEED {
                moving_err += e;
                moving_total += t;
            }
        }
    }
    let nrms = |e: f64, t: f64| if t > 0.0 { (e / t).sqrt() } else { f64::NAN };
    Replayed {
        recording: String::new(),
        recording_joints_sha256: String::new(),
        drive_train: None,
        window,
        torque_nrms: nrms(err.iter().sum(), total.iter().sum()),
        torque_nrms_moving: nrms(moving_err, moving_total),
        torque_nrms_joints: (header.joints.iter().enumerate())
            .map(|(j, h)| (h.name.clone(), nrms(err[j], total[j])))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_drops_the_transient_and_cuts_like_the_estimator() {
        let t: Vec<f64> = (0..101).map(|k| k as f64 * 0.01).collect();
        assert_eq!(window(&t, 10, None).unwrap(), [10, 91]);
        // Settled span 0.10 .. 0.90 s; 30 % held out from 0.66 s on.
        assert_eq!(window(&t, 10, Some(0.3)).unwrap(), [66, 91]);
        assert!(window(&t, 49, None).is_err());
        assert!(window(&t, 10, Some(1.0)).is_err());
    }
}
