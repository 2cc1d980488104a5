//! The drive terms a real joint-torque reading holds beyond the links' dynamics: each drive's
//! Coulomb and viscous friction and rotor inertia, acting on its motor, and a constant offset
//! of the reading. A `DRIVES.toml` file states them (`validation estimate --urdf-out` writes
//! one beside each identified URDF whose estimator identified drive terms):
//!
//! ```toml
//! min_speed = 0.05                       # rad/s: a drive slower than this has no Coulomb term
//! coupling = [[1.0, 0.0], [0.5, 1.0]]    # optional R̃ (drives × joints, unit diagonal)
//! [[drive]]
//! joint = 1                              # dataset joint id (1-based along the chain)
//! coulomb = 1.2                          # F_c (N·m or N)
//! viscous = 0.8                          # F_v (N·m·s/rad or N·s/m)
//! offset = -0.1                          # (N·m or N), on the joint's own reading
//! armature = 0.0                         # I_a (kg·m² or kg), reflected through the gear
//! [[servo]]                              # optional: the joint's position servo
//! joint = 1
//! kp = 4.0                               # N·m/rad
//! kd = 0.2                               # N·m·s/rad, on the joint's rate
//! torque_limit = 2.9                     # N·m (default inf)
//! delay = 0.1                            # s (default 0)
//! dead_band = 0.0                        # rad (default 0)
//! ```
//!
//! A `[[servo]]` entry says the joint is driven by a position servo
//! ([`crate::position_servo::PositionServo`]) from logged commands: a rollout drives it so
//! (`crate::rollout`). Its `[[drive]]` terms, where it has them, are the joint's own friction,
//! damping and armature as before.
//!
//! Drive `m` turns at `v_m = Σ_j R̃[m, j] q̇_j` (rad/s in joint `m`'s units; `v_m = q̇_m`
//! without coupling) and accelerates at `a_m` likewise; its torque
//! `F_c sgn₀(v_m) + F_v v_m + I_a a_m` reaches joint `j` as `R̃[m, j]` times it (power balance
//! through `τ = Rᵀ τ_m`), and joint `j`'s reading adds its offset. `sgn₀(v) = sgn(v)` where
//! `|v| ≥ min_speed`, else 0: a drive at rest is held by static friction anywhere within
//! `±F_s`, whose middle is 0. These are the columns `validation`'s IDIM identifies on a
//! recorded run, written here a second time, independently, so that a replay checks the
//! identified model through another implementation.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::friction::Friction;

/// One drive's terms (units in the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveTerms {
    /// Dataset joint id of the drive's own joint.
    pub joint: u8,
    /// Coulomb level `F_c`.
    #[serde(default)]
    pub coulomb: f64,
    /// Viscous coefficient `F_v`.
    #[serde(default)]
    pub viscous: f64,
    /// Offset of the joint's reading.
    #[serde(default)]
    pub offset: f64,
    /// Reflected rotor inertia `I_a`.
    #[serde(default)]
    pub armature: f64,
}

/// Every drive of an arm (`DRIVES.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveTrain {
    /// Speed below which a drive has no Coulomb term (rad/s or m/s).
    pub min_speed: f64,
    /// `R̃`, drives × joints with a unit diagonal; absent: each drive turns its own joint only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling: Option<Vec<Vec<f64>>>,
    /// One entry per drive that has terms, by joint.
    #[serde(default)]
    pub drive: Vec<DriveTerms>,
    /// One entry per joint driven by a position servo.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servo: Vec<ServoTerms>,
}

/// A joint's position servo in a drive-train file (units as
/// [`crate::position_servo::PositionServo`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServoTerms {
    /// Dataset joint id.
    pub joint: u8,
    /// Stiffness `k_p` (N·m/rad or N/m).
    pub kp: f64,
    /// Damping `k_d` on the joint's rate (N·m·s/rad or N·s/m).
    pub kd: f64,
    /// Torque limit (N·m or N); none by default.
    #[serde(default = "crate::position_servo::unlimited")]
    pub torque_limit: f64,
    /// Command delay (s).
    #[serde(default)]
    pub delay: f64,
    /// Dead band (rad or m).
    #[serde(default)]
    pub dead_band: f64,
}

impl ServoTerms {
    /// The servo these terms state.
    pub fn servo(&self) -> crate::position_servo::PositionServo {
        crate::position_servo::PositionServo {
            kp: self.kp,
            kd: self.kd,
            torque_limit: self.torque_limit,
            delay: self.delay,
            dead_band: self.dead_band,
        }
    }

