//! An arm's drives read back from MJCF: what [`super::actuation`] writes, read as a drive
//! train ([`DriveTrain`]) and a transmission, so that MJCF → project → MJCF keeps every number.
//!
//! * A fixed tendon with passive terms (`armature`, `damping`, `frictionloss`) over joints that
//!   move is a coupled drive: its coefficients are the drive's row of `R̃` and its terms the
//!   drive's (rotor inertia, viscous coefficient, Coulomb level). The drive's own joint is the
//!   joint `<j>` of a tendon named `drive_<j>` (the export's name) with coefficient 1, else the
//!   one joint with coefficient 1. Coefficients on held joints drop out (they do not move).
//! * `<motor>` actuators, one on each moving joint or drive tendon, give the transmission
//!   `R[m, j] = gear_m · R̃[m, j]` (`gear`'s first number, default 1).
//!
//! Where the file has either, the drive train also holds each other joint's own terms as an
//! uncoupled drive (the same numbers as the chain's joint), since a drive train states every
//! drive; where it has neither, there is none. Refused, naming the tendon: a tendon spring
//! (`stiffness`), a tendon without a joint of coefficient 1, two drives of one joint, and a
//! joint with both its own terms and a drive tendon (a drive train has one drive per joint).
//! What MJCF does not hold stays out: the dead band (`min_speed` 0) and the readings' offsets.

use std::collections::HashSet;

use roxmltree::{Document, Node};

use super::classes::{Classes, MAIN};
use super::element::{Problem, element};
use super::orientation::parse;
use crate::drive_train::{DriveTerms, DriveTrain};
use crate::model::Chain;
use crate::urdf::export::urdf_friction;

/// The file's drives: the drive train and, where every drive has a motor, `R` (drives ×
/// joints).
pub(super) type Drives = (Option<DriveTrain>, Option<Vec<Vec<f64>>>);

/// A coupled drive: a tendon's own joint, its row of `R̃` and its terms.
struct Tendon {
    name: String,
    own: usize,
    row: Vec<f64>,
    terms: DriveTerms,
}

/// The drives of the document whose moving joints are `joints` (chain order) on `chain`, the
/// joints of `locked` held.
pub(super) fn read(
    doc: &Document,
    joints: &[String],
    chain: &Chain,
    locked: &HashSet<&str>,
) -> Result<Drives, Problem> {
    let root = doc.root_element();
    let classes = Classes::of(root)?;
    let mut tendons: Vec<Tendon> = Vec::new();
    for group in root.children().filter(|n| n.has_tag_name("tendon")) {
        for t in group.children().filter(Node::is_element) {
            if let Some(tendon) = coupled(t, &classes, joints, locked)? {
                if let Some(other) = tendons.iter().find(|o| o.own == tendon.own) {
                    return Err((
                        element(t),
                        format!(
                            "a second drive of joint \"{}\" (tendon \"{}\" is one; expected one \
                             drive per joint)",
                            joints[tendon.own], other.name
                        ),
                    ));
                }
                let own = &chain.links[tendon.own].joint;
                if own.armature != 0.0 || own.damping != 0.0 || urdf_friction(&own.friction) != 0.0
                {
                    return Err((
                        element(t),
                        format!(
                            "joint \"{}\" has its own armature, damping or frictionloss and this \
                             drive tendon (expected the drive's terms on one of them)",
                            joints[tendon.own]
                        ),
                    ));
                }
                tendons.push(tendon);
            }
        }
    }
    let transmission = motors(root, &classes, joints, &tendons)?;
    if tendons.is_empty() && transmission.is_none() {
        return Ok((None, None));
    }
    Ok((Some(train(joints.len(), chain, tendons)), transmission))
}

/// The drive train of `tendons` and the other joints' own terms.
fn train(n: usize, chain: &Chain, tendons: Vec<Tendon>) -> DriveTrain {
    let coupling = (!tendons.is_empty()).then(|| {
        let mut rows: Vec<Vec<f64>> = (0..n)
            .map(|m| (0..n).map(|j| f64::from(u8::from(m == j))).collect())
            .collect();
        for t in &tendons {
            rows[t.own] = t.row.clone();
        }
        rows
    });
    let mut drive: Vec<DriveTerms> = tendons.into_iter().map(|t| t.terms).collect();
    for (j, link) in chain.links.iter().enumerate() {
        let joint = u8::try_from(j + 1).unwrap_or(u8::MAX);
        let own = &link.joint;
        let coulomb = urdf_friction(&own.friction);
        let stated = [own.armature, own.damping, coulomb]
            .iter()
            .any(|v| *v != 0.0);
        if stated && !drive.iter().any(|d| d.joint == joint) {
            drive.push(DriveTerms {
                joint,
                coulomb,
                viscous: own.damping,
                offset: 0.0,
                armature: own.armature,
            });
        }
    }
    drive.sort_by_key(|d| d.joint);
    DriveTrain {
        min_speed: 0.0,
        coupling,
        drive,
        servo: Vec::new(),
    }
}

