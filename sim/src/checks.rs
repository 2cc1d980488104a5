//! Checks of a recording that go into its manifest: agreement of the recorded joint forces with
//! the continuous-time inverse dynamics, and tracking of the prescribed profiles.

pub use crate::dataset::provenance::{Checks, SteadyState};
use crate::drive::Drive;
use crate::model::Chain;
use crate::recording::Recording;
use crate::residuals::ResidualSum;
pub use crate::residuals::{JointSample, Residuals, residual_scales, rnea_residual};
use crate::scenario::Scenario;

/// Largest relative period-to-period difference of a run that must be at steady state.
pub const STEADY_TOLERANCE: f64 = 1e-6;

/// The [`Residuals`] of a recording.
pub fn recording_residuals(chain: &Chain, rec: &Recording) -> Residuals {
    let nj = rec.joint_ids.len();
    let mut sum = ResidualSum::new(chain, rec.samples());
    let [mut q, mut qd, mut qdd, mut applied] = [(); 4].map(|_| Vec::with_capacity(nj));
    for s in 0..rec.samples() {
        for v in [&mut q, &mut qd, &mut qdd, &mut applied] {
            v.clear();
        }
        for j in (0..nj).map(|k| rec.joint(s, k)) {
            q.push(j.q);
            qd.push(j.qd);
            qdd.push(j.qdd);
            applied.push(j.tau + j.tau_friction);
        }
        sum.add(&q, &qd, &qdd, &applied);
    }
    sum.finish()
}

/// `|q − q_ref(t)|` of every prescribed joint at every sample: `(sample, joint, error)`, in
/// time order and joint order within a sample.
pub(crate) fn tracking_errors<'a>(
    scenario: &'a Scenario,
    rec: &'a Recording,
) -> impl Iterator<Item = (usize, usize, f64)> + 'a {
    (0..rec.samples()).flat_map(move |s| {
        (scenario.drives.iter().enumerate()).filter_map(move |(k, d)| match &d.drive {
            Drive::Motion(p) => Some((s, k, (rec.joint(s, k).q - p.eval(rec.t[s]).q).abs())),
            _ => None,
        })
    })
}

/// Largest `|q − q_ref(t)|` over prescribed joints and samples.
pub(crate) fn tracking_error(scenario: &Scenario, rec: &Recording) -> f64 {
    tracking_errors(scenario, rec)
        .map(|(_, _, e)| e)
        .fold(0.0, f64::max)
}

/// Largest `|q − q_ref(t)|` over servo joints and samples (the controllers' tracking error);
/// `None` without servo joints.
pub(crate) fn servo_tracking_error(scenario: &Scenario, rec: &Recording) -> Option<f64> {
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
/// and the record holds at least two whole periods ([`Scenario::steady_window`]).
pub fn steady_state(scenario: &Scenario, rec: &Recording) -> Option<SteadyState> {
    let (period, n) = scenario.steady_window()?;
    if rec.samples() <= 2 * n {
        return None;
    }
    let last = rec.samples() - 1;
    let (mut diff, mut amplitude) = (0.0f64, 0.0f64);
    for k in 0..rec.joint_ids.len() {
        let q = rec.joint_series(crate::recording::JointColumn::Q, k);
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
        steady: relative <= STEADY_TOLERANCE,
    })
}

/// All checks of a recording, its residuals given ([`recording_residuals`]).
pub fn checks(scenario: &Scenario, rec: &Recording, residuals: &Residuals) -> Checks {
    let rel = residuals.max_relative();
    Checks {
        rnea_max_rel_residual: rel.iter().copied().fold(0.0, f64::max),
        rnea_rel_residual: rel,
        max_tracking_error: tracking_error(scenario, rec),
        max_servo_tracking_error: servo_tracking_error(scenario, rec),
        steady_state: steady_state(scenario, rec),
        rapier: None,
    }
}
