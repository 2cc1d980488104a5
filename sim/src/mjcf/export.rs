//! Any chain written as MJCF, so that MuJoCo simulates the arm the project does and [`super::read`]
//! reads it back to the same chain (to the rounding of the body frames' quaternions, ~1e-16).
//!
//! * `<compiler angle="radian" autolimits="true">` and `<option gravity>` the chain's
//!   ([`crate::model::Chain::gravity`]: [`crate::GRAVITY`] along −z unless stated).
//! * One `<body>` per link, nested along the chain, its frame world-aligned at the zero
//!   configuration and placed at its joint point (`pos`: the step from the previous joint point,
//!   exact in floating point as [`crate::urdf::export`] writes it); its `<joint>` at the body's
//!   origin along the world axis, `range` where the joint has limits, `armature`, `damping`, and
//!   `frictionloss` the Coulomb level of a friction model MJCF can state (Coulomb only, with the
//!   URDF import's smoothing; MuJoCo's friction loss is dry friction without smoothing),
//!   `stiffness` and `springref` its spring. A friction model MJCF cannot state is named in a
//!   comment and not written.
//! * Its `<inertial>` at the centroid, `quat` of its principal frame, `diaginertia` its principal
//!   moments.
//! * A rail is a `slide` joint `rail` before the first link's joint, in the first link's body
//!   (MuJoCo refuses a moving body without mass, such as the carriage).
//! * With identified drives ([`with_drives`], [`super::actuation`]), each joint's `armature`,
//!   `damping` and `frictionloss` are its drive's in place of the chain's own (as `sim replay
//!   --drives` replaces them), a coupled drive's are a fixed tendon's, and a stated transmission
//!   gives one `<motor>` per drive; a servo arm's stated servos give one `<position>` per servo
//!   instead.

use std::fmt::Write;

use nalgebra::{UnitQuaternion, Vector3};

use super::actuation::{Actuation, JointTerms};
use super::text::{escape, vector};
use crate::model::{Base, Chain, JointKind};
use crate::urdf::export::{exact_step, urdf_friction};

/// The MJCF text of `chain`, its joints named `names` (chain order; `None`: `joint1`, …).
pub fn to_string(chain: &Chain, names: Option<&[String]>) -> String {
    with_drives(chain, names, None)
}

/// [`to_string`], with the joints' terms and the motors of `actuation` where given.
pub fn with_drives(
    chain: &Chain,
    names: Option<&[String]>,
    actuation: Option<&Actuation>,
) -> String {
    let mut out = String::new();
    let name = |k: usize| {
        names
            .and_then(|n| n.get(k).cloned())
            .unwrap_or_else(|| format!("joint{}", k + 1))
    };
    let joints = chain.links.len();
    let _ = writeln!(out, "<mujoco model=\"{}\">", escape(&chain.name));
    out.push_str("  <compiler angle=\"radian\" autolimits=\"true\"/>\n");
    let [gx, gy, gz] = chain.gravity;
    let _ = writeln!(out, "  <option gravity=\"{gx:?} {gy:?} {gz:?}\"/>");
    out.push_str("  <worldbody>\n");
    let mut previous = Vector3::zeros();
    for (k, link) in chain.links.iter().enumerate() {
        let indent = "  ".repeat(k + 2);
        let anchor = Vector3::from(link.joint.anchor);
        let step = exact_step(previous, anchor);
        let _ = writeln!(
            out,
            "{indent}<body name=\"{}\" pos=\"{}\">",
            escape(&link.name),
            vector(&step)
        );
        if let (0, Base::Rail { axis }) = (k, &chain.base) {
            let _ = writeln!(
                out,
                "{indent}  <joint name=\"rail\" type=\"slide\" axis=\"{}\"/>",
                vector(&Vector3::from(*axis))
            );
        }
        let own = actuation.map(|a| {
            (
                a.joint_terms(k, joints).unwrap_or_default(),
                a.joint_note(k),
            )
        });
        joint(&mut out, &indent, &name(k), link, own);
        let body = &link.body;
        let q = UnitQuaternion::from_rotation_matrix(&body.rotation());
        let centroid = exact_step(anchor, Vector3::from(body.centroid));
        let _ = writeln!(
            out,
            "{indent}  <inertial pos=\"{}\" quat=\"{:?} {:?} {:?} {:?}\" mass=\"{:?}\" diaginertia=\"{}\"/>",
            vector(&centroid),
            q.w,
            q.i,
            q.j,
            q.k,
            body.mass,
            vector(&Vector3::from(body.inertia))
        );
        previous = anchor;
    }
    for k in (0..chain.links.len()).rev() {
        let _ = writeln!(out, "{}</body>", "  ".repeat(k + 2));
    }
    out.push_str("  </worldbody>\n");
    if let Some(a) = actuation {
        a.write(&mut out, &(0..joints).map(name).collect::<Vec<_>>());
    }
    out.push_str("</mujoco>\n");
    out
}

/// One link's `<joint>`, and a comment for a friction model MJCF cannot state; `drive`: the
/// terms of its own drive in place of the joint's, and what MJCF cannot state of it.
fn joint(
    out: &mut String,
    indent: &str,
    name: &str,
    link: &crate::model::Link,
    drive: Option<(JointTerms, Option<String>)>,
) {
    let j = &link.joint;
    let kind = match j.kind {
        JointKind::Revolute => "hinge",
        JointKind::Prismatic => "slide",
    };
    let mut attributes = format!(
        "name=\"{}\" type=\"{kind}\" axis=\"{}\"",
        escape(name),
        vector(&Vector3::from(j.axis))
    );
    if let Some(l) = j.limits {
        let _ = write!(attributes, " range=\"{:?} {:?}\"", l.lower, l.upper);
    }
    let frictionloss = urdf_friction(&j.friction);
    let own = [j.armature, j.damping, frictionloss];
    let terms = drive.as_ref().map_or(own, |(terms, _)| *terms);
    let spring = [("stiffness", j.stiffness), ("springref", j.spring_rest)];
    for (what, v) in ["armature", "damping", "frictionloss"]
        .into_iter()
        .zip(terms)
        .chain(spring)
    {
        if v != 0.0 {
            let _ = write!(attributes, " {what}=\"{v:?}\"");
        }
    }
    if let Some((_, Some(note))) = &drive {
        let _ = writeln!(out, "{indent}  <!-- {note} -->");
    }
    if drive.is_none() && j.friction.is_some() && frictionloss == 0.0 {
        let _ = writeln!(
            out,
            "{indent}  <!-- friction {:?}: not expressible in MJCF, not written -->",
            j.friction
        );
    }
    let _ = writeln!(out, "{indent}  <joint {attributes}/>");
}
