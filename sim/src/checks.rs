//! Checks of a recording that go into its manifest: agreement of the recorded joint forces with
//! the continuous-time inverse dynamics, and tracking of the prescribed profiles.

pub use crate::dataset::manifest::Checks;
use crate::dataset::manifest::SteadyState;
use crate::drive::Drive;
use crate::dynamics::rnea;
use crate::model::Chain;
use crate::recording::Recording;
use crate::scenario::Scenario;

/// Joint values at one sample, in dataset joint order.
#[derive(Clone, Debug)]
pub struct JointSample {
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub qd: Vec<f64>,
    /// Accelerations.
    pub qdd: Vec<f64>,
    /// `tau + tau_friction`.
    pub applied: Vec<f64>,
}

/// Per-joint relative residual of `RNEA(q, q̇, q̈)` against `tau + tau_friction` over a run's
/// samples (see [`Checks::rnea_rel_residual`] for the normalization).
pub fn rnea_residual(chain: &Chain, samples: impl IntoIterator<Item = JointSample>) -> Vec<f64> {
    let kinds = chain.joint_kinds();
    let nj = kinds.len();
    let (mut err, mut peak) = (vec![0.0f64; nj], vec![0.0f64; nj]);
    for s in samples {
        let id = rnea(chain, &s.q, &s.qd, &s.qdd, &crate::gravity_vector());
        for k in 0..nj {
            err[k] = err[k].max((id.tau[k] - s.applied[k]).abs());
            peak[k] = peak[k].max(s.applied[k].abs());
        }
    }
    let scale = residual_scales(&kinds, &peak);
    (0..nj)
        .map(|k| {
            if scale[k] > 0.0 {
                err[k] / scale[k]
            } else {
                err[k]
            }
        })
        .collect()
}

/// The scale of each joint's inverse-dynamics residual: its own peak `|tau + tau_friction|`, or
/// the largest peak among joints of its kind where its own is below 1e-6 of that.
pub fn residual_scales(kinds: &[crate::model::JointKind], peak: &[f64]) -> Vec<f64> {
    let nj = kinds.len();
    let kind_peak = |k: usize| {
        (0..nj)
            .filter(|&i| kinds[i] == kinds[k])
            .map(|i| peak[i])
            .fold(0.0, f64::max)
    };
    (0..nj)
        .map(|k| {
            if peak[k] >= 1e-6 * kind_peak(k) {
                peak[k]
            } else {
                kind_peak(k)
            }
        })
        .collect()
}

/// [`rnea_residual`] of a recording.
pub fn recording_rnea_residual(chain: &Chain, rec: &Recording) -> Vec<f64> {
    let nj = rec.joint_ids.len();
    rnea_residual(
        chain,
        (0..rec.samples()).map(|s| {
            let js: Vec<_> = (0..nj).map(|k| rec.joint(s, k)).collect();
            JointSample {
                q: js.iter().map(|j| j.q).collect(),
                qd: js.iter().map(|j| j.qd).collect(),
                qdd: js.iter().map(|j| j.qdd).collect(),
                applied: js.iter().map(|j| j.tau + j.tau_friction).collect(),
            }
        }),
    )
}

/// Largest `|q − q_ref(t)|` over prescribed joints and samples.
pub fn tracking_error(scenario: &Scenario, rec: &Recording) -> f64 {
    let mut worst = 0.0f64;
    for (k, d) in scenario.drives.iter().enumerate() {
        if let Drive::Motion(p) = &d.drive {
            for s in 0..rec.samples() {
                worst = worst.max((rec.joint(s, k).q - p.eval(rec.t[s]).q).abs());
            }
        }
    }
    worst
}

/// Largest `|q − q_ref(t)|` over servo joints and samples (the controllers' tracking error);
/// `None` without servo joints.
pub fn servo_tracking_error(scenario: &Scenario, rec: &Recording) -> Option<f64> {
    let mut worst: Option<f64> = None;
    for (k, d) in scenario.drives.iter().enumerate() {
        if let Drive::Servo(servo) = &d.drive {
            for s in 0..rec.samples() {
                let e = (rec.joint(s, k).q - servo.reference.eval(rec.t[s]).q).abs();
                worst = Some(worst.unwrap_or(0.0).max(e));
            }
        }
    }
    worst
}

/// Compares the last excitation period with the one before, where the excitation is periodic
/// and the record holds at least two whole periods.
pub fn steady_state(scenario: &Scenario, rec: &Recording) -> Option<SteadyState> {
    let period = scenario.excitation_period()?;
    let per = period / scenario.file.time.sample_period;
    let n = per.round() as usize;
    if (per - n as f64).abs() > 1e-9 * per || rec.samples() < 2 * n + 1 {
        return None;
    }
    let last = rec.samples() - 1;
    let (mut diff, mut amplitude) = (0.0f64, 0.0f64);
    for k in 0..rec.joint_ids.len() {
        let q = rec.joint_series("q", k);
        let window = &q[last - n..=last];
        let mean = window.iter().sum::<f64>() / window.len() as f64;
        for s in last - n..=last {
            diff = diff.max((q[s] - q[s - n]).abs());
            amplitude = amplitude.max((q[s] - mean).abs());
        }
    }
    let relative = if amplitude > 0.0 {
        diff / amplitude
    } else {
        diff
    };
    Some(SteadyState {
        period,
        max_period_difference: diff,
        relative,
        steady: relative <= 1e-6,
    })
}

/// All checks of a recording.
pub fn checks(scenario: &Scenario, rec: &Recording) -> Checks {
    let rel = recording_rnea_residual(&scenario.chain, rec);
    Checks {
        rnea_max_rel_residual: rel.iter().copied().fold(0.0, f64::max),
        rnea_rel_residual: rel,
        max_tracking_error: tracking_error(scenario, rec),
        max_servo_tracking_error: servo_tracking_error(scenario, rec),
        steady_state: steady_state(scenario, rec),
        rapier: None,
    }
}
