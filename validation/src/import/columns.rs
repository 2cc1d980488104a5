//! Which columns of a recording hold what, for which joint.
//!
//! A column is `t`, or `<signal>_<joint>` with `<signal>` one of [`Signal`]'s names and
//! `<joint>` a URDF joint name or a 1-based index along the chain. Every joint needs a
//! coordinate (`q_` or, through a transmission, `qm_`) and a torque (`tau_`, `i_` with a gain, or
//! `taum_` through a transmission), or its commanded position (`qcmd_`: a servo arm's joint,
//! which may log no torque); motor-side columns are all or none, and not with commands. Columns of joints the
//! configuration holds (`[lock]`, and the mimics of a held joint) are not read: a bag's gripper
//! topic may come with the arm's.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ImportError;
use super::table::Table;
use sim::dataset::recorded::{JointColumns, JointNames};

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// Joint coordinate (rad or m).
    Q,
    /// Joint rate (rad/s or m/s).
    Qd,
    /// Joint acceleration (rad/s² or m/s²).
    Qdd,
    /// Joint torque or force (N·m or N).
    Tau,
    /// Motor current (A): `τ = K·i`.
    I,
    /// Motor angle (rad), through the transmission.
    Qm,
    /// Motor torque (N·m), through the transmission.
    Taum,
    /// Commanded position (rad or m): what a position servo was told.
    Qcmd,
}

impl Signal {
    /// Every signal with its column prefix.
    pub const ALL: [(Signal, &'static str); 8] = [
        (Signal::Q, "q"),
        (Signal::Qd, "qd"),
        (Signal::Qdd, "qdd"),
        (Signal::Tau, "tau"),
        (Signal::I, "i"),
        (Signal::Qm, "qm"),
        (Signal::Taum, "taum"),
        (Signal::Qcmd, "qcmd"),
    ];
}

/// Where every joint's signals are, and whether the recording is motor-side.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    /// The time column, if the recording has one.
    pub time: Option<String>,
    /// Per joint (chain order).
    pub joints: Vec<JointColumns>,
    /// Positions are motor angles (`qm_`).
    pub motor_angles: bool,
    /// Torques are motor torques (`taum_`).
    pub motor_torques: bool,
    /// Torques are currents (`i_`) per joint.
    pub currents: Vec<bool>,
}

/// Maps the columns of `table` onto `joints`; the columns of the `held` joints (locked, by
/// name) are not read. `Err` names an unknown column or joint, a joint with no coordinate or
/// torque or with two of one, and motor-side columns on some joints only.
pub fn map(table: &Table, joints: &JointNames, held: &[String]) -> Result<Mapping, ImportError> {
    let file = &table.file;
    let n = joints.names.len();
    let mut found: Vec<Vec<(Signal, String)>> = vec![Vec::new(); n];
    let mut time = None;
    for name in &table.names {
        if name == "t" {
            time = Some(name.clone());
            continue;
        }
        let of_held =
            (name.split_once('_')).is_some_and(|(_, joint)| held.iter().any(|h| h == joint));
        if of_held {
            continue;
        }
        let (signal, joint) = parse(file, name, joints)?;
        found[joint].push((signal, name.clone()));
    }
    let mut out = Vec::with_capacity(n);
    for (k, signals) in found.iter().enumerate() {
        out.push(joint_columns(file, &joints.names[k], k, signals)?);
    }
    let angles = out.iter().filter(|j| j.position.starts_with("qm_")).count();
    let motor_torque = |j: &JointColumns| j.torque.as_ref().is_some_and(|c| c.starts_with("taum_"));
    let torques = out.iter().filter(|j| motor_torque(j)).count();
    for (count, what, column) in [
        (angles, "motor angles", "qm_"),
        (torques, "motor torques", "taum_"),
    ] {
        if count != 0 && count != n {
            let missing = out
                .iter()
                .zip(&joints.names)
                .find(|(j, _)| {
                    let torque = j.torque.as_deref().unwrap_or_default();
                    !(j.position.starts_with(column) || torque.starts_with(column))
                })
                .map(|(_, name)| name.clone())
                .unwrap_or_default();
            return Err(ImportError::Column {
                file: file.clone(),
                column: format!("{column}{missing}"),
                problem: format!(
                    "{what} are given for {count} of {n} joints: a transmission couples joints, \
                     so every joint needs one (or none does)"
                ),
            });
        }
    }
    let commanded = out.iter().find_map(|j| j.command.as_ref());
    if let (Some(command), true) = (commanded, angles != 0 || torques != 0) {
        return Err(ImportError::Column {
            file: file.clone(),
            column: command.clone(),
            problem: "a command beside motor-side columns (qm_, taum_): expected commands in \
                      joint coordinates with joint-side q_"
                .into(),
        });
    }
    Ok(Mapping {
        time,
        currents: (out.iter())
            .map(|j| j.torque.as_ref().is_some_and(|c| c.starts_with("i_")))
            .collect(),
        motor_angles: angles == n,
        motor_torques: torques == n,
        joints: out,
    })
}

