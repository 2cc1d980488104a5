//! Study files (`studies/*.toml`): which scenarios, which sensor noise to sweep over which
//! levels, how many Monte-Carlo seeds, which estimators.
//!
//! ```toml
//! name = "mim_noise"
//! scenarios = ["../scenarios/paper_rail.toml"]   # relative to the study file
//! validation = ["../scenarios/paper_rail.toml"]  # optional: per scenario, its validation run (effects score torque_nrms on it)
//! seeds = 100                                     # Monte-Carlo seeds per level
//! estimators = ["mim_stacked", "mim_gls"]         # names of the registry
//! nim_models = "../generated/models/nim"          # optional: NIM models, if nim is listed
//!
//! [[sweep]]
//! sensor = "force_torque"                         # force_torque | imu | encoder | joint_torque | motor_current | joint_angle
//! levels = { from = 1e-4, to = 1e-1, count = 7 }  # log-spaced (or a list: [1e-4, 1e-3, …])
//! estimators = ["mim_gls"]                        # optional: this sweep's own list
//!
//! [[effect]]                                      # a generator effect (study::effect)
//! kind = "gear_efficiency"                        # gear_efficiency | torque_constant_error | current_bandwidth | lugre | load_friction | friction_drift
//! levels = [1.0, 0.95, 0.9, 0.8]                  # its severities (at least 4)
//! estimators = ["idim_ols", "didim"]              # optional: this effect's own list
//!
//! [[external]]                                    # an estimator outside the registry (subprocess protocol:
//! name = "numpy_mass"                             #   crate::estimate::external::command); list its name
//! command = ["python3", "numpy_mass.py"]          #   among the estimators; runs in the study file's folder
//! ```
//!
//! A level is a relative standard deviation: at level `L`, every channel of the swept sensor
//! on body `i` has white noise of `σ = L · RMS` of that body's clean signal over the run
//! (force and moment for `force_torque`; angular velocity and the specific force at the
//! centroid for `imu`), its three axes alike; for `joint_torque`, Gaussian noise on every joint's
//! `tau` of `σ = L · RMS` of that joint's torque (`motor_current`: on `i`, of its current's RMS). For `encoder` a level is the resolution of every
//! joint's encoder in rad (m on the rail), absolute: a held joint has no RMS to scale by; for
//! `joint_angle` the standard deviation of Gaussian noise on every joint's `q`, rad (m), absolute
//! likewise. Every
//! error names the file and the field.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::estimate::external::ExternalCommand;

/// A study file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    /// `"sweep"` where given ([`crate::study::plan`] reads the kind first).
    #[serde(default)]
    #[allow(dead_code)]
    kind: Option<String>,
    name: String,
    scenarios: Vec<PathBuf>,
    #[serde(default)]
    validation: Vec<PathBuf>,
    seeds: usize,
    estimators: Vec<String>,
    #[serde(default)]
    nim_models: Option<PathBuf>,
    #[serde(default)]
    sweep: Vec<SweepSection>,
    #[serde(default)]
    effect: Vec<EffectSection>,
    #[serde(default)]
    external: Vec<ExternalSection>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExternalSection {
    name: String,
    command: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EffectSection {
    kind: super::effect::EffectKind,
    levels: Vec<f64>,
    #[serde(default)]
    estimators: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepSection {
    sensor: SensorFamily,
    levels: Levels,
    #[serde(default)]
    estimators: Option<Vec<String>>,
}

/// The sensor a sweep varies.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SensorFamily {
    /// A 6-axis force/torque sensor at every joint (white noise, child body's frame).
    ForceTorque,
    /// A link IMU on every body at its centroid (gyroscope and accelerometer, white noise).
    Imu,
    /// Joint encoders of a given resolution on every joint (quantization only).
    Encoder,
    /// Gaussian noise on every joint's measured torque `tau` (a joint torque sensor).
    JointTorque,
    /// Gaussian noise on every joint's motor current `i` (σ = level · RMS of the joint's
    /// current): the reading the whole-arm identifiers take their torque from, `K i`.
    MotorCurrent,
    /// Gaussian noise on every joint's measured angle `q` (σ = the level, rad; m on a rail):
    /// the noise that differentiation carries into `q̇, q̈` and so into a regressor (errors in
    /// variables).
    JointAngle,
}

impl SensorFamily {
    /// Its name in files.
    pub fn name(self) -> &'static str {
        match self {
            SensorFamily::ForceTorque => "force_torque",
            SensorFamily::Imu => "imu",
            SensorFamily::Encoder => "encoder",
            SensorFamily::JointTorque => "joint_torque",
            SensorFamily::MotorCurrent => "motor_current",
            SensorFamily::JointAngle => "joint_angle",
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Levels {
    List(Vec<f64>),
    Range { from: f64, to: f64, count: usize },
}

/// A checked study.
#[derive(Clone, Debug)]
pub struct Study {
    /// Its name.
    pub name: String,
    /// Scenario files (resolved against the study file's folder).
    pub scenarios: Vec<PathBuf>,
    /// Per scenario, the scenario of its validation run (resolved), or none at all: where given,
    /// effect sweeps edit it alike and score every torque model's prediction on it
    /// (`torque_nrms`).
    pub validation: Vec<PathBuf>,
    /// Monte-Carlo seeds per level.
    pub seeds: usize,
    /// Estimator names.
    pub estimators: Vec<String>,
    /// NIM models' directory (resolved), if given.
    pub nim_models: Option<PathBuf>,
    /// The sweeps of sensor noise.
    pub sweeps: Vec<Sweep>,
    /// The sweeps of the generator's effects.
    pub effects: Vec<super::effect::Effect>,
    /// Estimators outside the registry (`[[external]]`), by the subprocess protocol.
    pub externals: Vec<ExternalCommand>,
}

/// One sweep of a study.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The swept sensor.
    pub sensor: SensorFamily,
    /// Its levels.
    pub levels: Vec<f64>,
    /// The estimators run in it.
    pub estimators: Vec<String>,
}

/// A study file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// Unreadable.
    #[error("study file `{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not TOML of the schema (the message names the key and line).
    #[error("study file `{path}`: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A value out of range.
    #[error("study file `{path}`: field `{field}`: {expected}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field.
        field: String,
        /// What was expected.
        expected: String,
    },
}

