//! The position servos of an MJCF file: each `<position>` actuator on a moving joint read as a
//! [`PositionServo`], so that a servo arm's model (Menagerie's SO-101, LeRobot's arms) rolls out
//! under its logged commands as MuJoCo would drive it.
//!
//! MuJoCo's `<position kp kv forcerange>` applies `τ = clamp(kp (u − q) − kv q̇, forcerange)` for
//! the control `u`: [`PositionServo`] with no delay and no dead band (those are not MJCF's; a
//! `drives.toml` states them). `kp` defaults to 1 and `kv` to 0 (MuJoCo's defaults); a
//! `dampratio` `ζ` (instead of `kv`) is MuJoCo's `kv = 2 ζ √(kp · M₀)`, with `M₀` the joint's
//! diagonal of the joint-space inertia, armature included, at the chain's zero configuration
//! (MuJoCo's `qpos0` where no joint states a `ref`; a locked joint holds its lock's position,
//! MuJoCo's its `qpos0`: they differ where a lock is not at 0). Checked against MuJoCo 3.3's
//! compiled `biasprm` on Menagerie's SO-ARM100 in the Python suite. The force
//! is limited where `forcelimited` is `true`, or `auto` (the default) with a `forcerange`
//! stated. Refused, naming the element: a first-order activation (`timeconst` > 0), an
//! asymmetric force range (the servo's limit is `±τ_max`), a `gear` other than 1, both `kv` and
//! `dampratio`, and a second position servo on one joint. Actuators on locked joints are left out with them; other
//! actuator kinds (`<motor>`, read by the drive reader) are not servos. A `ctrlrange` is not
//! applied: the command is used as logged.

use roxmltree::{Document, Node};

use super::classes::{Classes, MAIN};
use super::element::{Problem, element};
use crate::model::Chain;
use crate::position_servo::PositionServo;

/// Per moving joint (chain order, `joints` their names in `chain`), its position servo where the
/// file has one.
pub(super) fn read(
    doc: &Document,
    joints: &[String],
    chain: &Chain,
) -> Result<Vec<Option<PositionServo>>, Problem> {
    let root = doc.root_element();
    let classes = Classes::of(root)?;
    let mut servos = vec![None; joints.len()];
    for group in root.children().filter(|n| n.has_tag_name("actuator")) {
        for a in group.children().filter(|n| n.has_tag_name("position")) {
            let Some(j) = (a.attribute("joint")).and_then(|n| joints.iter().position(|j| j == n))
            else {
                continue;
            };
            let servo = servo(a, &classes, || inertia_at_zero(chain, j))?;
            if servos[j].replace(servo).is_some() {
                return Err((
                    element(a),
                    format!(
                        "a second position servo on joint \"{}\" (expected one per joint)",
                        joints[j]
                    ),
                ));
            }
        }
    }
    Ok(servos)
}

/// Joint `j`'s diagonal of the joint-space inertia at the zero configuration, its armature
/// included (kg·m² or kg).
fn inertia_at_zero(chain: &Chain, j: usize) -> f64 {
    let zero = vec![0.0; chain.links.len()];
    let mut unit = zero.clone();
    unit[j] = 1.0;
    let g = nalgebra::Vector3::zeros();
    crate::dynamics::rnea(chain, &zero, &zero, &unit, &g).tau[j] + chain.links[j].joint.armature
}