/// Tendon `t` as a coupled drive (`None`: not one: no passive terms, or no joint that moves).
fn coupled(
    t: Node,
    classes: &Classes,
    joints: &[String],
    locked: &HashSet<&str>,
) -> Result<Option<Tendon>, Problem> {
    let number = |name: &str| classes.number(t, MAIN, name, 0.0);
    let [armature, damping, frictionloss, stiffness] =
        ["armature", "damping", "frictionloss", "stiffness"].map(number);
    let (armature, damping, frictionloss, stiffness) =
        (armature?, damping?, frictionloss?, stiffness?);
    let mut row = vec![0.0; joints.len()];
    for j in t.children().filter(|n| n.has_tag_name("joint")) {
        let name = j.attribute("joint").unwrap_or_default();
        let coef = match j.attribute("coef") {
            None => 1.0,
            Some(text) => parse::<1>(text).map(|[v]| v).ok_or_else(|| {
                (
                    element(j),
                    format!("coef=\"{text}\": expected a finite number"),
                )
            })?,
        };
        match joints.iter().position(|n| n == name) {
            Some(k) => row[k] += coef,
            None if locked.contains(name) => {}
            None => {
                return Err((
                    element(j),
                    format!("joint \"{name}\" is not a joint of the chain"),
                ));
            }
        }
    }
    let passive = [armature, damping, frictionloss, stiffness]
        .iter()
        .any(|v| *v != 0.0);
    if passive && t.has_tag_name("spatial") {
        return Err((
            element(t),
            "a spatial tendon with passive terms is not supported (expected a fixed tendon, \
             or no armature, damping, frictionloss or stiffness)"
                .into(),
        ));
    }
    if !passive || row.iter().all(|c| *c == 0.0) {
        return Ok(None);
    }
    if stiffness != 0.0 {
        return Err((
            element(t),
            format!(
                "stiffness={stiffness}: a tendon spring between joints that move is not \
                 supported (expected 0, or its joints held: a scenario's `lock`, \
                 `export-mjcf --lock NAME=0`)"
            ),
        ));
    }
    let name = t.attribute("name").unwrap_or_default().to_string();
    let ones: Vec<usize> = (0..joints.len()).filter(|&k| row[k] == 1.0).collect();
    let named = ones
        .iter()
        .copied()
        .find(|&k| name.strip_prefix("drive_") == Some(joints[k].as_str()));
    let own = match (named, ones.as_slice()) {
        (Some(k), _) | (None, &[k]) => k,
        _ => {
            return Err((
                element(t),
                format!(
                    "a tendon with passive terms over joints that move is read as a drive: \
                     expected one joint with coef 1, its own (or the tendon named \
                     drive_<joint>), found {} such joints",
                    ones.len()
                ),
            ));
        }
    };
    let terms = DriveTerms {
        joint: u8::try_from(own + 1).unwrap_or(u8::MAX),
        coulomb: frictionloss,
        viscous: damping,
        offset: 0.0,
        armature,
    };
    Ok(Some(Tendon {
        name,
        own,
        row,
        terms,
    }))
}

/// `R` from the file's `<motor>`s, where each drive (a joint, or its drive tendon) has one.
fn motors(
    root: Node,
    classes: &Classes,
    joints: &[String],
    tendons: &[Tendon],
) -> Result<Option<Vec<Vec<f64>>>, Problem> {
    let n = joints.len();
    let mut gears: Vec<Option<f64>> = vec![None; n];
    for group in root.children().filter(|n| n.has_tag_name("actuator")) {
        for m in group.children().filter(|n| n.has_tag_name("motor")) {
            let drive = match (m.attribute("joint"), m.attribute("tendon")) {
                (Some(j), None) => joints.iter().position(|n| n == j),
                (None, Some(t)) => tendons.iter().find(|d| d.name == t).map(|d| d.own),
                _ => None,
            };
            let Some(drive) = drive else { continue };
            let gear = match classes.attribute(m, MAIN, "gear") {
                None => 1.0,
                Some(text) => (text.split_whitespace().next())
                    .and_then(|g| g.parse::<f64>().ok())
                    .filter(|g| g.is_finite())
                    .ok_or_else(|| {
                        (
                            element(m),
                            format!("gear=\"{text}\": expected finite numbers"),
                        )
                    })?,
            };
            if gears[drive].replace(gear).is_some() {
                return Ok(None);
            }
        }
    }
    let Some(gears) = gears.into_iter().collect::<Option<Vec<f64>>>() else {
        return Ok(None);
    };
    let row = |m: usize| -> Vec<f64> {
        match tendons.iter().find(|t| t.own == m) {
            Some(t) => t.row.iter().map(|c| gears[m] * c).collect(),
            None => (0..n)
                .map(|j| if j == m { gears[m] } else { 0.0 })
                .collect(),
        }
    };
    Ok(Some((0..n).map(row).collect()))
}
