//! Validity gates of a run: a dataset that fails its own physics checks must not look like a good
//! one. Every run is checked after simulation ([`validate`]); the first failure is recorded in
//! the manifest ([`crate::dataset::Manifest::invalid`]) and the writers refuse such a run unless
//! asked to keep it ([`crate::dataset::write_run_keeping_invalid`], `sim run --keep-invalid`).
//!
//! The gates, in order, each naming the first bad sample, its time and the joint or column:
//!
//! | check | fails when | tolerance |
//! |---|---|---|
//! | `non_finite` | any recorded joint or body value is NaN or infinite | — |
//! | `inverse_dynamics` | `|RNEA(q, q̇, q̈) − (tau + tau_friction)|` of a joint, relative to its peak as [`crate::checks::rnea_residual`] normalizes it | [`RNEA_TOLERANCE`] |
//! | `tracking` | a prescribed joint leaves its profile (rad or m) | [`TRACKING_TOLERANCE`] |
//!
//! The recorded columns are evaluated from the dynamics at the recorded state, so a healthy run
//! sits at rounding (1e-16 … 1e-13 relative, tracking 1e-19); the tolerances leave six orders of
//! magnitude and catch what the engine cannot represent: a state driven to huge velocities by
//! unbounded torques (where the explicit integration of the gyroscopic terms diverges), or a
//! prescribed joint the kinematic update can no longer follow.

use serde::{Deserialize, Serialize};

use crate::checks::Residuals;
use crate::drive::Drive;
use crate::recording::{BodyGroup, Recording};
use crate::scenario::Scenario;

/// Largest relative inverse-dynamics residual of a valid run.
pub const RNEA_TOLERANCE: f64 = 1e-9;
/// Largest deviation of a prescribed joint from its profile in a valid run (rad or m).
pub const TRACKING_TOLERANCE: f64 = 1e-9;

/// Which gate failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A NaN or infinite value.
    NonFinite,
    /// The recorded forces disagree with the inverse dynamics of the recorded motion.
    InverseDynamics,
    /// A prescribed joint left its profile.
    Tracking,
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Gate::NonFinite => "non_finite",
            Gate::InverseDynamics => "inverse_dynamics",
            Gate::Tracking => "tracking",
        })
    }
}

/// The first failed gate of a run: where, when, by how much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
pub struct Invalid {
    /// Run id.
    pub run: String,
    /// The gate.
    pub gate: Gate,
    /// The joint (`joint 2 (O2)`) or body column (`body 3 f`).
    pub place: String,
    /// First bad sample.
    pub sample: usize,
    /// Its time (s).
    pub time: f64,
    /// The offending value (the residual, the error, or the non-finite value itself; JSON
    /// writes a non-finite one as the string `NaN`, `inf` or `-inf`).
    #[serde(with = "lossless")]
    pub value: f64,
    /// The gate's tolerance (0 for `non_finite`).
    pub tolerance: f64,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run `{}` is invalid: check `{}` failed at {}, sample {} (t = {} s): ",
            self.run, self.gate, self.place, self.sample, self.time
        )?;
        match self.gate {
            Gate::NonFinite => write!(f, "the value is {}", self.value),
            _ => write!(f, "{:e} > tolerance {:e}", self.value, self.tolerance),
        }
    }
}

/// A float in JSON whatever its value: finite ones as numbers, the others as strings.
mod lossless {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            Repr::Number(*v)
        } else {
            Repr::Text(v.to_string())
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Runs the gates on a recording of `scenario` (its inverse-dynamics residuals given, as the
/// manifest's checks computed them); the first failure, if any.
pub fn validate(
    scenario: &Scenario,
    rec: &Recording,
    residuals: &Residuals,
) -> Result<(), Invalid> {
    non_finite(rec)?;
    inverse_dynamics(rec, residuals)?;
    tracking(scenario, rec)
}

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

/// The first NaN or infinity, joints before bodies within a sample.
fn non_finite(rec: &Recording) -> Result<(), Invalid> {
    for s in 0..rec.samples() {
        for k in 0..rec.joint_ids.len() {
            let j = rec.joint(s, k);
            let columns = [
                ("q", j.q),
                ("qd", j.qd),
                ("qdd", j.qdd),
                ("tau", j.tau),
                ("tau_friction", j.tau_friction),
                ("i", j.current),
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
    Ok(())
}

/// The first sample whose inverse-dynamics residual exceeds the tolerance, normalized as the
/// manifest's `rnea_rel_residual` ([`crate::checks::Residuals::relative`]).
fn inverse_dynamics(rec: &Recording, residuals: &Residuals) -> Result<(), Invalid> {
    for s in 0..residuals.absolute.len() {
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

/// The first sample where a prescribed joint is off its profile by more than the tolerance.
fn tracking(scenario: &Scenario, rec: &Recording) -> Result<(), Invalid> {
    for s in 0..rec.samples() {
        for (k, d) in scenario.drives.iter().enumerate() {
            if let Drive::Motion(p) = &d.drive {
                let e = (rec.joint(s, k).q - p.eval(rec.t[s]).q).abs();
                if e.is_nan() || e > TRACKING_TOLERANCE {
                    let place = joint_name(rec, k);
                    return Err(invalid(
                        rec,
                        Gate::Tracking,
                        place,
                        s,
                        e,
                        TRACKING_TOLERANCE,
                    ));
                }
            }
        }
    }
    Ok(())
}
