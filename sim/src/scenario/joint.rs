//! One `[[joint]]` section checked against its joint of the model: exactly one actuation, the
//! gain, damping and the generator effects it states (friction, rotor, spring, motor and the
//! registered terms of `sim::term`), each where it can act; the result is the joint's
//! [`JointDrive`].

use std::path::Path;

use super::check::within_limits;
use super::{JointDrive, JointSection, ScenarioError, ScenarioFile, Transmission};
use crate::drive::Drive;
use crate::model::Chain;
use crate::param::{non_negative, positive};
use crate::profile::Profile;
use crate::profile::recorded::Recordings;
use crate::term::Place;

/// Turns a field and what was expected into the scenario's error.
pub(super) type Invalid<'a> = dyn Fn(&str, String) -> ScenarioError + 'a;

/// Where the joint's section is and what it is checked against.
pub(super) struct JointContext<'a> {
    /// The section's position in `[[joint]]` (for field names).
    pub k: usize,
    /// The dataset joint id (0: the rail).
    pub id: u8,
    /// The model, before the scenario's damping and friction are applied.
    pub chain: &'a Chain,
    /// The file (time span, torque scale).
    pub file: &'a ScenarioFile,
    /// Where a recorded motion's relative path starts.
    pub base: &'a Path,
    /// Integrator steps of the whole run.
    pub steps: usize,
}

/// The drive of `j`, checked: its actuation, gain, damping and effects.
pub(super) fn joint_drive(
    cx: &JointContext,
    j: &JointSection,
    recordings: &mut Recordings,
    invalid: &Invalid,
) -> Result<JointDrive, ScenarioError> {
    let (k, id, chain) = (cx.k, cx.id, cx.chain);
    let field = |f: &str| format!("joint[{k}].{f}");
    let drive = actuation(cx, j, recordings, invalid)?;
    positive("gain", j.gain, "drive gain in N·m/A (N/A)")
        .map_err(|(f, e)| invalid(&field(&f), e))?;
    // The model's joint (none for the rail): its limits, damping, armature and friction are
    // the defaults the section may replace.
    let model = (id > 0).then(|| &chain.links[id as usize - 1].joint);
    let limits = model.and_then(|m| m.limits);
    if let (Drive::Motion(p), Some(l)) = (&drive, limits) {
        within_limits(p, &l, cx.steps, cx.file.time.step)
            .map_err(|e| invalid(&field("motion"), e.to_string()))?;
    }
    if id == 0 && !matches!(drive, Drive::Motion(_)) {
        return Err(invalid(
            &field("motion"),
            "expected a `motion` for the rail (joint 0): its massless carriage is moved kinematically".into(),
        ));
    }
    let damping = j.damping.unwrap_or(model.map_or(0.0, |m| m.damping));
    non_negative("damping", damping).map_err(|(f, e)| invalid(&field(&f), e))?;
    if id == 0 && damping != 0.0 {
        return Err(invalid(
            &field("damping"),
            "expected 0 for the kinematic rail".into(),
        ));
    }
    effects(k, id, j, &drive, invalid)?;
    let model_armature = model.map_or(0.0, |m| m.armature);
    if let Some(s) = j.start {
        if matches!(drive, Drive::Motion(_)) {
            return Err(invalid(
                &field("start"),
                "expected none on a prescribed joint: its motion states where it starts".into(),
            ));
        }
        crate::param::finite("start.q", s.q)
            .and_then(|()| crate::param::finite("start.qd", s.qd))
            .map_err(|(f, e)| invalid(&field(&f), e))?;
    }
    Ok(JointDrive {
        id,
        drive,
        start: j.start,
        damping,
        spring: model.map_or((0.0, 0.0), |m| (m.stiffness, m.spring_rest)),
        friction: (j.friction.clone()).or_else(|| model.and_then(|m| m.friction.clone())),
        gain: j.gain,
        transmission: match (j.rotor, j.spring) {
            (None, _) if model_armature > 0.0 => Transmission::Rigid {
                armature: model_armature,
            },
            (None, _) => Transmission::Direct,
            (Some(r), None) => Transmission::Rigid {
                armature: r.reflected(),
            },
            (Some(r), Some(spring)) => Transmission::Elastic {
                spring,
                inertia: r.reflected(),
            },
        },
        motor: j.motor,
        terms: j.terms(),
    })
}

