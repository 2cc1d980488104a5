//! The gates of [`super::validate`], one function each: the first failure of each, samples in
//! time order, joints before bodies within a sample.

use super::{
    Gate, INTEGRATION_TOLERANCE, Invalid, NEWTON_EULER_TOLERANCE, PRECISION_TOLERANCE,
    RNEA_TOLERANCE, STEADY_TOLERANCE, TRACKING_TOLERANCE,
};
use crate::checks::{Checks, Residuals};
use crate::drive::Drive;
use crate::recording::{BodyGroup, Recording};
use crate::scenario::Scenario;
use crate::simulation::StepDifferences;

fn invalid(
    rec: &Recording,
    gate: Gate,
    place: String,
    sample: usize,
    value: f64,
    tolerance: f64,
) -> Invalid {
    Invalid {
        run: rec.run_id.clone(),
        gate,
        place,
        sample,
        time: rec.t[sample],
        value,
        tolerance,
    }
}

fn joint_name(rec: &Recording, k: usize) -> String {
    format!("joint {} (O{})", rec.joint_ids[k], rec.joint_ids[k])
}

/// The first NaN or infinity: joint columns, body columns, then the noisy copies.
pub(super) fn non_finite(rec: &Recording) -> Result<(), Invalid> {
    for s in 0..rec.samples() {
        if sample_finite(rec, s) {
            continue;
        }
        for k in 0..rec.joint_ids.len() {
            let j = rec.joint(s, k);
            let columns = [
                ("q", j.q),
                ("qd", j.qd),
                ("qdd", j.qdd),
                ("tau", j.tau),
                ("tau_friction", j.tau_friction),
                ("i", j.current),
                ("bristle_z", j.bristle_z),
                ("q_motor", j.q_motor),
                ("qd_motor", j.qd_motor),
            ];
            if let Some((name, v)) = columns.iter().find(|(_, v)| !v.is_finite()) {
                let place = format!("{} column {name}", joint_name(rec, k));
                return Err(invalid(rec, Gate::NonFinite, place, s, *v, 0.0));
            }
        }
        for b in 1..=rec.n_bodies {
            let body = rec.body(s, b);
            let groups = BodyGroup::NOISY.map(|g| (g.name(), g.of(body)));
            let all = groups.into_iter().chain([("o", body.joint_point)]);
            for (name, v) in all {
                if let Some(x) = v.iter().find(|x| !x.is_finite()) {
                    let place = format!("body {b} {name}");
                    return Err(invalid(rec, Gate::NonFinite, place, s, *x, 0.0));
                }
            }
        }
    }
    noisy_non_finite(rec)
}

/// Whether every value that [`non_finite`] checks at sample `s` is finite (its fast path: the
/// search that names the first bad one runs only where this fails).
fn sample_finite(rec: &Recording, s: usize) -> bool {
    let finite = |values: &[f64]| values.iter().fold(true, |ok, v| ok & v.is_finite());
    let mut ok = true;
    for k in 0..rec.joint_ids.len() {
        let j = rec.joint(s, k);
        ok &= finite(&[
            j.q,
            j.qd,
            j.qdd,
            j.tau,
            j.tau_friction,
            j.current,
            j.bristle_z,
            j.q_motor,
            j.qd_motor,
        ]);
    }
    for b in 1..=rec.n_bodies {
        let body = rec.body(s, b);
        for g in BodyGroup::NOISY {
            ok &= finite(g.of(body).as_slice());
        }
        ok &= finite(body.joint_point.as_slice());
    }
    ok
}

/// The first NaN or infinity of the noisy copies (`<column>_meas`), joints' then bodies'.
fn noisy_non_finite(rec: &Recording) -> Result<(), Invalid> {
    let tables = [
        (&rec.measured, rec.joint_ids.len().max(1), "joints"),
        (&rec.measured_bodies, rec.n_bodies.max(1), "bodies"),
    ];
    for (columns, rows, table) in tables {
        for (name, values) in columns.iter() {
            if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                let place = format!("{table} column {name}, row {}", i % rows);
                return Err(invalid(
                    rec,
                    Gate::NonFinite,
                    place,
                    i / rows,
                    values[i],
                    0.0,
                ));
            }
        }
    }
    Ok(())
}

