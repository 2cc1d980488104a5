//! The recording's configuration (TOML): drive gains, the transmission of motor-side readings,
//! offsets and the joints held at a position.
//!
//! ```toml
//! [gain]                 # drive gain K (N·m/A or N/A) of joints recorded as currents i_<j>:
//! joint_1 = 0.5          # τ = K·i
//!
//! [transmission]         # motor-side columns qm_<j> (rad), taum_<j> (N·m): θm = R q, τ = Rᵀ τm
//! ratio = { joint_1 = 32.0, joint_2 = 32.0 }           # R's diagonal, one per joint
//! coupling = [{ motor = "joint_6", joint = "joint_5", ratio = 32.0 }]   # R[motor, joint]
//!
//! [offset]               # added to every q after the transmission (rad or m)
//! joint_2 = -1.5707963267948966
//!
//! [lock]                 # URDF joints held at a position (a gripper's fingers)
//! panda_finger_joint1 = 0.02
//!
//! [lerobot]              # a LeRobot dataset's unit (super::LeRobotReading)
//! units = "degrees"
//! ```
//!
//! Joints are named by their URDF name or their 1-based index along the chain. The Stäubli
//! TX40's coupled wrist (`q6 = θm6/N6 − θm5/N5`) is `θm6 = N6 (q5 + q6)`: ratio `N6` on joint 6
//! and a coupling of motor 6 on joint 5 with ratio `N6`; its torques are then
//! `τ5 = N5 τm5 + N6 τm6`, `τ6 = N6 τm6`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// A configuration that cannot be read or applied, named where.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("`{file}`: {source}")]
    Io {
        /// The file.
        file: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not TOML of the schema.
    #[error("`{file}`: {message}")]
    Format {
        /// The file.
        file: std::path::PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A field names an unknown joint or states an unusable value.
    #[error("`{file}`: field `{field}`: {problem}")]
    Field {
        /// The configuration file, or `command line`.
        file: std::path::PathBuf,
        /// The field.
        field: String,
        /// What is wrong and what is expected.
        problem: String,
    },
}

/// The configuration file's schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Drive gain `K` per joint (N·m/A or N/A).
    #[serde(default)]
    pub gain: BTreeMap<String, f64>,
    /// How motor-side readings map to joints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmission: Option<Transmission>,
    /// Offsets added to the joint coordinates (rad or m).
    #[serde(default)]
    pub offset: BTreeMap<String, f64>,
    /// URDF joints held at a position (rad or m).
    #[serde(default)]
    pub lock: BTreeMap<String, f64>,
    /// How a LeRobot dataset's joint values read ([`super::LeRobotReading`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lerobot: Option<super::LeRobotReading>,
}

/// `θm = R q`: the motor angles from the joint coordinates; `τ = Rᵀ τm` by power balance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transmission {
    /// `R`'s diagonal: each joint's gear ratio (motor turns per joint turn; the sign says the
    /// motor's direction).
    pub ratio: BTreeMap<String, f64>,
    /// Off-diagonal terms of `R`.
    #[serde(default)]
    pub coupling: Vec<Coupling>,
}

/// One off-diagonal term `R[motor, joint] = ratio`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coupling {
    /// The motor (named by its joint).
    pub motor: String,
    /// The joint it also turns with.
    pub joint: String,
    /// The term.
    pub ratio: f64,
}

impl Config {
    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Format {
            file: path.to_owned(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })
    }
}

/// The joints of a chain by URDF name and by 1-based index.
#[derive(Clone, Debug)]
pub struct JointNames {
    /// URDF names in chain order.
    pub names: Vec<String>,
}

impl JointNames {
    /// The chain index (0-based) of a joint reference: its URDF name, or its 1-based index.
    pub fn index(&self, reference: &str) -> Option<usize> {
        if let Some(k) = self.names.iter().position(|n| n == reference) {
            return Some(k);
        }
        match reference.parse::<usize>() {
            Ok(k) if (1..=self.names.len()).contains(&k) => Some(k - 1),
            _ => None,
        }
    }

    /// The index of a joint named in the configuration at `field`, or an error naming the file
    /// and field.
    pub fn field(&self, reference: &str, file: &Path, field: &str) -> Result<usize, ConfigError> {
        self.index(reference).ok_or_else(|| ConfigError::Field {
            file: file.to_owned(),
            field: field.to_string(),
            problem: format!(
                "the URDF has no joint {reference:?} (expected a joint name {:?} or an index \
                 1..={})",
                self.names,
                self.names.len()
            ),
        })
    }
}

/// The transmission matrix `R` (joints × joints) of `t`, and `Err` naming a field whose joint
/// is unknown, a joint without a ratio, or a singular `R`.
pub fn matrix(
    t: &Transmission,
    joints: &JointNames,
    file: &Path,
) -> Result<nalgebra::DMatrix<f64>, ConfigError> {
    let n = joints.names.len();
    let mut r = nalgebra::DMatrix::zeros(n, n);
    for (name, ratio) in &t.ratio {
        let k = joints.field(name, file, &format!("transmission.ratio.{name}"))?;
        r[(k, k)] = *ratio;
    }
    for (i, c) in t.coupling.iter().enumerate() {
        let field = format!("transmission.coupling[{i}]");
        let m = joints.field(&c.motor, file, &format!("{field}.motor"))?;
        let j = joints.field(&c.joint, file, &format!("{field}.joint"))?;
        r[(m, j)] = c.ratio;
    }
    for k in 0..n {
        if !(r[(k, k)].is_finite() && r[(k, k)] != 0.0) {
            return Err(ConfigError::Field {
                file: file.to_owned(),
                field: format!("transmission.ratio.{}", joints.names[k]),
                problem: "expected a finite, non-zero gear ratio for every joint".into(),
            });
        }
    }
    if r.clone().try_inverse().is_none() {
        return Err(ConfigError::Field {
            file: file.to_owned(),
            field: "transmission".into(),
            problem: "the ratios and couplings make a singular matrix R".into(),
        });
    }
    Ok(r)
}
