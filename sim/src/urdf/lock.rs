//! Joints held at a position: a scenario's `lock = { <joint name> = <position>, … }` and the
//! URDF's `<mimic>` joints that follow a locked leader.
//!
//! Most arms are described with their gripper: a hand whose fingers branch off one link and
//! are coupled by `<mimic>` (Franka's `panda_finger_joint2` follows `panda_finger_joint1`).
//! Locking the fingers at a stated opening makes the rest a serial chain: a locked joint is read
//! as a `fixed` joint whose child is placed by the joint's motion at that position (a rotation
//! about `<axis>` of `position` rad, or a translation along it of `position` m, after
//! `<origin>`), and the child's inertia merges into the parent body, as Pinocchio's
//! `buildReducedModel` does. A mimic joint whose leader is locked is locked at
//! `multiplier · leader + offset` (URDF's defaults 1 and 0); a mimic joint whose leader moves
//! would couple two coordinates, which a serial chain cannot hold, and is refused with the lock
//! that would resolve it named.

use std::collections::{BTreeMap, HashMap};

use nalgebra::{Isometry3, Translation3, Unit, UnitQuaternion, Vector3};

use super::format::Problem;

/// Positions of the joints to hold (rad for revolute and continuous joints, m for prismatic
/// ones), by URDF joint name.
pub type Locks = BTreeMap<String, f64>;

/// Every held joint of `robot` with its position: the `locks` given and the mimic joints whose
/// leader is held. `Err` names an unknown or fixed joint, a position outside the joint's
/// `<limit>`, a mimic joint whose leader moves, or a mimic cycle.
pub fn held(robot: &urdf_rs::Robot, locks: &Locks) -> Result<HashMap<String, f64>, Problem> {
    let joints: HashMap<&str, &urdf_rs::Joint> =
        robot.joints.iter().map(|j| (j.name.as_str(), j)).collect();
    let mut held = HashMap::new();
    for (name, &position) in locks {
        let element = format!("lock.{name}");
        let j = joints.get(name.as_str()).ok_or_else(|| {
            (
                element.clone(),
                format!(
                    "the URDF has no joint \"{name}\" (expected one of its joint names: {:?})",
                    robot.joints.iter().map(|j| &j.name).collect::<Vec<_>>()
                ),
            )
        })?;
        check_position(j, position, &element)?;
        held.insert(name.clone(), position);
    }
    for j in &robot.joints {
        if j.mimic.is_some() {
            let position = follow(&joints, j, &held, 0)?;
            if let Some(given) = held.get(&j.name)
                && (given - position).abs() > 1e-12 * position.abs().max(1.0)
            {
                return Err((
                    format!("lock.{}", j.name),
                    format!(
                        "a mimic joint held at {given}, but its leader puts it at {position} \
                         (lock only the leader)"
                    ),
                ));
            }
            held.insert(j.name.clone(), position);
        }
    }
    Ok(held)
}

/// The position of mimic joint `j` from its held leader (through a chain of mimics).
fn follow(
    joints: &HashMap<&str, &urdf_rs::Joint>,
    j: &urdf_rs::Joint,
    held: &HashMap<String, f64>,
    depth: usize,
) -> Result<f64, Problem> {
    let element = format!("joint \"{}\" <mimic>", j.name);
    let Some(m) = &j.mimic else {
        return held.get(&j.name).copied().ok_or_else(|| {
            (
                element,
                "follows a joint that moves: a coupled pair is no serial chain (lock the \
                 leader with the scenario's `lock = { <leader> = <position> }`)"
                    .into(),
            )
        });
    };
    if depth > joints.len() {
        return Err((
            element,
            "mimic joints that follow each other in a cycle".into(),
        ));
    }
    let leader = joints.get(m.joint.as_str()).ok_or_else(|| {
        (
            element.clone(),
            format!("follows \"{}\", which the URDF does not define", m.joint),
        )
    })?;
    let at = match held.get(&leader.name) {
        Some(&p) if leader.mimic.is_none() => p,
        _ => follow(joints, leader, held, depth + 1).map_err(|(_, p)| {
            (
                element.clone(),
                format!("follows \"{}\", which is not held: {p}", leader.name),
            )
        })?,
    };
    let position = m.multiplier.unwrap_or(1.0) * at + m.offset.unwrap_or(0.0);
    check_position(j, position, &element)?;
    Ok(position)
}