/// Exactly one of `motion`, `torque`, `servo` or `free`, checked (a recorded motion resolved).
fn actuation(
    cx: &JointContext,
    j: &JointSection,
    recordings: &mut Recordings,
    invalid: &Invalid,
) -> Result<Drive, ScenarioError> {
    let k = cx.k;
    let field = |f: &str| format!("joint[{k}].{f}");
    Ok(match (&j.motion, &j.torque, &j.servo, j.free) {
        (Some(p), None, None, false) => {
            let motion_field =
                |(f, e): (String, String)| invalid(&field(&format!("motion.{f}")), e);
            p.validate().map_err(motion_field)?;
            if matches!(p, Profile::Held(_)) {
                return Err(invalid(
                    &field("motion.type"),
                    "a continuous motion: `held` command samples jump, so they drive a servo \
                     (`servo = { reference = { type = \"held\", … }, control = … }`)"
                        .into(),
                ));
            }
            let mut p = p.clone();
            if let Profile::Recorded(m) = &mut p {
                m.resolve(cx.base, cx.file.time.end, recordings)
                    .map_err(motion_field)?;
            }
            Drive::Motion(p)
        }
        (None, Some(s), None, false) => {
            s.validate()
                .map_err(|(f, e)| invalid(&field(&format!("torque.{f}")), e))?;
            Drive::Torque(s.scaled(cx.file.torque_scale))
        }
        (None, None, Some(servo), false) => {
            let reference_field =
                |(f, e): (String, String)| invalid(&field(&format!("servo.reference.{f}")), e);
            servo.reference.validate().map_err(reference_field)?;
            servo
                .control
                .validate()
                .map_err(|(f, e)| invalid(&field(&format!("servo.control.{f}")), e))?;
            let mut servo = servo.clone();
            if let Profile::Recorded(m) = &mut servo.reference {
                m.resolve(cx.base, cx.file.time.end, recordings)
                    .map_err(reference_field)?;
            }
            Drive::Servo(servo)
        }
        (None, None, None, true) => Drive::Free,
        _ => {
            return Err(invalid(
                &field("motion"),
                "expected exactly one of `motion = {…}`, `torque = {…}`, `servo = {…}` \
                 or `free = true`"
                    .into(),
            ));
        }
    })
}

/// The generator effects the section states, each where it can act (none on the kinematic
/// rail; a spring beside a rotor on a torque-driven or servo joint; a motor on an actuated one).
fn effects(
    k: usize,
    id: u8,
    j: &JointSection,
    drive: &Drive,
    invalid: &Invalid,
) -> Result<(), ScenarioError> {
    let field = |f: &str| format!("joint[{k}].{f}");
    if let Some(f) = &j.friction {
        if id == 0 {
            return Err(invalid(
                &field("friction"),
                "expected none for the kinematic rail".into(),
            ));
        }
        f.validate()
            .map_err(|(name, e)| invalid(&field(&format!("friction.{name}")), e))?;
    }
    terms(k, id, j, drive, invalid)?;
    if let Some(r) = &j.rotor {
        if id == 0 {
            return Err(invalid(
                &field("rotor"),
                "expected none for the kinematic rail".into(),
            ));
        }
        r.validate()
            .map_err(|(name, e)| invalid(&field(&format!("rotor.{name}")), e))?;
    }
    if let Some(spring) = &j.spring {
        if !matches!(*drive, Drive::Torque(_) | Drive::Servo(_)) || id == 0 {
            return Err(invalid(
                &field("spring"),
                "expected a spring only on a torque-driven or servo joint (not prescribed, free or the rail)".into(),
            ));
        }
        if j.rotor.is_none() {
            return Err(invalid(
                &field("spring"),
                "expected a `rotor = { inertia, gear_ratio }` beside it: the spring joins the rotor to the link".into(),
            ));
        }
        spring
            .validate()
            .map_err(|(name, e)| invalid(&field(&format!("spring.{name}")), e))?;
    }
    if let Some(m) = &j.motor {
        if !matches!(
            *drive,
            Drive::Torque(_) | Drive::Servo(_) | Drive::Motion(_)
        ) || id == 0
        {
            return Err(invalid(
                &field("motor"),
                "expected a motor only on an actuated joint (torque, servo or motion), not the rail".into(),
            ));
        }
        m.validate()
            .map_err(|(name, e)| invalid(&field(&format!("motor.{name}")), e))?;
    }
    Ok(())
}

/// The registered terms the section states (`sim::scenario::terms`), each checked: its
/// parameters and where it acts.
fn terms(
    k: usize,
    id: u8,
    j: &JointSection,
    drive: &Drive,
    invalid: &Invalid,
) -> Result<(), ScenarioError> {
    let place = Place {
        id,
        prescribed: matches!(drive, Drive::Motion(_)),
        actuated: !matches!(drive, Drive::Free),
    };
    for (name, term) in j.terms().iter() {
        let field = |f: &str| format!("joint[{k}].{name}{f}");
        term.check_place(&place)
            .map_err(|e| invalid(&field(""), e.to_string()))?;
        term.check_params()
            .map_err(|(f, e)| invalid(&field(&format!(".{f}")), e))?;
    }
    Ok(())
}