/// Most seeds per level a study may ask for.
pub const MAX_SEEDS: usize = 100_000;
/// Most levels per sweep a study may ask for.
pub const MAX_LEVELS: usize = 1_000;
/// Fewest severities per effect a study may ask for.
pub(crate) const MIN_SEVERITIES: usize = 4;

impl Study {
    /// Reads and checks a study file; `known` are the registry's estimator names.
    pub fn from_path(path: &Path, known: &[String]) -> Result<Study, StudyError> {
        let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_toml(&text, path, known)
    }

    /// Reads and checks the text of a study file at `path` (its scenarios are relative to
    /// `path`'s directory).
    pub fn from_toml(text: &str, path: &Path, known: &[String]) -> Result<Study, StudyError> {
        let file: StudyFile = toml::from_str(text).map_err(|e| StudyError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let dir = (path.parent())
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let externals = external_commands(&file.external, path, dir, known)?;
        let mut known = known.to_vec();
        known.extend(file.external.iter().map(|e| e.name.clone()));
        let read = Reading {
            path,
            dir,
            known: &known,
        };
        if file.seeds == 0 || file.seeds > MAX_SEEDS {
            return Err(read.invalid(
                "seeds",
                format!("expected 1 to {MAX_SEEDS} seeds, got {}", file.seeds),
            ));
        }
        if file.scenarios.is_empty() {
            return Err(read.invalid("scenarios", "expected at least one scenario".into()));
        }
        read.existing("scenarios", &file.scenarios)?;
        read.existing("validation", &file.validation)?;
        if !file.validation.is_empty() && file.validation.len() != file.scenarios.len() {
            return Err(read.invalid(
                "validation",
                format!(
                    "expected one validation scenario per scenario ({}), got {}",
                    file.scenarios.len(),
                    file.validation.len()
                ),
            ));
        }
        read.estimators("estimators", &file.estimators)?;
        let sweeps = (file.sweep.iter().enumerate())
            .map(|(k, s)| read.sweep(k, s, &file.estimators))
            .collect::<Result<Vec<_>, _>>()?;
        let effects = (file.effect.iter().enumerate())
            .map(|(k, e)| read.effect(k, e, &file.estimators))
            .collect::<Result<Vec<_>, _>>()?;
        if sweeps.is_empty() && effects.is_empty() {
            return Err(read.invalid(
                "sweep",
                "expected at least one [[sweep]] or [[effect]]".into(),
            ));
        }
        Ok(Study {
            name: file.name,
            scenarios: file.scenarios.iter().map(|s| dir.join(s)).collect(),
            validation: file.validation.iter().map(|s| dir.join(s)).collect(),
            seeds: file.seeds,
            estimators: file.estimators,
            nim_models: file.nim_models.map(|m| dir.join(m)),
            sweeps,
            effects,
            externals,
        })
    }
}

/// The `[[external]]` commands of a study file at `path`, run in `dir`: names unique, of
/// lowercase letters, digits and `_`, none of the registry's (`known`); commands not empty.
fn external_commands(
    sections: &[ExternalSection],
    path: &Path,
    dir: &Path,
    known: &[String],
) -> Result<Vec<ExternalCommand>, StudyError> {
    let invalid = |field: String, expected: String| StudyError::Invalid {
        path: path.to_owned(),
        field,
        expected,
    };
    let mut commands = Vec::new();
    for (k, e) in sections.iter().enumerate() {
        let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
        let taken = known.contains(&e.name) || sections[..k].iter().any(|o| o.name == e.name);
        if e.name.is_empty() || !e.name.chars().all(plain) || taken {
            return Err(invalid(
                format!("external[{k}].name"),
                format!(
                    "expected a new name of lowercase letters, digits and `_` (not a registry \
                     estimator's nor another external's), got {:?}",
                    e.name
                ),
            ));
        }
        if e.command.first().is_none_or(|p| p.is_empty()) {
            return Err(invalid(
                format!("external[{k}].command"),
                "expected a program and its first arguments, e.g. [\"python3\", \"mine.py\"]"
                    .into(),
            ));
        }
        commands.push(ExternalCommand::new(&e.name, e.command.clone(), dir));
    }
    Ok(commands)
}

/// What checking a study file needs: where it is (errors name it; its scenarios are relative to
/// its directory) and the registry's estimator names.
struct Reading<'a> {
    path: &'a Path,
    dir: &'a Path,
    known: &'a [String],
}