/// `Err` (naming `element`) unless `j` is a moving joint and `position` a finite value within its
/// `<limit>`.
fn check_position(j: &urdf_rs::Joint, position: f64, element: &str) -> Result<(), Problem> {
    use urdf_rs::JointType::{Continuous, Prismatic, Revolute};
    let problem = |message: String| (element.to_string(), message);
    if !matches!(j.joint_type, Revolute | Continuous | Prismatic) {
        return Err(problem(format!(
            "a {:?} joint cannot be held at a position (expected a revolute, continuous or \
             prismatic joint)",
            j.joint_type
        )));
    }
    if !position.is_finite() {
        return Err(problem(format!(
            "expected a finite position, got {position}"
        )));
    }
    let l = &j.limit;
    let bounded = j.joint_type != Continuous && l.lower < l.upper;
    let slack = 1e-12 * (l.upper - l.lower).abs().max(1.0);
    if bounded && !(l.lower - slack..=l.upper + slack).contains(&position) {
        return Err(problem(format!(
            "expected a position within the joint's <limit> [{}, {}], got {position}",
            l.lower, l.upper
        )));
    }
    Ok(())
}

/// The motion of joint `j` held at `position`: a rotation about its axis, or a translation
/// along it (joint frame).
pub fn motion(j: &urdf_rs::Joint, position: f64) -> Isometry3<f64> {
    let axis = Vector3::from(j.axis.xyz.0);
    let unit = Unit::new_normalize(axis);
    match j.joint_type {
        urdf_rs::JointType::Prismatic => Isometry3::from_parts(
            Translation3::from(unit.into_inner() * position),
            UnitQuaternion::identity(),
        ),
        _ => Isometry3::from_parts(
            Translation3::identity(),
            UnitQuaternion::from_axis_angle(&unit, position),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::import::from_str_locked;
    use super::*;

    /// A hand on a revolute wrist with two prismatic fingers, the second mimicking the first.
    const HAND: &str = r#"<robot name="hand">
  <link name="base"/>
  <joint name="wrist" type="revolute"><parent link="base"/><child link="palm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="palm"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="left" type="prismatic"><origin xyz="0 0 0.1"/><parent link="palm"/>
    <child link="lf"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/></joint>
  <link name="lf"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <joint name="right" type="prismatic"><origin xyz="0 0 0.1"/><parent link="palm"/>
    <child link="rf"/><axis xyz="0 -1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/>
    <mimic joint="left" multiplier="1.5" offset="0.001"/></joint>
  <link name="rf"><inertial><mass value="0.1"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
</robot>"#;

    fn locks(pairs: &[(&str, f64)]) -> Locks {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn a_locked_leader_holds_its_mimic_and_the_fingers_merge_into_the_palm() {
        let chain = from_str_locked(HAND, "hand.urdf", &locks(&[("left", 0.02)])).unwrap();
        assert_eq!(chain.len(), 1);
        let body = &chain.links[0].body;
        assert!((body.mass - 1.2).abs() < 1e-15);
        // Left finger at y = +0.02, right at y = −(1.5·0.02 + 0.001) = −0.031, both at z = 0.1.
        let c: Vector3<f64> = body.centroid.into();
        let expected = Vector3::new(0.0, 0.1 * (0.02 - 0.031), 0.2 * 0.1) / 1.2;
        assert!((c - expected).norm() < 1e-15, "{c} vs {expected}");
    }

    fn refused(l: Locks, element: &str, words: &str) {
        let e = from_str_locked(HAND, "hand.urdf", &l)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("hand.urdf") && e.contains(element) && e.contains(words),
            "{e}"
        );
    }

    #[test]
    fn mimics_of_moving_joints_unknown_joints_and_out_of_range_positions_are_refused() {
        refused(locks(&[]), "joint \"right\" <mimic>", "lock the leader");
        refused(locks(&[("thumb", 0.0)]), "lock.thumb", "no joint \"thumb\"");
        refused(
            locks(&[("left", 0.05)]),
            "lock.left",
            "within the joint's <limit>",
        );
        // 1.5 · 0.03 + 0.001 = 0.046 leaves the mimic's own range.
        refused(
            locks(&[("left", 0.03)]),
            "joint \"right\" <mimic>",
            "<limit>",
        );
        refused(
            locks(&[("left", 0.02), ("right", 0.02)]),
            "lock.right",
            "leader puts it at",
        );
        // Without the fingers held the hand is a branch.
        let unlocked = HAND.replace(
            r#"<mimic joint="left" multiplier="1.5" offset="0.001"/>"#,
            "",
        );
        let e = from_str_locked(&unlocked, "hand.urdf", &locks(&[]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("branch"), "{e}");
    }

    #[test]
    fn a_held_revolute_joint_turns_its_child_about_the_axis() {
        let text = r#"<robot name="r">
  <link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="a"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="j2" type="continuous"><origin xyz="0.5 0 0"/><parent link="a"/><child link="b"/>
    <axis xyz="0 0 1"/></joint>
  <link name="b"><inertial><origin xyz="0.2 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
</robot>"#;
        let chain = from_str_locked(text, "r.urdf", &locks(&[("j2", 4.0)])).unwrap();
        let c: Vector3<f64> = chain.links[0].body.centroid.into();
        let b = Vector3::new(0.5 + 0.2 * 4f64.cos(), 0.2 * 4f64.sin(), 0.0);
        assert!((c - b / 2.0).norm() < 1e-15, "{c}");
    }
}