/// The model's length scale for [`precision`]: the largest distance from a body's joint point
/// to its centroid (rigid, so read at the first sample); 1 m if every one is 0.
fn length_scale(rec: &Recording) -> f64 {
    let l = (1..=rec.n_bodies)
        .filter(|_| rec.samples() > 0)
        .map(|b| {
            let body = rec.body(0, b);
            (body.joint_point - body.pos).norm()
        })
        .fold(0.0f64, f64::max);
    if l > 0.0 { l } else { 1.0 }
}

/// The first body position (centroid or joint point) whose `f64` resolution, relative to the
/// model's size, exceeds the tolerance.
pub(super) fn precision(rec: &Recording) -> Result<(), Invalid> {
    let scale = length_scale(rec);
    for s in 0..rec.samples() {
        for b in 1..=rec.n_bodies {
            let body = rec.body(s, b);
            for (name, p) in [("pos", body.pos), ("o", body.joint_point)] {
                let r = f64::EPSILON * p.amax() / scale;
                if r > PRECISION_TOLERANCE {
                    let place = format!("body {b} {name} (model size {scale:.3e} m)");
                    return Err(invalid(
                        rec,
                        Gate::Precision,
                        place,
                        s,
                        r,
                        PRECISION_TOLERANCE,
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The first sample whose inverse-dynamics residual exceeds the tolerance, normalized as the
/// manifest's `rnea_rel_residual` ([`crate::checks::Residuals::relative`]).
pub(super) fn inverse_dynamics(rec: &Recording, residuals: &Residuals) -> Result<(), Invalid> {
    for s in 0..residuals.samples() {
        for k in 0..residuals.scale.len() {
            let r = residuals.relative(s, k);
            if r.is_nan() || r > RNEA_TOLERANCE {
                let place = joint_name(rec, k);
                return Err(invalid(
                    rec,
                    Gate::InverseDynamics,
                    place,
                    s,
                    r,
                    RNEA_TOLERANCE,
                ));
            }
        }
    }
    Ok(())
}

/// Per body and sample, the Newton–Euler residuals of the recorded body columns: the force
/// `m (a − g) − (f_i − f_child)` and, in the body frame about the centroid,
/// `I ω̇ + ω × I ω − Rᵀ (n_i − n_child + (O_i − c) × f_i − (O_child − c) × f_child)`;
/// with each body's scales (the largest magnitude of the terms over the run).
struct Closure {
    /// `[sample · n + body − 1] = (force residual, moment residual)`, `n` bodies per sample.
    residuals: Vec<(f64, f64)>,
    /// Per body: (force scale, moment scale).
    scales: Vec<(f64, f64)>,
}

fn closure(scenario: &Scenario, rec: &Recording) -> Closure {
    let g = scenario.chain.gravity_vector();
    let n = rec.n_bodies;
    let mut scales = vec![(0.0f64, 0.0f64); n];
    let residuals = (0..rec.samples())
        .flat_map(|s| (1..=n).map(move |b| (s, b)))
        .map(|(s, b)| {
            let body = rec.body(s, b);
            let link = &scenario.chain.links[b - 1].body;
            let (fc, nc, oc) = match b < n {
                true => {
                    let c = rec.body(s, b + 1);
                    (c.force, c.moment, c.joint_point)
                }
                false => (Default::default(), Default::default(), body.joint_point),
            };
            let inertial = link.mass * (body.acc - g);
            let rf = (inertial - (body.force - fc)).norm();
            let inertia = link.inertia_body();
            let (w, wd) = (body.omega, body.omega_dot);
            let lhs = inertia * wd + w.cross(&(inertia * w));
            let arm = body.joint_point - body.pos;
            let world = body.moment - nc + arm.cross(&body.force) - (oc - body.pos).cross(&fc);
            let rm = (lhs - body.quat.inverse() * world).norm();
            let scale = &mut scales[b - 1];
            scale.0 = scale.0.max(inertial.norm()).max(body.force.norm());
            scale.1 = (scale.1.max(lhs.norm()))
                .max(body.moment.norm())
                .max(arm.cross(&body.force).norm());
            (rf, rm)
        })
        .collect();
    Closure { residuals, scales }
}

/// The first sample where a body's recorded wrenches and motion break the Newton–Euler
/// equations by more than the tolerance (relative to the body's scale).
pub(super) fn newton_euler(scenario: &Scenario, rec: &Recording) -> Result<(), Invalid> {
    let c = closure(scenario, rec);
    let rel = |r: f64, scale: f64| if scale > 0.0 { r / scale } else { r };
    let n = rec.n_bodies;
    for (s, row) in c.residuals.chunks(n.max(1)).enumerate() {
        for (k, (rf, rm)) in row.iter().enumerate() {
            let (sf, sm) = c.scales[k];
            for (what, r) in [("force", rel(*rf, sf)), ("moment", rel(*rm, sm))] {
                if r.is_nan() || r > NEWTON_EULER_TOLERANCE {
                    let place = format!("body {} ({what} balance)", k + 1);
                    return Err(invalid(
                        rec,
                        Gate::NewtonEuler,
                        place,
                        s,
                        r,
                        NEWTON_EULER_TOLERANCE,
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The first sample where a prescribed joint is off its profile by more than the tolerance.
pub(super) fn tracking(scenario: &Scenario, rec: &Recording) -> Result<(), Invalid> {
    let bad = crate::checks::tracking_errors(scenario, rec)
        .find(|(_, _, e)| e.is_nan() || *e > TRACKING_TOLERANCE);
    match bad {
        Some((s, k, e)) => Err(invalid(
            rec,
            Gate::Tracking,
            joint_name(rec, k),
            s,
            e,
            TRACKING_TOLERANCE,
        )),
        None => Ok(()),
    }
}

/// The first sample where the engine's step of an integrated (not prescribed) joint disagrees
/// with its recorded acceleration by more than the tolerance.
pub(super) fn integration(
    scenario: &Scenario,
    rec: &Recording,
    steps: &StepDifferences,
) -> Result<(), Invalid> {
    for s in 0..steps.samples().min(rec.samples()) {
        for (k, d) in scenario.drives.iter().enumerate() {
            if matches!(d.drive, Drive::Motion(_)) {
                continue;
            }
            let r = steps.relative(s, k);
            if r.is_nan() || r > INTEGRATION_TOLERANCE {
                let place = joint_name(rec, k);
                return Err(invalid(
                    rec,
                    Gate::Integration,
                    place,
                    s,
                    r,
                    INTEGRATION_TOLERANCE,
                ));
            }
        }
    }
    Ok(())
}

/// A run that must end at steady state ([`crate::scenario::TimeSection::steady_state`]) and
/// does not; the place is the last period, the sample its first.
pub(super) fn steady_state(
    scenario: &Scenario,
    rec: &Recording,
    checks: &Checks,
) -> Result<(), Invalid> {
    if !scenario.file.time.steady_state {
        return Ok(());
    }
    let (Some(state), Some((_, n))) = (&checks.steady_state, scenario.steady_window()) else {
        return Ok(());
    };
    if state.relative.is_nan() || state.relative > STEADY_TOLERANCE {
        let first = rec.samples() - 1 - n;
        let place = format!("the last period ({} s), all joints", state.period);
        return Err(invalid(
            rec,
            Gate::SteadyState,
            place,
            first,
            state.relative,
            STEADY_TOLERANCE,
        ));
    }
    Ok(())
}