impl Reading<'_> {
    fn invalid(&self, field: &str, expected: String) -> StudyError {
        StudyError::Invalid {
            path: self.path.to_owned(),
            field: field.into(),
            expected,
        }
    }

    /// Every scenario of `list` (field `field`) exists.
    fn existing(&self, field: &str, list: &[PathBuf]) -> Result<(), StudyError> {
        for (k, s) in list.iter().enumerate() {
            let at = self.dir.join(s);
            if !at.exists() {
                return Err(self.invalid(
                    &format!("{field}[{k}]"),
                    format!("expected an existing scenario file, got {}", at.display()),
                ));
            }
        }
        Ok(())
    }

    /// Every estimator of `list` (field `field`) is registered.
    fn estimators(&self, field: &str, list: &[String]) -> Result<(), StudyError> {
        for (k, e) in list.iter().enumerate() {
            if !self.known.contains(e) {
                return Err(self.invalid(
                    &format!("{field}[{k}]"),
                    format!("expected one of {:?}, got {e:?}", self.known),
                ));
            }
        }
        Ok(())
    }

    /// The `k`-th `[[sweep]]`, its estimators `default` where it lists none.
    fn sweep(&self, k: usize, s: &SweepSection, default: &[String]) -> Result<Sweep, StudyError> {
        let levels = match &s.levels {
            Levels::List(v) => v.clone(),
            Levels::Range { from, to, count } => {
                let finite = from.is_finite() && to.is_finite();
                if !(finite && *from > 0.0 && to > from && (2..=MAX_LEVELS).contains(count)) {
                    return Err(self.invalid(
                        &format!("sweep[{k}].levels"),
                        format!(
                            "expected finite 0 < from < to and 2 ≤ count ≤ {MAX_LEVELS}, \
                             got {from}, {to}, {count}"
                        ),
                    ));
                }
                let r = (to / from).ln() / (*count - 1) as f64;
                (0..*count).map(|i| from * (r * i as f64).exp()).collect()
            }
        };
        let positive = levels.iter().all(|l| l.is_finite() && *l > 0.0);
        if !(5..=MAX_LEVELS).contains(&levels.len()) || !positive {
            return Err(self.invalid(
                &format!("sweep[{k}].levels"),
                format!(
                    "expected 5 to {MAX_LEVELS} finite positive levels, got {} ({:?}…)",
                    levels.len(),
                    &levels[..levels.len().min(8)]
                ),
            ));
        }
        let estimators = s.estimators.clone().unwrap_or_else(|| default.to_vec());
        self.estimators(&format!("sweep[{k}].estimators"), &estimators)?;
        Ok(Sweep {
            sensor: s.sensor,
            levels,
            estimators,
        })
    }

    /// The `k`-th `[[effect]]`, its estimators `default` where it lists none.
    fn effect(
        &self,
        k: usize,
        e: &EffectSection,
        default: &[String],
    ) -> Result<super::effect::Effect, StudyError> {
        if e.levels.len() < MIN_SEVERITIES
            || e.levels.len() > MAX_LEVELS
            || !e.levels.iter().all(|l| l.is_finite())
        {
            return Err(self.invalid(
                &format!("effect[{k}].levels"),
                format!(
                    "expected {MIN_SEVERITIES} to {MAX_LEVELS} finite severities, got {:?}",
                    &e.levels[..e.levels.len().min(8)]
                ),
            ));
        }
        let estimators = e.estimators.clone().unwrap_or_else(|| default.to_vec());
        self.estimators(&format!("effect[{k}].estimators"), &estimators)?;
        Ok(super::effect::Effect {
            kind: e.kind,
            levels: e.levels.clone(),
            estimators,
        })
    }
}
