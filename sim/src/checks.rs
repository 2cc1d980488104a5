//! Checks of a recording that go into its manifest: agreement of the recorded joint forces with
//! the continuous-time inverse dynamics, and tracking of the prescribed profiles.

use crate::dataset::manifest::Checks;
use crate::drive::Drive;
use crate::dynamics::rnea;
use crate::recording::Recording;
use crate::scenario::Scenario;

/// Per-joint relative residual of `RNEA(q, q̇, q̈)` against `tau + tau_friction` (see
/// [`Checks::rnea_rel_residual`]).
pub fn rnea_residual(scenario: &Scenario, rec: &Recording) -> Vec<f64> {
    let nj = rec.joint_ids.len();
    let (mut err, mut peak) = (vec![0.0f64; nj], vec![0.0f64; nj]);
    for s in 0..rec.samples() {
        let js: Vec<_> = (0..nj).map(|k| rec.joint(s, k)).collect();
        let q: Vec<f64> = js.iter().map(|j| j.q).collect();
        let qd: Vec<f64> = js.iter().map(|j| j.qd).collect();
        let qdd: Vec<f64> = js.iter().map(|j| j.qdd).collect();
        let id = rnea(&scenario.chain, &q, &qd, &qdd, &crate::gravity_vector());
        for k in 0..nj {
            let applied = js[k].tau + js[k].tau_friction;
            err[k] = err[k].max((id.tau[k] - applied).abs());
            peak[k] = peak[k].max(applied.abs());
        }
    }
    let kind_peak = |k: usize| {
        (0..nj)
            .filter(|&i| rec.joint_kinds[i] == rec.joint_kinds[k])
            .map(|i| peak[i])
            .fold(0.0, f64::max)
    };
    (0..nj)
        .map(|k| {
            let scale = if peak[k] >= 1e-6 * kind_peak(k) {
                peak[k]
            } else {
                kind_peak(k)
            };
            if scale > 0.0 { err[k] / scale } else { err[k] }
        })
        .collect()
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

/// All checks of a recording.
pub fn checks(scenario: &Scenario, rec: &Recording) -> Checks {
    let rel = rnea_residual(scenario, rec);
    Checks {
        rnea_max_rel_residual: rel.iter().copied().fold(0.0, f64::max),
        rnea_rel_residual: rel,
        max_tracking_error: tracking_error(scenario, rec),
    }
}