    /// The terms of joint `joint`'s servo `s`.
    pub fn of(joint: u8, s: &crate::position_servo::PositionServo) -> ServoTerms {
        ServoTerms {
            joint,
            kp: s.kp,
            kd: s.kd,
            torque_limit: s.torque_limit,
            delay: s.delay,
            dead_band: s.dead_band,
        }
    }
}

/// A drive that turns several joints (a coupled wrist), as the simulation applies it
/// (`crate::simulation`): it turns at `v = Σ_j row[j] q̇_j` and resists with
/// `c v + τ_f(v)` plus its rotor's inertial torque `I_a Σ_j row[j] q̈_j`, which reach joint `j`
/// as `row[j]` times them.
#[derive(Clone, Debug, PartialEq)]
pub struct CoupledDrive {
    /// The drive's row of `R̃` (joints in dataset order).
    pub row: Vec<f64>,
    /// Reflected rotor inertia `I_a` (kg·m² or kg), in the drive's own joint's units.
    pub armature: f64,
    /// Viscous coefficient `c` (N·m·s/rad or N·s/m).
    pub damping: f64,
    /// Dry friction on the drive's rate (`τ_f(v)`, [`Friction::magnitude`] at `q = 0`).
    pub friction: Option<Friction>,
}

impl CoupledDrive {
    /// The drive's rate at joint rates `qd`.
    pub fn rate(&self, qd: &[f64]) -> f64 {
        self.row.iter().zip(qd).map(|(r, v)| r * v).sum()
    }

    /// The torque resisting its motion at rate `v`: `c v + τ_f(v)`.
    pub fn resistance(&self, v: f64) -> f64 {
        self.damping * v + self.friction.as_ref().map_or(0.0, |f| f.magnitude(0.0, v))
    }
}

/// A drive-train file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("drive-train file `{path}`: {message}")]
pub struct DriveTrainError {
    /// The file.
    pub path: String,
    /// What is wrong, naming the field.
    pub message: String,
}

impl DriveTrainError {
    /// The error of the file `path`: `message` names the field.
    fn new(path: &Path, message: String) -> Self {
        DriveTrainError {
            path: path.display().to_string(),
            message,
        }
    }
}

impl DriveTrain {
    /// Reads `path` and checks it against an arm of `joints` joints (ids `1..=joints`).
    pub fn read(path: &Path, joints: usize) -> Result<Self, DriveTrainError> {
        let error = |message: String| DriveTrainError::new(path, message);
        let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        let train: DriveTrain = toml::from_str(&text)
            .map_err(|e| error(e.to_string().trim_end().replace('\n', "\n  ")))?;
        train.check(joints, path)?;
        Ok(train)
    }

    /// Checks ids, finiteness and the coupling's shape against `joints` joints; `Err` names the
    /// file `path` and the field.
    fn check(&self, joints: usize, path: &Path) -> Result<(), DriveTrainError> {
        let error = |message: String| DriveTrainError::new(path, message);
        if !(self.min_speed >= 0.0 && self.min_speed.is_finite()) {
            return Err(error(format!(
                "field `min_speed`: expected ≥ 0, got {}",
                self.min_speed
            )));
        }
        for (k, d) in self.drive.iter().enumerate() {
            if d.joint == 0 || d.joint as usize > joints {
                return Err(error(format!(
                    "field `drive[{k}].joint`: expected 1..={joints}, got {}",
                    d.joint
                )));
            }
            if self.drive[..k].iter().any(|e| e.joint == d.joint) {
                return Err(error(format!(
                    "field `drive[{k}].joint`: joint {} is given twice",
                    d.joint
                )));
            }
            let values = [d.coulomb, d.viscous, d.offset, d.armature];
            if values.iter().any(|v| !v.is_finite()) {
                return Err(error(format!(
                    "field `drive[{k}]`: expected finite terms, got {values:?}"
                )));
            }
        }
        for (k, s) in self.servo.iter().enumerate() {
            if s.joint == 0 || s.joint as usize > joints {
                return Err(error(format!(
                    "field `servo[{k}].joint`: expected 1..={joints}, got {}",
                    s.joint
                )));
            }
            if self.servo[..k].iter().any(|e| e.joint == s.joint) {
                return Err(error(format!(
                    "field `servo[{k}].joint`: joint {} is given twice",
                    s.joint
                )));
            }
            (s.servo().validate())
                .map_err(|(field, e)| error(format!("field `servo[{k}].{field}`: {e}")))?;
        }
        if let Some(r) = &self.coupling {
            let square = r.len() == joints && r.iter().all(|row| row.len() == joints);
            if !square || (0..joints).any(|m| r[m][m] != 1.0) {
                return Err(error(format!(
                    "field `coupling`: expected a {joints} × {joints} matrix with a unit diagonal"
                )));
            }
        }
        Ok(())
    }