/// One `<position>` element as a servo; `inertia` gives its joint's `M₀` for a `dampratio`.
fn servo(a: Node, classes: &Classes, inertia: impl Fn() -> f64) -> Result<PositionServo, Problem> {
    let kp = classes.number(a, MAIN, "kp", 1.0)?;
    let kv = classes.number(a, MAIN, "kv", 0.0)?;
    let ratio = classes.number(a, MAIN, "dampratio", 0.0)?;
    let kv = match (kv, ratio) {
        (kv, 0.0) => kv,
        (0.0, ratio) => 2.0 * ratio * (kp * inertia()).sqrt(),
        _ => {
            return Err((
                element(a),
                format!("kv=\"{kv}\" and dampratio=\"{ratio}\": expected one of them"),
            ));
        }
    };
    let timeconst = classes.number(a, MAIN, "timeconst", 0.0)?;
    if timeconst != 0.0 {
        return Err((
            element(a),
            format!(
                "timeconst=\"{timeconst}\": a first-order activation is not modelled (expected 0; \
                 a command delay goes in drives.toml)"
            ),
        ));
    }
    if let Some(gear) = classes.attribute(a, MAIN, "gear") {
        let first = gear
            .split_whitespace()
            .next()
            .and_then(|g| g.parse::<f64>().ok());
        if first != Some(1.0) {
            return Err((element(a), format!("gear=\"{gear}\": expected 1")));
        }
    }
    let range = classes.numbers::<2>(a, MAIN, "forcerange")?;
    let limited = match classes.attribute(a, MAIN, "forcelimited") {
        Some("true") => true,
        Some("false") => false,
        Some("auto") | None => range.is_some(),
        Some(other) => {
            return Err((
                element(a),
                format!("forcelimited=\"{other}\": expected true, false or auto"),
            ));
        }
    };
    let torque_limit = match (limited, range) {
        (false, _) => f64::INFINITY,
        (true, Some([lo, hi])) if lo == -hi && hi > 0.0 => hi,
        (true, r) => {
            return Err((
                element(a),
                format!(
                    "forcerange {r:?}: expected a symmetric range -τ τ with τ > 0 (the servo's \
                     limit is ±τ)"
                ),
            ));
        }
    };
    let servo = PositionServo {
        kp,
        kd: kv,
        torque_limit,
        delay: 0.0,
        dead_band: 0.0,
    };
    servo
        .validate()
        .map_err(|(field, e)| (element(a), format!("{field}: {e}")))?;
    Ok(servo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servos(actuators: &str) -> Result<Vec<Option<PositionServo>>, Problem> {
        let text = format!(
            r#"<mujoco><default><default class="s"><position kp="998.22" kv="2.731" forcerange="-2.94 2.94"/></default></default>
            <actuator>{actuators}</actuator></mujoco>"#
        );
        let doc = Document::parse(&text).unwrap();
        let chain = crate::model::reference::link2();
        read(&doc, &["a".to_string(), "b".to_string()], &chain)
    }

    #[test]
    fn position_actuators_are_servos_with_their_class_defaults() {
        let s = servos(
            r#"<position class="s" joint="b"/><position joint="a" kp="3"/><motor joint="a"/>"#,
        )
        .unwrap();
        assert_eq!(s[0].unwrap().kp, 3.0);
        assert_eq!(s[0].unwrap().kd, 0.0);
        assert_eq!(s[0].unwrap().torque_limit, f64::INFINITY);
        let b = s[1].unwrap();
        assert_eq!((b.kp, b.kd, b.torque_limit), (998.22, 2.731, 2.94));
        let off = servos(r#"<position class="s" joint="b" forcelimited="false"/>"#).unwrap();
        assert_eq!(off[1].unwrap().torque_limit, f64::INFINITY);
        // A damping ratio: kv = 2 ζ √(kp M₀), M₀ link2's outer joint's inertia at rest.
        let chain = crate::model::reference::link2();
        let m0 = inertia_at_zero(&chain, 1);
        assert!(m0 > 0.0);
        let ratio = servos(r#"<position joint="b" kp="50" dampratio="0.5"/>"#).unwrap();
        let kd = ratio[1].unwrap().kd;
        assert!((kd - (50.0 * m0).sqrt()).abs() < 1e-12 * kd, "{kd}");
    }

    #[test]
    fn what_the_servo_cannot_state_is_refused_by_name() {
        for (xml, said) in [
            (r#"<position joint="a" timeconst="0.01"/>"#, "timeconst"),
            (r#"<position joint="a" forcerange="-1 2"/>"#, "forcerange"),
            (r#"<position joint="a" gear="2"/>"#, "gear"),
            (
                r#"<position joint="a"/><position joint="a"/>"#,
                "second position servo",
            ),
            (r#"<position joint="a" kp="-1"/>"#, "kp"),
            (r#"<position joint="a" kv="1" dampratio="1"/>"#, "dampratio"),
        ] {
            let (_, problem) = servos(xml).unwrap_err();
            assert!(problem.contains(said), "{xml}: {problem}");
        }
    }
}
