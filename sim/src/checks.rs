//! Checks of a recording that go into its manifest: agreement of the recorded joint forces with
//! the continuous-time inverse dynamics, and tracking of the prescribed profiles.

use serde::{Deserialize, Serialize};

use crate::drive::Drive;
use crate::dynamics::rnea;
use crate::model::Chain;
use crate::recording::Recording;
use crate::scenario::Scenario;

/// Largest relative period-to-period difference of a run that must be at steady state.
pub const STEADY_TOLERANCE: f64 = 1e-6;

/// Checks of a run against the continuous-time inverse dynamics ([`crate::dynamics`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    /// Per joint (dataset order): `max_t |RNEA(q, q̇, q̈) − (tau + tau_friction)|` divided by
    /// `max_t |tau + tau_friction|` (or by the largest joint's peak of the same kind where the
    /// joint's own peak is below 1e-6 of it).
    pub rnea_rel_residual: Vec<f64>,
    /// The largest of them.
    pub rnea_max_rel_residual: f64,
    /// Largest deviation of a prescribed joint from its profile (rad or m).
    pub max_tracking_error: f64,
    /// Largest deviation of a servo joint from its reference (rad or m): the controllers'
    /// tracking error; absent without servo joints.
    #[serde(default)]
    pub max_servo_tracking_error: Option<f64>,
    /// For periodic excitation: how far the last period repeats the one before.
    pub steady_state: Option<SteadyState>,
    /// How far Rapier's discrete world is from the recorded readings (absent in runs written
    /// before the readings were evaluated from the dynamics).
    #[serde(default)]
    pub rapier: Option<crate::simulation::RapierConsistency>,
}

/// Steady-state check of a periodically excited run: the last period against the one before.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteadyState {
    /// Excitation period (s).
    pub period: f64,
    /// `max_t |q(t) − q(t − period)|` over the last period and all joints (rad or m).
    pub max_period_difference: f64,
    /// The same divided by the largest `|q − mean(q)|` of the last period.
    pub relative: f64,
    /// Whether `relative ≤ 1e-6`.
    pub steady: bool,
}

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

/// `|RNEA(q, q̇, q̈) − (tau + tau_friction)|` of every joint at every sample, and the scale each
/// joint's residual is relative to ([`residual_scales`]): computed once per run, read by the
/// manifest's checks and by the validity gates ([`crate::validity`]).
#[derive(Clone, Debug, Default)]
pub struct Residuals {
    /// Per sample, per joint (dataset order): the absolute residual (N·m or N).
    pub absolute: Vec<Vec<f64>>,
    /// Per joint: the scale of its relative residual.
    pub scale: Vec<f64>,
}

impl Residuals {
    /// The residuals of a run's samples.
    pub fn of(chain: &Chain, samples: impl IntoIterator<Item = JointSample>) -> Self {
        let kinds = chain.joint_kinds();
        let mut peak = vec![0.0f64; kinds.len()];
        let absolute = samples
            .into_iter()
            .map(|s| {
                let id = rnea(chain, &s.q, &s.qd, &s.qdd, &crate::gravity_vector());
                (0..kinds.len())
                    .map(|k| {
                        peak[k] = peak[k].max(s.applied[k].abs());
                        (id.tau[k] - s.applied[k]).abs()
                    })
                    .collect()
            })
            .collect();
        Residuals {
            absolute,
            scale: residual_scales(&kinds, &peak),
        }
    }

    /// Residual of joint `k` at sample `s`, relative to the joint's scale (absolute where the
    /// scale is 0).
    pub fn relative(&self, s: usize, k: usize) -> f64 {
        let scale = self.scale[k];
        let r = self.absolute[s][k];
        if scale > 0.0 { r / scale } else { r }
    }

    /// Per joint, the largest relative residual over the samples
    /// ([`Checks::rnea_rel_residual`]).
    pub fn max_relative(&self) -> Vec<f64> {
        (0..self.scale.len())
            .map(|k| {
                (0..self.absolute.len())
                    .map(|s| self.relative(s, k))
                    .fold(0.0, f64::max)
            })
            .collect()
    }
}

/// Per-joint relative residual of `RNEA(q, q̇, q̈)` against `tau + tau_friction` over a run's
/// samples (see [`Checks::rnea_rel_residual`] for the normalization).
pub fn rnea_residual(chain: &Chain, samples: impl IntoIterator<Item = JointSample>) -> Vec<f64> {
    Residuals::of(chain, samples).max_relative()
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

/// The [`Residuals`] of a recording.
pub fn recording_residuals(chain: &Chain, rec: &Recording) -> Residuals {
    let nj = rec.joint_ids.len();
    Residuals::of(
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

/// `|q − q_ref(t)|` of every prescribed joint at every sample: `(sample, joint, error)`, in
/// time order and joint order within a sample.
pub fn tracking_errors<'a>(
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
pub fn tracking_error(scenario: &Scenario, rec: &Recording) -> f64 {
    tracking_errors(scenario, rec)
        .map(|(_, _, e)| e)
        .fold(0.0, f64::max)
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
