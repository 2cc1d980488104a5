//! The drives of an identified arm in MJCF ([`super::export::with_drives`]): the terms of a
//! drive-train file ([`crate::drive_train::DriveTrain`]) as MuJoCo states them, and the motors where
//! the transmission is known.
//!
//! Drive `m` turns at `v_m = Σ_j R̃[m, j] q̇_j` ([`crate::drive_train::DriveTrain`]). Where its row
//! of `R̃` is its own joint only, its rotor inertia, viscous coefficient and Coulomb level are
//! that joint's `armature`, `damping` and `frictionloss`. Where it also turns with other joints
//! (a coupled wrist), they are those of a fixed tendon `drive_<joint>` of length
//! `Σ_j R̃[m, j] q_j`: MuJoCo adds `armature · JᵀJ` to the mass matrix and `damping · J q̇`
//! through `Jᵀ` (`J` the tendon's row, here `R̃[m, ·]`), the drive's own terms through the
//! transmission. A motor `motor_<joint>` acts on the joint, or on the tendon, with `gear` the
//! drive's ratio `R[m, m]`, so that a control is the motor's torque (N·m) and the joints receive
//! `R[m, j]` times it (`τ = Rᵀ τ_m`).
//!
//! A servo arm's position servos (`[[servo]]` of the file) are `<position>` actuators
//! `servo_<joint>` on their joints (`kp`, `kv` the servo's `k_d`, `forcerange` its torque limit
//! where finite), so that a control is the commanded position (rad or m), as MuJoCo Menagerie
//! states its servo arms; where the file states both servos and a transmission, the servos are
//! written (the arm is driven by its commands) and the motors are not.
//!
//! What MJCF cannot state is said in a comment and stays in the drive-train file: the reading's
//! offset (a bias of the measured torque, not a force on the arm), the dead band below
//! `min_speed` inside which the identified model has no Coulomb term (MuJoCo's friction loss is
//! a constraint that holds a joint at rest up to its level), and a servo's command delay and
//! dead band (MuJoCo applies a control at once; a simulation that should match the robot delays
//! the commands it sets by the stated delay).

use std::fmt::Write;

use super::text::escape;
use crate::drive_train::DriveTrain;

/// The drives of an arm as the exporter writes them.
#[derive(Clone, Copy, Debug)]
pub struct Actuation<'a> {
    /// The identified drive terms (joint units; `R̃` unit-diagonal).
    pub drives: &'a DriveTrain,
    /// `R` of `θm = R q` (drives × joints), where the transmission is stated: one motor per drive.
    pub transmission: Option<&'a [Vec<f64>]>,
}

/// A joint's terms from its own drive: `(armature, damping, frictionloss)`.
pub type JointTerms = [f64; 3];