    /// Per joint of `joints`, its position servo where the file states one.
    pub fn servos(&self, joints: usize) -> Vec<Option<crate::position_servo::PositionServo>> {
        (1..=joints)
            .map(|j| {
                let entry = self.servo.iter().find(|s| s.joint as usize == j);
                entry.map(ServoTerms::servo)
            })
            .collect()
    }

    /// `R̃[m, j]`: drive `m`'s rate per unit rate of joint `j` (the identity where no coupling
    /// is stated).
    pub fn ratio(&self, m: usize, j: usize) -> f64 {
        match &self.coupling {
            Some(c) => c[m][j],
            None => f64::from(u8::from(m == j)),
        }
    }

    /// Whether drive `m` turns with another joint than its own (of `joints`).
    pub fn coupled(&self, m: usize, joints: usize) -> bool {
        (0..joints).any(|j| j != m && self.ratio(m, j) != 0.0)
    }

    /// The drives that turn several of `joints` joints, as the simulation applies them: their
    /// Coulomb level smoothed over `smoothing` (rad/s or m/s; a simulation needs a continuous
    /// friction) instead of this file's dead band.
    pub fn coupled_drives(&self, joints: usize, smoothing: f64) -> Vec<CoupledDrive> {
        (self.drive.iter())
            .filter(|d| self.coupled(d.joint as usize - 1, joints))
            .map(|d| CoupledDrive {
                row: (0..joints)
                    .map(|j| self.ratio(d.joint as usize - 1, j))
                    .collect(),
                armature: d.armature,
                damping: d.viscous,
                friction: (d.coulomb != 0.0).then_some(Friction::CoulombViscous {
                    coulomb: d.coulomb,
                    viscous: 0.0,
                    smoothing,
                }),
            })
            .collect()
    }

    /// The drive terms of each joint's reading at joint rates `qd` and accelerations `qdd`.
    pub fn torque(&self, qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let n = qd.len();
        let mut tau = vec![0.0; n];
        for d in &self.drive {
            let m = d.joint as usize - 1;
            let v: f64 = (0..n).map(|j| self.ratio(m, j) * qd[j]).sum();
            let a: f64 = (0..n).map(|j| self.ratio(m, j) * qdd[j]).sum();
            let sign = if v.abs() >= self.min_speed {
                v.signum()
            } else {
                0.0
            };
            let motor = d.coulomb * sign + d.viscous * v + d.armature * a;
            for (j, t) in tau.iter_mut().enumerate() {
                *t += self.ratio(m, j) * motor;
            }
            tau[m] += d.offset;
        }
        tau
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn train(coupling: Option<Vec<Vec<f64>>>) -> DriveTrain {
        DriveTrain {
            min_speed: 0.05,
            coupling,
            drive: vec![
                DriveTerms {
                    joint: 1,
                    coulomb: 2.0,
                    viscous: 0.5,
                    offset: 0.1,
                    armature: 0.0,
                },
                DriveTerms {
                    joint: 2,
                    coulomb: 1.0,
                    viscous: 0.0,
                    offset: 0.0,
                    armature: 0.3,
                },
            ],
            servo: Vec::new(),
        }
    }

    #[test]
    fn uncoupled_drives_act_on_their_own_joint() {
        let t = train(None).torque(&[-1.0, 0.01], &[0.0, 2.0]);
        assert_eq!(t, vec![-2.0 - 0.5 + 0.1, 0.6]);
    }

    #[test]
    fn a_coupled_drive_turns_at_the_combined_rate_and_loads_both_joints() {
        // Drive 2 turns at 0.5 q̇1 + q̇2 = 0.5 and loads joint 1 with half its torque.
        let c = Some(vec![vec![1.0, 0.0], vec![0.5, 1.0]]);
        let t = train(c.clone()).torque(&[-1.0, 1.0], &[0.0, 0.0]);
        assert_eq!(t, vec![-2.0 - 0.5 + 0.1 + 0.5 * 1.0, 1.0]);
        train(c).check(2, Path::new("t.toml")).unwrap();
    }

    #[test]
    fn bad_files_name_the_field() {
        let mut t = train(Some(vec![vec![1.0, 0.0], vec![0.5, 2.0]]));
        assert!(
            t.check(2, Path::new("t.toml"))
                .unwrap_err()
                .to_string()
                .contains("`coupling`")
        );
        t.coupling = None;
        t.drive[1].joint = 3;
        assert!(
            t.check(2, Path::new("t.toml"))
                .unwrap_err()
                .to_string()
                .contains("`drive[1].joint`")
        );
    }
}
