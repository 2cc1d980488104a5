//! The checks of a scenario that concern more than one field: a chain Rapier can simulate,
//! prescribed motions within their joints' limits, the `[[noise]]` and `[[sensor]]` sections
//! against the model's joints and bodies, a payload the last link can carry.

use super::{ScenarioError, ScenarioFile};
use crate::model::Chain;
use crate::profile::Profile;
use crate::recording::{BodyGroup, JointColumn};
use crate::sensor::Sensor;

/// `Err` (`invalid` of the field `model`) for a body Rapier cannot simulate: one with exactly
/// one zero principal moment (an ideal rod). Rapier inverts the world inertia tensor and replaces
/// a singular one by zero, so such a body would lose its inertia; a point mass (all three zero)
/// is simulated exactly.
pub(super) fn simulable(
    chain: &Chain,
    invalid: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    for link in &chain.links {
        let zeros = link.body.inertia.iter().filter(|j| **j == 0.0).count();
        if zeros == 1 {
            return Err(invalid(
                "model",
                format!(
                    "link \"{}\": principal moments {:?} kg·m² with one zero (an ideal rod): Rapier \
                 would drop its inertia (expected three positive moments, or all zero for a \
                 point mass)",
                    link.name, link.body.inertia
                ),
            ));
        }
    }
    Ok(())
}

/// `Err` where a prescribed profile leaves the joint's `<limit>` range (checked at every
/// integrator step up to `steps`). Revolute joints may work anywhere within their limits,
/// beyond ±π too: the multibody's joint coordinate is not wrapped.
pub(super) fn within_limits(
    p: &Profile,
    limits: &crate::model::JointLimits,
    steps: usize,
    dt: f64,
) -> Result<(), OutOfLimits> {
    let slack = 1e-9 * (limits.upper - limits.lower).abs().max(1.0);
    let range = limits.lower - slack..=limits.upper + slack;
    match (0..steps)
        .map(|k| (k as f64 * dt, p.eval(k as f64 * dt).q))
        .find(|(_, q)| !range.contains(q))
    {
        Some((t, q)) => Err(OutOfLimits {
            limits: *limits,
            q,
            t,
        }),
        None => Ok(()),
    }
}

/// Where a prescribed profile first leaves its joint's limits.
#[derive(Clone, Copy, Debug)]
pub(super) struct OutOfLimits {
    /// The joint's limits.
    limits: crate::model::JointLimits,
    /// The coordinate reached (rad or m).
    q: f64,
    /// When (s).
    t: f64,
}

impl std::fmt::Display for OutOfLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expected a profile within the joint's limits [{}, {}]; it reaches {} at t = {} s",
            self.limits.lower, self.limits.upper, self.q, self.t
        )
    }
}

/// Checks `[[noise]]` and `[[sensor]]`: known columns, joints and bodies that exist, one sensor
/// of a kind per body or joint, one clock.
pub(super) fn validate_measurement(
    file: &ScenarioFile,
    ids: &[u8],
    bodies: usize,
    invalid: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let body_ids: Vec<u8> = (1..=bodies as u8).collect();
    let check_ids = |field: &str, list: &Option<Vec<u8>>, valid: &[u8], what: &str| match list
        .iter()
        .flatten()
        .find(|j| !valid.contains(j))
    {
        Some(bad) => Err(invalid(
            field,
            format!("expected {what} among {valid:?}, got {bad}"),
        )),
        None => Ok(()),
    };
    for (k, n) in file.noise.iter().enumerate() {
        let is_joint = JointColumn::from_name(&n.column).is_some();
        let is_body = BodyGroup::NOISY.iter().any(|g| g.name() == n.column);
        if !is_joint && !is_body {
            let groups: Vec<&str> = BodyGroup::NOISY.iter().map(|g| g.name()).collect();
            let joints: Vec<&str> = JointColumn::ALL.iter().map(|c| c.name()).collect();
            return Err(invalid(
                &format!("noise[{k}].column"),
                format!(
                    "expected a joint column {joints:?} or a body group {groups:?}, got {:?}",
                    n.column
                ),
            ));
        }
        if is_body && n.joints.is_some() {
            return Err(invalid(
                &format!("noise[{k}].joints"),
                format!("expected `bodies` for the body group {:?}", n.column),
            ));
        }
        if is_joint && n.bodies.is_some() {
            return Err(invalid(
                &format!("noise[{k}].bodies"),
                format!("expected `joints` for the joint column {:?}", n.column),
            ));
        }
        check_ids(&format!("noise[{k}].joints"), &n.joints, ids, "joints")?;
        check_ids(
            &format!("noise[{k}].bodies"),
            &n.bodies,
            &body_ids,
            "bodies",
        )?;
        for (i, m) in n.model.iter().enumerate() {
            m.validate()
                .map_err(|(f, e)| invalid(&format!("noise[{k}].model[{i}].{f}"), e))?;
            m.check_rate(file.time.sample_period)
                .map_err(|(f, e)| invalid(&format!("noise[{k}].model[{i}].{f}"), e))?;
        }
    }
    for (k, s) in file.sensor.iter().enumerate() {
        s.validate(file.time.sample_period)
            .map_err(|(f, e)| invalid(&format!("sensor[{k}].{f}"), e))?;
        match s {
            Sensor::ForceTorque { bodies: b, .. } | Sensor::Imu { bodies: b, .. } => {
                check_ids(&format!("sensor[{k}].bodies"), b, &body_ids, "bodies")?;
            }
            Sensor::Encoder { joints, .. } => {
                check_ids(&format!("sensor[{k}].joints"), joints, ids, "joints")?
            }
            Sensor::Clock { .. } => {}
        }
        let same_kind = |o: &Sensor| std::mem::discriminant(o) == std::mem::discriminant(s);
        let overlap = file.sensor[..k].iter().filter(|o| same_kind(o)).any(|o| {
            matches!(s, Sensor::Clock { .. })
                || body_ids
                    .iter()
                    .any(|&b| o.covers_body(b) && s.covers_body(b))
                || ids.iter().any(|&j| o.covers_joint(j) && s.covers_joint(j))
        });
        if overlap {
            return Err(invalid(
                &format!("sensor[{k}]"),
                "expected at most one sensor of a kind per body or joint (and one clock)".into(),
            ));
        }
    }
    Ok(())
}

/// `chain` with its last link carrying `payload`; `Err` names the payload's field.
pub(super) fn carrying(
    mut chain: Chain,
    payload: &crate::payload::Payload,
) -> Result<Chain, crate::param::ParamError> {
    payload.validate()?;
    let Some(last) = chain.links.last_mut() else {
        return Err((
            "mass".into(),
            "expected a model with a link to carry it".into(),
        ));
    };
    last.body = payload.carried_by(&last.body);
    Ok(chain)
}