/// `(signal, joint index)` of a column name of the recording `file`.
fn parse(file: &Path, name: &str, joints: &JointNames) -> Result<(Signal, usize), ImportError> {
    let problem = |problem: String| ImportError::Column {
        file: file.to_owned(),
        column: name.to_owned(),
        problem,
    };
    let expected = || {
        problem(format!(
            "expected `t` or `<signal>_<joint>` with <signal> one of q, qd, qdd, tau, i, qm, \
             taum, qcmd and <joint> one of {:?} or 1..={}",
            joints.names,
            joints.names.len()
        ))
    };
    let (prefix, joint) = name.split_once('_').ok_or_else(expected)?;
    let signal = Signal::ALL
        .iter()
        .find(|(_, p)| *p == prefix)
        .map(|(s, _)| *s)
        .ok_or_else(expected)?;
    let k = joints.index(joint).ok_or_else(|| {
        problem(format!(
            "the URDF has no joint {joint:?} (expected one of {:?} or an index 1..={})",
            joints.names,
            joints.names.len()
        ))
    })?;
    Ok((signal, k))
}

/// One joint's columns from the signals found for it.
fn joint_columns(
    file: &Path,
    name: &str,
    k: usize,
    signals: &[(Signal, String)],
) -> Result<JointColumns, ImportError> {
    let of = |wanted: &[Signal]| -> Vec<&String> {
        signals
            .iter()
            .filter(|(s, _)| wanted.contains(s))
            .map(|(_, c)| c)
            .collect()
    };
    let one = |wanted: &[Signal], what: &str, example: &str| -> Result<String, ImportError> {
        match of(wanted).as_slice() {
            [c] => Ok((*c).clone()),
            [] => Err(ImportError::Column {
                file: file.to_owned(),
                column: format!("{example}{name}"),
                problem: format!("missing: joint {} ({name}) needs its {what}", k + 1),
            }),
            several => Err(ImportError::Column {
                file: file.to_owned(),
                column: several[1].clone(),
                problem: format!(
                    "a second {what} of joint {} ({name}) beside `{}` (expected one)",
                    k + 1,
                    several[0]
                ),
            }),
        }
    };
    let optional = |s: Signal| -> Result<Option<String>, ImportError> {
        match of(&[s]).as_slice() {
            [] => Ok(None),
            [c] => Ok(Some((*c).clone())),
            several => Err(ImportError::Column {
                file: file.to_owned(),
                column: several[1].clone(),
                problem: format!("names the same signal as `{}`", several[0]),
            }),
        }
    };
    let command = optional(Signal::Qcmd)?;
    let torques = [Signal::Tau, Signal::I, Signal::Taum];
    let torque = match (of(&torques).is_empty(), &command) {
        (true, Some(_)) => None,
        _ => Some(one(
            &torques,
            "torque (tau_, i_ or taum_) or command (qcmd_)",
            "tau_",
        )?),
    };
    Ok(JointColumns {
        position: one(&[Signal::Q, Signal::Qm], "coordinate (q_ or qm_)", "q_")?,
        rate: optional(Signal::Qd)?,
        acceleration: optional(Signal::Qdd)?,
        torque,
        command,
    })
}