impl Actuation<'_> {
    /// Joint `j`'s own drive's terms `[armature, viscous, Coulomb]`, where that drive turns
    /// with joint `j` only (of `joints`).
    pub fn joint_terms(&self, j: usize, joints: usize) -> Option<JointTerms> {
        let d = self
            .drives
            .drive
            .iter()
            .find(|d| d.joint as usize == j + 1)?;
        (!self.drives.coupled(j, joints)).then_some([d.armature, d.viscous, d.coulomb])
    }

    /// The comment after joint `j`'s element: what of its drive MJCF cannot state.
    pub(super) fn joint_note(&self, j: usize) -> Option<String> {
        let d = self
            .drives
            .drive
            .iter()
            .find(|d| d.joint as usize == j + 1)?;
        let mut said = Vec::new();
        if d.offset != 0.0 {
            said.push(format!(
                "reading offset {:?} (a bias of the measured torque, not a force)",
                d.offset
            ));
        }
        if d.coulomb != 0.0 && self.drives.min_speed > 0.0 {
            said.push(format!(
                "no Coulomb term below {:?} (rad/s or m/s: the identified model's dead band; \
                 MuJoCo's frictionloss holds a joint at rest)",
                self.drives.min_speed
            ));
        }
        (!said.is_empty()).then(|| format!("drive of this joint: {}", said.join("; ")))
    }

    /// `<tendon>` with a fixed tendon per coupled drive, and `<actuator>` with a motor per drive
    /// where the transmission is stated; `names` the joints' names in chain order.
    pub(super) fn write(&self, out: &mut String, names: &[String]) {
        let n = names.len();
        let coupled: Vec<usize> = (0..n).filter(|&m| self.drives.coupled(m, n)).collect();
        if !coupled.is_empty() {
            out.push_str("  <tendon>\n");
            for &m in &coupled {
                let terms = self.drives.drive.iter().find(|d| d.joint as usize == m + 1);
                let mut attributes = format!("name=\"drive_{}\"", escape(&names[m]));
                if let Some(d) = terms {
                    for (what, v) in [
                        ("armature", d.armature),
                        ("damping", d.viscous),
                        ("frictionloss", d.coulomb),
                    ] {
                        if v != 0.0 {
                            let _ = write!(attributes, " {what}=\"{v:?}\"");
                        }
                    }
                }
                let _ = writeln!(out, "    <fixed {attributes}>");
                for (j, name) in names.iter().enumerate() {
                    let c = self.drives.ratio(m, j);
                    if c != 0.0 {
                        let _ = writeln!(
                            out,
                            "      <joint joint=\"{}\" coef=\"{c:?}\"/>",
                            escape(name)
                        );
                    }
                }
                out.push_str("    </fixed>\n");
            }
            out.push_str("  </tendon>\n");
        }
        if !self.drives.servo.is_empty() {
            self.write_servos(out, names);
            return;
        }
        let Some(r) = self.transmission else {
            return;
        };
        out.push_str("  <actuator>\n");
        for (m, name) in names.iter().enumerate() {
            let target = if coupled.contains(&m) {
                format!("tendon=\"drive_{}\"", escape(name))
            } else {
                format!("joint=\"{}\"", escape(name))
            };
            let _ = writeln!(
                out,
                "    <motor name=\"motor_{}\" {target} gear=\"{:?}\"/>",
                escape(name),
                r[m][m]
            );
        }
        out.push_str("  </actuator>\n");
    }

    /// `<actuator>` with a `<position>` per servo (module docs), each after a comment with what
    /// MJCF cannot state of it.
    fn write_servos(&self, out: &mut String, names: &[String]) {
        out.push_str("  <actuator>\n");
        for s in &self.drives.servo {
            let Some(name) = names.get(s.joint as usize - 1) else {
                continue;
            };
            if s.delay != 0.0 || s.dead_band != 0.0 {
                let _ = writeln!(
                    out,
                    "    <!-- servo of {}: command delay {:?} s, dead band {:?} (drives.toml; not \
                     in MJCF) -->",
                    escape(name),
                    s.delay,
                    s.dead_band
                );
            }
            let mut attributes = format!(
                "name=\"servo_{0}\" joint=\"{0}\" kp=\"{1:?}\" kv=\"{2:?}\"",
                escape(name),
                s.kp,
                s.kd
            );
            if s.torque_limit.is_finite() {
                let l = s.torque_limit;
                let _ = write!(attributes, " forcerange=\"{:?} {l:?}\"", -l);
            }
            let _ = writeln!(out, "    <position {attributes}/>");
        }
        out.push_str("  </actuator>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drive_train::DriveTerms;

    fn drive(joint: u8, armature: f64) -> DriveTerms {
        DriveTerms {
            joint,
            coulomb: 1.5,
            viscous: 0.25,
            offset: -0.125,
            armature,
        }
    }

    /// `link2`'s two joints, the second drive turning with both (R̃ = [[1, 0], [0.5, 1]]), the
    /// gears 10 and −20: the first drive's terms on its joint, the second's on a tendon with
    /// R̃'s row as coefficients, a motor per drive, and what MJCF cannot state in comments.
    #[test]
    fn a_coupled_drive_is_a_tendon_and_each_drive_a_motor() {
        let chain = crate::model::reference::by_name("link2").unwrap();
        let train = DriveTrain {
            min_speed: 0.05,
            coupling: Some(vec![vec![1.0, 0.0], vec![0.5, 1.0]]),
            drive: vec![drive(1, 0.75), drive(2, 0.5)],
            servo: Vec::new(),
        };
        let r = [vec![10.0, 0.0], vec![-10.0, -20.0]];
        let actuation = Actuation {
            drives: &train,
            transmission: Some(&r),
        };
        let names = ["a".to_string(), "b".to_string()];
        let text = super::super::with_drives(&chain, Some(&names), Some(&actuation));
        assert!(text.contains(
            "<joint name=\"a\" type=\"hinge\" axis=\"0.0 1.0 0.0\" armature=\"0.75\" damping=\"0.25\" frictionloss=\"1.5\"/>"
        ), "{text}");
        assert!(
            text.contains("<joint name=\"b\" type=\"hinge\" axis=\"0.0 1.0 0.0\"/>"),
            "{text}"
        );
        assert!(text.contains(
            "<fixed name=\"drive_b\" armature=\"0.5\" damping=\"0.25\" frictionloss=\"1.5\">\n      \
             <joint joint=\"a\" coef=\"0.5\"/>\n      <joint joint=\"b\" coef=\"1.0\"/>"
        ), "{text}");
        assert!(text.contains("<motor name=\"motor_a\" joint=\"a\" gear=\"10.0\"/>"));
        assert!(text.contains("<motor name=\"motor_b\" tendon=\"drive_b\" gear=\"-20.0\"/>"));
        assert_eq!(text.matches("reading offset -0.125").count(), 2);
        // Without a transmission, no motor; the tendon stays.
        let bare = Actuation {
            drives: &train,
            transmission: None,
        };
        let text = super::super::with_drives(&chain, Some(&names), Some(&bare));
        assert!(!text.contains("<actuator>") && text.contains("<tendon>"));
    }

    /// A servo arm's drive train: each servo a `<position>` on its joint that reads back to the
    /// same servo (a finite torque limit its `forcerange`), its delay and dead band said in a
    /// comment; the servos written in place of motors.
    #[test]
    fn servos_are_position_actuators_that_read_back() {
        use crate::drive_train::ServoTerms;
        let chain = crate::model::reference::by_name("link2").unwrap();
        let servo = |joint, kp, torque_limit, delay| ServoTerms {
            joint,
            kp,
            kd: 0.25 * kp,
            torque_limit,
            delay,
            dead_band: 0.0,
        };
        let train = DriveTrain {
            min_speed: 0.0,
            coupling: None,
            drive: vec![drive(1, 0.75), drive(2, 0.5)],
            servo: vec![servo(1, 12.5, 3.0, 0.02), servo(2, 7.0, f64::INFINITY, 0.0)],
        };
        let r = [vec![10.0, 0.0], vec![0.0, 20.0]];
        let actuation = Actuation {
            drives: &train,
            transmission: Some(&r),
        };
        let names = ["a".to_string(), "b".to_string()];
        let text = super::super::with_drives(&chain, Some(&names), Some(&actuation));
        assert!(!text.contains("<motor"), "{text}");
        assert!(
            text.contains("servo of a: command delay 0.02 s, dead band 0.0"),
            "{text}"
        );
        assert!(!text.contains("servo of b"), "{text}");
        let back = super::super::from_str(&text, "servos.xml", &Default::default()).unwrap();
        for (read, stated) in back.servos.iter().zip(&train.servo) {
            let read = read.expect("a servo on every joint");
            let stated = ServoTerms {
                delay: 0.0,
                ..stated.clone()
            };
            assert_eq!(read, stated.servo());
        }
    }
}
