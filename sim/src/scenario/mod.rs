//! Scenario files (`scenarios/*.toml`): which model, how each joint is driven, the time span,
//! the integrator step, the output sample period, the seed and the measurement noise.
//!
//! ```toml
//! name = "paper_rail"
//! model = "arm6"            # a reference model: arm6, link2, cyl2 (sim::model::reference),
//!                           # or a URDF file, relative to this file (sim::urdf)
//! seed = 0                  # seeds the noise streams
//! torque_scale = 1.0        # optional factor on every torque signal
//!
//! [time]
//! end = 2.0                 # s
//! step = 0.02               # integrator step, s; must divide sample_period (the data are
//!                           # exact at any step; see each shipped scenario for its choice)
//! sample_period = 0.02      # s; samples at t = k·sample_period, k = 0..=end/sample_period
//!
//! [solver]                  # optional: pgs_iterations (4), Rapier's velocity-solver
//!                           # iterations for constraints such as joint limits
//!
//! [[joint]]                 # one entry per joint: 0 = rail (if any), i = O_i
//! id = 0
//! motion = { type = "constant_acceleration", acceleration = 2.0 }
//! # motion types: hold, constant_acceleration, polynomial, fourier (sim::profile)
//! # or: torque = { type = "multisine", base_frequency = 0.01, harmonics = [3, 5],
//! #                amplitudes = [0.2, 1.5] }   (constant, step, multisine, sum: sim::drive)
//! # or: servo = { reference = { type = "sweep", … }, control = { type = "pd", kp = 400.0,
//! #                kd = 40.0 } }   (pd, computed_torque, pi_velocity: sim::drive::Control)
//! # or: free = true
//! # optional: gain = 2.0 (drive gain K, N·m/A: the recorded current is i = tau / K)
//! # optional: damping = 2.0 (viscous, N·m·s/rad or N·s/m)
//! # optional: friction = { type = "stribeck", ... }   (coulomb_viscous, stribeck, paper,
//! #           lugre: sim::friction)
//!
//! [[noise]]                 # optional, any number: a noisy copy `<column>_meas`
//! column = "q"              # q, qd, qdd, tau or i (motor current)
//! joints = [1, 2]           # optional: default all joints
//! model = [{ type = "paper_uniform", amplitude = 0.1 }]   # sim::noise::Noise, in order
//! ```
//!
//! Every error names the file, the field and the expected form; unknown keys are rejected.

mod edit;
pub mod population;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::drive::{Drive, Signal};
use crate::model::{Chain, reference};
use crate::noise::ColumnNoise;
use crate::param::{finite, non_negative, positive};
use crate::profile::Profile;
use crate::recording::{BodyGroup, JointColumn};
use crate::sensor::Sensor;

/// A scenario file as written (the serde schema).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Scenario name; used as the run id.
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: String,
    /// Name of a reference model (`arm6`, `link2`).
    pub model: String,
    /// Seed of every random choice of the run (noise, randomized excitation).
    #[serde(default)]
    pub seed: u64,
    /// Factor applied to every `torque` signal (default 1): amplitude studies reuse one file.
    #[serde(default = "one")]
    pub torque_scale: f64,
    /// Time span and sampling.
    pub time: TimeSection,
    /// Rapier solver settings.
    #[serde(default)]
    pub solver: SolverSection,
    /// One entry per joint.
    pub joint: Vec<JointSection>,
    /// Measurement noise on recorded columns (`[[noise]]`), written as `<column>_meas`.
    #[serde(default)]
    pub noise: Vec<ColumnNoise>,
    /// Physical sensors (`[[sensor]]`: force/torque, IMU, encoder, clock; [`crate::sensor`]).
    #[serde(default)]
    pub sensor: Vec<Sensor>,
    /// A population of arms drawn around the model (`sim::population`); `sim population`
    /// simulates it, `sim run` the reference arm with the file's own drives.
    pub population: Option<crate::scenario::population::PopulationSection>,
    /// Joints of a URDF model held at a position (rad or m) by name, e.g. a gripper's fingers:
    /// `lock = { panda_finger_joint1 = 0.02 }`; mimic joints whose leader is held are held too
    /// ([`crate::urdf::lock`]). The rest must be a serial chain.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub lock: crate::urdf::Locks,
    /// A payload the last link carries (`payload = { mass, centroid, inertia }`, world frame
    /// at the zero configuration; [`crate::payload`]): the simulated arm's last body is the link
    /// and the payload as one. A population draws its arms around the arm carrying it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<crate::payload::Payload>,
}

/// `[time]`: all in seconds.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// End time (s); the first sample is at 0.
    pub end: f64,
    /// Integrator step (s).
    pub step: f64,
    /// Output sample period (s), an integer multiple of `step`.
    pub sample_period: f64,
    /// Whether the record must end at steady state (for frequency-domain analyses): the run
    /// is then invalid unless its last excitation period repeats the one before
    /// ([`crate::validity`], gate `steady_state`). Needs periodic torques on every driven
    /// joint and at least two whole periods recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub steady_state: bool,
}

/// `[solver]`: Rapier's velocity-solver iterations.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSection {
    /// Projected Gauss–Seidel iterations per step (`num_internal_pgs_iterations`), for
    /// velocity constraints such as joint limits (the shipped models have none).
    #[serde(default = "default_pgs")]
    pub pgs_iterations: usize,
}

fn one() -> f64 {
    1.0
}

fn default_pgs() -> usize {
    4
}

impl Default for SolverSection {
    fn default() -> Self {
        Self {
            pgs_iterations: default_pgs(),
        }
    }
}

/// `[[joint]]`: the drive of one joint.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointSection {
    /// Joint id: 0 = rail, `i` = `O_i`.
    pub id: u8,
    /// Prescribed motion.
    pub motion: Option<Profile>,
    /// Applied generalized force signal.
    pub torque: Option<Signal>,
    /// Closed-loop drive (`sim::drive::Servo`).
    pub servo: Option<crate::drive::Servo>,
    /// Unactuated.
    #[serde(default)]
    pub free: bool,
    /// Drive gain `K` (N·m/A or N/A, default 1): the recorded motor current is `i = tau / K`.
    #[serde(default = "one")]
    pub gain: f64,
    /// Viscous damping coefficient `c ≥ 0` (`tau_friction = −c·q̇`); default: the model's
    /// (a URDF's `<dynamics damping>`, else 0).
    #[serde(default)]
    pub damping: Option<f64>,
    /// A friction model (`sim::friction::Friction`), added to the damping; default: the model's
    /// (a URDF's `<dynamics friction>` as Coulomb friction, else none).
    #[serde(default)]
    pub friction: Option<crate::friction::Friction>,
    /// The motor's rotor behind the gear (`sim::rotor::Rotor`): its reflected inertia; default
    /// none.
    #[serde(default)]
    pub rotor: Option<crate::rotor::Rotor>,
    /// The motor's current loop and torque-constant error (`sim::motor::Motor`); default none
    /// (the current is its command, the stated gain is true).
    #[serde(default)]
    pub motor: Option<crate::motor::Motor>,
    /// A torsional spring and damper between the rotor and the link (`sim::elastic::Spring`;
    /// needs `rotor`); default none (a rigid gear).
    #[serde(default)]
    pub spring: Option<crate::elastic::Spring>,
    /// Coulomb friction proportional to the joint's constraint load
    /// (`sim::friction::LoadFriction`); default none.
    #[serde(default)]
    pub load_friction: Option<crate::friction::LoadFriction>,
    /// The friction's drift as the joint warms (`sim::friction::Drift`); default none.
    #[serde(default)]
    pub friction_drift: Option<crate::friction::Drift>,
}

/// A checked scenario, ready to simulate.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Where it was read from (for messages), if from a file.
    pub path: Option<PathBuf>,
    /// The file's text, verbatim (goes into the manifest).
    pub source: String,
    /// The parsed file.
    pub file: ScenarioFile,
    /// The model.
    pub chain: Chain,
    /// Drives in dataset joint order (`chain.joint_ids()`).
    pub drives: Vec<JointDrive>,
    /// Integrator steps per output sample.
    pub steps_per_sample: usize,
    /// Number of output samples (`end / sample_period + 1`).
    pub samples: usize,
    /// The motion family drawn, for an arm of a population with `[[population.motion]]`.
    pub motion_family: Option<crate::scenario::population::motion::FamilyId>,
    /// The factor on its readings' white noise, for an arm of a population with `noise_scale`
    /// (already applied to `file.noise` and `file.sensor`).
    pub noise_scale: Option<f64>,
    /// Where a URDF `model` path starts (`None`: the model was given, not read).
    model_dir: Option<PathBuf>,
}

/// Drive and damping of one joint.
#[derive(Clone, Debug)]
pub struct JointDrive {
    /// Dataset joint id.
    pub id: u8,
    /// Actuation.
    pub drive: Drive,
    /// Viscous damping coefficient.
    pub damping: f64,
    /// Friction model.
    pub friction: Option<crate::friction::Friction>,
    /// Drive gain `K` (`tau = K · i`).
    pub gain: f64,
    /// How the motor's rotor reaches the link.
    pub transmission: Transmission,
    /// The motor's current loop and true torque constant (`sim::motor`), if stated.
    pub motor: Option<crate::motor::Motor>,
    /// Load-proportional Coulomb friction (`sim::friction::LoadFriction`), if stated.
    pub load_friction: Option<crate::friction::LoadFriction>,
    /// The friction's thermal drift (`sim::friction::Drift`), if stated.
    pub drift: Option<crate::friction::Drift>,
}

/// How a joint's motor rotor reaches its link (`[[joint]] rotor`, `spring`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Transmission {
    /// No rotor stated: the drive's torque reaches the link as commanded.
    #[default]
    Direct,
    /// A rigid gear: the rotor's inertia reflected to the joint, `J_m G²` (kg·m²; kg on a
    /// prismatic joint), added to the link's (`sim::rotor`).
    Rigid {
        /// `J_m G²`.
        armature: f64,
    },
    /// An elastic gear: the spring, and the rotor's reflected inertia `J_m G²` behind it
    /// (`sim::elastic`).
    Elastic {
        /// The spring and damper (and backlash) between rotor and link.
        spring: crate::elastic::Spring,
        /// `J_m G²`.
        inertia: f64,
    },
}

impl Transmission {
    /// The inertia the rotor adds to its link's joint (kg·m²): a rigid gear's `J_m G²`, else 0.
    pub fn armature(self) -> f64 {
        match self {
            Transmission::Rigid { armature } => armature,
            _ => 0.0,
        }
    }

    /// An elastic gear's spring and reflected rotor inertia, if the gear is elastic.
    pub fn elastic(self) -> Option<(crate::elastic::Spring, f64)> {
        match self {
            Transmission::Elastic { spring, inertia } => Some((spring, inertia)),
            _ => None,
        }
    }
}

/// A scenario that cannot be used, with where and why.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("scenario file `{path}`: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid TOML for the schema (syntax, unknown key, wrong type).
    #[error("scenario file `{path}`: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's message, which names the key and line.
        message: String,
    },
    /// A value is out of range or inconsistent.
    #[error("scenario file `{path}`: field `{field}`: {expected}")]
    Invalid {
        /// The file.
        path: String,
        /// The offending field.
        field: String,
        /// What was expected (and what was found).
        expected: String,
    },
}

/// Largest number of integrator steps a scenario may ask for (time.end / time.step): about 15
/// hours of simulation on one core at today's speed.
pub const MAX_STEPS: usize = 2_000_000_000;

/// Largest recording a scenario may ask for (bytes, estimated before simulating by
/// [`Scenario::estimated_recording_bytes`]): a run is held in memory until it is written, and
/// its Arrow tables take about as much again while it is.
pub const MAX_RECORDING_BYTES: u64 = 8 << 30;

/// The recording's size in memory (bytes) of `samples` samples of `chain` under `file`: every
/// sample's body and joint records and the noisy copies the `[[noise]]` and `[[sensor]]` sections
/// add (counted as three columns per section and table row, an upper bound).
pub fn recording_bytes(samples: usize, chain: &Chain, file: &ScenarioFile) -> f64 {
    let bodies = chain.len() as f64;
    let joints = chain.joint_ids().len() as f64;
    let records = bodies * std::mem::size_of::<crate::recording::BodyRecord>() as f64
        + joints * std::mem::size_of::<crate::recording::JointRecord>() as f64;
    let copies = (file.noise.len() + file.sensor.len()) as f64;
    let noisy = copies * 3.0 * bodies.max(joints) * 8.0;
    (samples as f64 + 1.0) * (records + noisy + 8.0)
}

/// `Err((field, expected))` for a recording larger than [`MAX_RECORDING_BYTES`].
fn check_size(
    samples: usize,
    chain: &Chain,
    file: &ScenarioFile,
) -> Result<(), (&'static str, String)> {
    let bytes = recording_bytes(samples, chain, file);
    if bytes > MAX_RECORDING_BYTES as f64 {
        return Err((
            "time.end",
            format!(
                "expected a recording of at most {} GiB, this one would hold about {:.1} GiB \
                 ({samples} samples; shorten time.end, lengthen time.sample_period or split the run)",
                MAX_RECORDING_BYTES >> 30,
                bytes / (1u64 << 30) as f64,
            ),
        ));
    }
    Ok(())
}

/// Most arms a population may ask for: partitions, progress and the list of arms to write are
/// held per arm.
pub const MAX_ARMS: usize = 10_000_000;

/// Largest population a scenario may ask for (bytes of its arms' recordings before compression,
/// [`recording_bytes`] per arm): about 16 TiB, far beyond what a disk holds in Parquet.
pub const MAX_POPULATION_BYTES: f64 = 16.0 * (1u64 << 40) as f64;

/// `Err((field, expected))` for a population of more than [`MAX_ARMS`] arms or of more than
/// [`MAX_POPULATION_BYTES`] of recordings: refused when the file is read, before anything runs.
fn check_population(
    arms: usize,
    samples: usize,
    chain: &Chain,
    file: &ScenarioFile,
) -> Result<(), (&'static str, String)> {
    if arms > MAX_ARMS {
        return Err((
            "population.arms",
            format!("expected 1 to {MAX_ARMS} arms, got {arms}"),
        ));
    }
    if file
        .population
        .as_ref()
        .is_some_and(|p| p.arms_per_shard == Some(0))
    {
        return Err((
            "population.arms_per_shard",
            "expected at least 1 arm per shard, got 0".into(),
        ));
    }
    let bytes = arms as f64 * recording_bytes(samples, chain, file);
    if bytes > MAX_POPULATION_BYTES {
        return Err((
            "population.arms",
            format!(
                "expected a population of at most {} TiB of recordings, this one would hold about \
                 {:.1} TiB ({arms} arms of {samples} samples; fewer arms or shorter runs)",
                (MAX_POPULATION_BYTES / (1u64 << 40) as f64) as u64,
                bytes / (1u64 << 40) as f64,
            ),
        ));
    }
    Ok(())
}

/// `Err` for a body Rapier cannot simulate: one with exactly one zero principal moment (an
/// ideal rod). Rapier inverts the world inertia tensor and replaces a singular one by zero, so
/// such a body would lose its inertia; a point mass (all three zero) is simulated exactly.
fn simulable(chain: &Chain) -> Result<(), String> {
    for link in &chain.links {
        let zeros = link.body.inertia.iter().filter(|j| **j == 0.0).count();
        if zeros == 1 {
            return Err(format!(
                "link \"{}\": principal moments {:?} kg·m² with one zero (an ideal rod): Rapier \
                 would drop its inertia (expected three positive moments, or all zero for a \
                 point mass)",
                link.name, link.body.inertia
            ));
        }
    }
    Ok(())
}

/// `Err` where a prescribed profile leaves the joint's `<limit>` range (checked at every
/// integrator step up to `steps`). Revolute joints may work anywhere within their limits,
/// beyond ±π too: the multibody's joint coordinate is not wrapped.
fn within_limits(
    p: &Profile,
    limits: &crate::model::JointLimits,
    steps: usize,
    dt: f64,
) -> Result<(), String> {
    let slack = 1e-9 * (limits.upper - limits.lower).abs().max(1.0);
    let range = limits.lower - slack..=limits.upper + slack;
    match (0..steps)
        .map(|k| (k as f64 * dt, p.eval(k as f64 * dt).q))
        .find(|(_, q)| !range.contains(q))
    {
        Some((t, q)) => Err(format!(
            "expected a profile within the joint's limits [{}, {}]; it reaches {q} at t = {t} s",
            limits.lower, limits.upper
        )),
        None => Ok(()),
    }
}

/// Where a scenario's model comes from.
#[derive(Clone, Copy)]
enum ModelSource<'a> {
    /// Named by `model`: a reference model, or a URDF path relative to this directory.
    Dir(&'a Path),
    /// Given.
    Given(&'a Chain),
}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn from_path(path: &Path) -> Result<Self, ScenarioError> {
        let source = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io {
            path: path.to_owned(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut s = Self::from_toml_in(&source, &path.display().to_string(), dir)?;
        s.path = Some(path.to_owned());
        Ok(s)
    }

    /// Parses and checks scenario text; `origin` names it in error messages. A URDF `model`
    /// path is taken relative to the current directory.
    pub fn from_toml(source: &str, origin: &str) -> Result<Self, ScenarioError> {
        Self::from_toml_in(source, origin, Path::new("."))
    }

    /// [`Scenario::from_toml`] with a URDF `model` path relative to `dir` (the scenario file's
    /// directory).
    pub fn from_toml_in(source: &str, origin: &str, dir: &Path) -> Result<Self, ScenarioError> {
        Self::parse(source, origin, ModelSource::Dir(dir))
    }

    /// [`Scenario::from_toml`] with the model given instead of the one `model` names: for a
    /// scenario recorded in a manifest, whose model (a URDF file then) travels with it.
    pub fn from_toml_with_model(
        source: &str,
        origin: &str,
        model: &Chain,
    ) -> Result<Self, ScenarioError> {
        Self::parse(source, origin, ModelSource::Given(model))
    }

    fn parse(source: &str, origin: &str, model: ModelSource) -> Result<Self, ScenarioError> {
        let file: ScenarioFile = toml::from_str(source).map_err(|e| ScenarioError::Parse {
            path: origin.to_string(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        let invalid = |field: &str, expected: String| ScenarioError::Invalid {
            path: origin.to_string(),
            field: field.to_string(),
            expected,
        };
        // A recorded scenario's model may be one arm drawn from its population: the section is
        // kept for the record, not checked against that arm.
        let recorded = matches!(model, ModelSource::Given(_));
        // Where relative paths in the file (a recorded motion's run) start.
        let base = match model {
            ModelSource::Dir(dir) => dir.to_path_buf(),
            ModelSource::Given(_) => PathBuf::from("."),
        };
        let chain = match model {
            ModelSource::Given(chain) => chain.clone(),
            ModelSource::Dir(dir) if file.model.ends_with(".urdf") => {
                crate::urdf::read_locked(&dir.join(&file.model), &file.lock)
                    .map_err(|e| invalid("model", format!("expected a serial-chain URDF: {e}")))?
            }
            ModelSource::Dir(_) if !file.lock.is_empty() => {
                return Err(invalid(
                    "lock",
                    format!(
                        "expected no locks for the built-in model {:?} (locks name joints of a \
                         URDF model)",
                        file.model
                    ),
                ));
            }
            ModelSource::Dir(_) => reference::by_name(&file.model).ok_or_else(|| {
                invalid(
                    "model",
                    format!(
                        "expected one of {:?} or a URDF file path (….urdf, relative to the scenario file), got {:?}",
                        reference::NAMES,
                        file.model
                    ),
                )
            })?,
        };
        // A given chain is the arm simulated, payload included.
        let chain = match (&file.payload, model) {
            (Some(payload), ModelSource::Dir(_)) => {
                carrying(chain, payload).map_err(|(f, e)| invalid(&format!("payload.{f}"), e))?
            }
            _ => chain,
        };
        chain
            .validate()
            .map_err(|e| invalid("model", e.to_string()))?;
        simulable(&chain).map_err(|e| invalid("model", e))?;

        let t = &file.time;
        for (name, v) in [
            ("time.end", t.end),
            ("time.step", t.step),
            ("time.sample_period", t.sample_period),
        ] {
            positive(name, v, "duration in s").map_err(|(f, e)| invalid(&f, e))?;
        }
        finite("torque_scale", file.torque_scale).map_err(|(f, e)| invalid(&f, e))?;
        let ratio = t.sample_period / t.step;
        let steps_per_sample = ratio.round() as usize;
        if steps_per_sample == 0 || (ratio - steps_per_sample as f64).abs() > 1e-9 * ratio {
            return Err(invalid(
                "time.step",
                format!(
                    "expected a step that divides sample_period = {} s exactly, got {} s",
                    t.sample_period, t.step
                ),
            ));
        }
        let periods = t.end / t.sample_period;
        if (periods - periods.round()).abs() > 1e-9 * periods.max(1.0) {
            return Err(invalid(
                "time.end",
                format!(
                    "expected a whole number of sample periods ({} s), got {} s",
                    t.sample_period, t.end
                ),
            ));
        }
        // Counted in f64 first: a huge time.end must not wrap the sample count.
        let steps = (periods.round() + 1.0) * steps_per_sample as f64;
        if steps.is_nan() || steps > MAX_STEPS as f64 {
            let field = if periods.round() + 1.0 > MAX_STEPS as f64 {
                "time.end"
            } else {
                "time.step"
            };
            return Err(invalid(
                field,
                format!(
                    "expected at most {MAX_STEPS:e} integrator steps, got {steps:.3e} \
                     (time.end / time.step)"
                ),
            ));
        }
        let samples = periods.round() as usize + 1;
        check_size(samples, &chain, &file).map_err(|(f, e)| invalid(f, e))?;
        for (name, n) in [("solver.pgs_iterations", file.solver.pgs_iterations)] {
            if n == 0 || n > 100_000 {
                return Err(invalid(name, format!("expected 1..=100000, got {n}")));
            }
        }

        let ids = chain.joint_ids();
        let mut drives = Vec::with_capacity(ids.len());
        let mut recordings = crate::profile::recorded::Recordings::new();
        for &id in &ids {
            let matching: Vec<(usize, &JointSection)> = file
                .joint
                .iter()
                .enumerate()
                .filter(|(_, j)| j.id == id)
                .collect();
            let (k, j) = match matching.as_slice() {
                [one] => *one,
                [] => {
                    return Err(invalid(
                        "joint",
                        format!(
                            "expected an entry with id = {id} (model `{}` has joints {ids:?})",
                            chain.name
                        ),
                    ));
                }
                _ => {
                    return Err(invalid(
                        "joint",
                        format!("expected one entry with id = {id}, found several"),
                    ));
                }
            };
            let field = |f: &str| format!("joint[{k}].{f}");
            let drive = match (&j.motion, &j.torque, &j.servo, j.free) {
                (Some(p), None, None, false) => {
                    let motion_field =
                        |(f, e): (String, String)| invalid(&field(&format!("motion.{f}")), e);
                    p.validate().map_err(motion_field)?;
                    let mut p = p.clone();
                    if let Profile::Recorded(m) = &mut p {
                        m.resolve(&base, t.end, &mut recordings)
                            .map_err(motion_field)?;
                    }
                    Drive::Motion(p)
                }
                (None, Some(s), None, false) => {
                    s.validate()
                        .map_err(|(f, e)| invalid(&field(&format!("torque.{f}")), e))?;
                    Drive::Torque(s.scaled(file.torque_scale))
                }
                (None, None, Some(servo), false) => {
                    servo
                        .reference
                        .validate()
                        .map_err(|(f, e)| invalid(&field(&format!("servo.reference.{f}")), e))?;
                    servo
                        .control
                        .validate()
                        .map_err(|(f, e)| invalid(&field(&format!("servo.control.{f}")), e))?;
                    Drive::Servo(servo.clone())
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
            };
            positive("gain", j.gain, "drive gain in N·m/A (N/A)")
                .map_err(|(f, e)| invalid(&field(&f), e))?;
            let limits = (id > 0)
                .then(|| chain.links[id as usize - 1].joint.limits)
                .flatten();
            if let (Drive::Motion(p), Some(l)) = (&drive, limits) {
                within_limits(p, &l, samples * steps_per_sample, t.step)
                    .map_err(|e| invalid(&field("motion"), e))?;
            }
            if id == 0 && !matches!(drive, Drive::Motion(_)) {
                return Err(invalid(
                    &field("motion"),
                    "expected a `motion` for the rail (joint 0): its massless carriage is moved kinematically".into(),
                ));
            }
            let model_damping = if id > 0 {
                chain.links[id as usize - 1].joint.damping
            } else {
                0.0
            };
            let damping = j.damping.unwrap_or(model_damping);
            non_negative("damping", damping).map_err(|(f, e)| invalid(&field(&f), e))?;
            if id == 0 && damping != 0.0 {
                return Err(invalid(
                    &field("damping"),
                    "expected 0 for the kinematic rail".into(),
                ));
            }
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
            if let Some(l) = &j.load_friction {
                if id == 0 {
                    return Err(invalid(
                        &field("load_friction"),
                        "expected none for the kinematic rail".into(),
                    ));
                }
                l.validate()
                    .map_err(|(name, e)| invalid(&field(&format!("load_friction.{name}")), e))?;
            }
            if let Some(d) = &j.friction_drift {
                d.validate()
                    .map_err(|(name, e)| invalid(&field(&format!("friction_drift.{name}")), e))?;
            }
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
                if !matches!(drive, Drive::Torque(_) | Drive::Servo(_)) || id == 0 {
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
                if !matches!(drive, Drive::Torque(_) | Drive::Servo(_) | Drive::Motion(_))
                    || id == 0
                {
                    return Err(invalid(
                        &field("motor"),
                        "expected a motor only on an actuated joint (torque, servo or motion), not the rail".into(),
                    ));
                }
                m.validate()
                    .map_err(|(name, e)| invalid(&field(&format!("motor.{name}")), e))?;
            }
            let model_friction = (id > 0)
                .then(|| chain.links[id as usize - 1].joint.friction.clone())
                .flatten();
            drives.push(JointDrive {
                id,
                drive,
                damping,
                friction: j.friction.clone().or(model_friction),
                gain: j.gain,
                transmission: match (j.rotor, j.spring) {
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
                load_friction: j.load_friction,
                drift: j.friction_drift,
            });
        }
        let mut chain = chain;
        for d in &drives {
            if d.id > 0 {
                chain.links[d.id as usize - 1].joint.damping = d.damping;
                chain.links[d.id as usize - 1].joint.friction = d.friction.clone();
            }
        }
        validate_measurement(&file, &ids, chain.len(), &invalid)?;
        if let Some(p) = file.population.as_ref().filter(|_| !recorded) {
            if p.random.is_some() {
                p.validate_random(&chain)
            } else if crate::scenario::population::is_arm6(&chain) {
                p.validate(chain.len())
            } else {
                p.validate_scaled(chain.len())
            }
            .and_then(|()| p.validate_motion(&file.time))
            .map_err(|(f, e)| invalid(&format!("population.{f}"), e))?;
            check_population(p.arms, samples, &chain, &file).map_err(|(f, e)| invalid(f, e))?;
        }
        if let Some((k, j)) = (file.joint.iter().enumerate()).find(|(_, j)| !ids.contains(&j.id)) {
            return Err(invalid(
                &format!("joint[{k}].id"),
                format!(
                    "expected one of {ids:?} (model `{}`), got {}",
                    chain.name, j.id
                ),
            ));
        }
        let scenario = Self {
            path: None,
            source: source.to_string(),
            file,
            chain,
            drives,
            steps_per_sample,
            samples,
            motion_family: None,
            noise_scale: None,
            model_dir: match model {
                ModelSource::Dir(dir) => Some(dir.to_path_buf()),
                ModelSource::Given(_) => None,
            },
        };
        scenario.check_limits().map_err(|(f, e)| invalid(f, e))?;
        Ok(scenario)
    }

    /// What can only be checked on the whole scenario, the steady-state requirement;
    /// `Err((field, expected))`.
    fn check_limits(&self) -> Result<(), (&'static str, String)> {
        if self.file.time.steady_state && self.steady_window().is_none() {
            return Err((
                "time.steady_state",
                "expected periodic torques of one period on every driven joint, a period that is \
                 a whole number of samples, and at least two periods recorded"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The recording's size in memory (bytes), estimated before simulating
    /// ([`recording_bytes`]).
    pub fn estimated_recording_bytes(&self) -> f64 {
        recording_bytes(self.samples, &self.chain, &self.file)
    }

    /// The file's name for messages: its path, or the scenario name.
    fn origin(&self) -> String {
        self.path
            .as_ref()
            .map_or(self.file.name.clone(), |p| p.display().to_string())
    }

    /// The file's `[population]` section; `Err` names the file if it has none.
    pub fn population(
        &self,
    ) -> Result<&crate::scenario::population::PopulationSection, ScenarioError> {
        self.file
            .population
            .as_ref()
            .ok_or_else(|| ScenarioError::Invalid {
                path: self.origin(),
                field: "population".into(),
                expected: "expected a [population] section".into(),
            })
    }

    /// The scenario of arm `index` of the file's population: the drawn arm and its drives, the
    /// file's time, solver, noise, sensors, damping and friction; named `<name>/arm=<index>`.
    /// Its seed (the noise streams') is the file's mixed with the index, so arms do not share
    /// noise realizations. `Err` names
    /// the population field whose draw is unusable (a profile leaving its joint's limits).
    pub fn population_arm(&self, index: usize) -> Result<Scenario, ScenarioError> {
        let origin = self.origin();
        let p = self.population()?;
        let seed = p.seed.unwrap_or(self.file.seed);
        let arm = if p.random.is_some() {
            p.random_arm(seed, index)
        } else if crate::scenario::population::is_arm6(&self.chain) {
            p.arm(seed, index, self.file.time.end)
        } else {
            let drives: Vec<Drive> = self.drives.iter().map(|d| d.drive.clone()).collect();
            p.scaled_arm(&self.chain, &drives, seed, index)
        };
        let mut s = if let (Some(_), Some(drives)) = (&p.random, &arm.drives) {
            // The file read again about the drawn arm: its first joint sections (the drive
            // templates) with the motions it drew, sensors and noise checked against its joints
            // and bodies.
            let mut file = self.file.clone();
            // A random arm's joints are 1..=n, its drives in that order.
            file.joint
                .retain(|j| (1..=drives.len()).contains(&(j.id as usize)));
            for section in &mut file.joint {
                if let Drive::Motion(m) = &drives[section.id as usize - 1] {
                    (section.motion, section.servo, section.torque) = (Some(m.clone()), None, None);
                    section.free = false;
                }
            }
            let text = toml::to_string(&file).map_err(|e| ScenarioError::Parse {
                path: origin.clone(),
                message: format!("the drawn arm's scenario cannot be written as TOML: {e}"),
            })?;
            Scenario {
                path: self.path.clone(),
                model_dir: self.model_dir.clone(),
                ..Self::from_toml_with_model(&text, &origin, &arm.chain)?
            }
        } else {
            self.clone()
        };
        s.file.name = format!("{}/arm={index:05}", self.file.name);
        s.file.seed = self.file.seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        s.chain = arm.chain;
        s.motion_family = arm.family;
        s.noise_scale = p.noise_factor(seed, index);
        if let Some(factor) = s.noise_scale {
            crate::measurement::scale_white_noise(&mut s.file.noise, &mut s.file.sensor, factor);
        }
        if let Some(step) = arm.step {
            s.file.time.step = step;
            s.steps_per_sample = (s.file.time.sample_period / step).round() as usize;
        }
        if let Some(friction) = p.joint_friction(seed, index, &s.chain.joint_kinds()) {
            for (d, f) in s.drives.iter_mut().zip(friction) {
                if f.is_some() {
                    d.friction = f;
                }
            }
        }
        let drawn = arm
            .drives
            .unwrap_or_else(|| s.drives.iter().map(|d| d.drive.clone()).collect());
        for (d, drive) in s.drives.iter_mut().zip(drawn) {
            d.drive = drive;
            if d.id > 0 {
                let joint = &mut s.chain.links[d.id as usize - 1].joint;
                joint.damping = d.damping;
                joint.friction = d.friction.clone();
            }
        }
        let end = self.file.time.end;
        for (k, d) in s.drives.iter().enumerate().skip(1) {
            let limits = (d.id > 0)
                .then(|| s.chain.links[d.id as usize - 1].joint.limits)
                .flatten();
            if let (
                Drive::Motion(prof)
                | Drive::Servo(crate::drive::Servo {
                    reference: prof, ..
                }),
                Some(limits),
            ) = (&d.drive, limits)
                && let Err(e) = within_limits(prof, &limits, 201, end / 200.0)
            {
                return Err(ScenarioError::Invalid {
                    path: origin,
                    field: match (arm.family, p.excitation()) {
                        (Some(family), _) => format!("population.motion ({family})"),
                        (None, crate::scenario::population::ExcitationKind::Fourier) => {
                            "population.fourier.max_angle".into()
                        }
                        _ => "population.joint_acceleration".into(),
                    },
                    expected: format!("arm {index} joint {k}: {e}"),
                });
            }
        }
        s.source = s.arm_source(&origin)?;
        Ok(s)
    }

    /// The text of a drawn arm's own scenario (what its manifest records, and what a reader of
    /// the run takes as its design): the file with its joint sections reduced to the arm's
    /// joints, each with the motion or servo reference the arm drew, its time step and its
    /// (scaled) noise; the `[population]` section kept for the record.
    fn arm_source(&self, origin: &str) -> Result<String, ScenarioError> {
        let mut file = self.file.clone();
        let ids: Vec<u8> = self.drives.iter().map(|d| d.id).collect();
        file.joint.retain(|j| ids.contains(&j.id));
        for d in &self.drives {
            let Some(section) = file.joint.iter_mut().find(|j| j.id == d.id) else {
                continue;
            };
            section.friction.clone_from(&d.friction);
            match &d.drive {
                Drive::Motion(p) => {
                    (section.motion, section.servo) = (Some(p.clone()), None);
                }
                Drive::Servo(servo) => {
                    (section.motion, section.servo) = (None, Some(servo.clone()));
                }
                Drive::Torque(_) | Drive::Free => {}
            }
        }
        toml::to_string(&file).map_err(|e| ScenarioError::Parse {
            path: origin.to_string(),
            message: format!("the drawn arm's scenario cannot be written as TOML: {e}"),
        })
    }

    /// The run's sensors and noise laws, seeded by the scenario seed.
    pub fn measurement_model(&self) -> crate::measurement::MeasurementModel<'_> {
        crate::measurement::MeasurementModel {
            noise: &self.file.noise,
            sensors: &self.file.sensor,
            seed: self.file.seed,
            period: self.file.time.sample_period,
        }
    }

    /// Integrator step (s).
    pub fn dt(&self) -> f64 {
        self.file.time.step
    }

    /// The common period of all applied torque signals (s), if they are all periodic with the
    /// same fundamental: the multisine excitation's period.
    pub fn excitation_period(&self) -> Option<f64> {
        let periods: Vec<Option<f64>> = self
            .drives
            .iter()
            .filter_map(|d| match &d.drive {
                Drive::Torque(s) => Some(s.period()),
                _ => None,
            })
            .collect();
        let first = (*periods.first()?)?;
        periods
            .iter()
            .all(|p| p.is_some_and(|p| (p - first).abs() <= 1e-12 * first))
            .then_some(first)
    }

    /// The steady-state window: the excitation period (s) and the number of samples in it,
    /// where every torque is periodic with one period, a period is a whole number of samples
    /// and the record holds at least two periods.
    pub fn steady_window(&self) -> Option<(f64, usize)> {
        let period = self.excitation_period()?;
        let per = period / self.file.time.sample_period;
        let n = per.round() as usize;
        let whole = n > 0 && (per - n as f64).abs() <= 1e-9 * per;
        (whole && self.samples > 2 * n).then_some((period, n))
    }

    /// The drive gain `K` of every joint, dataset order.
    pub fn gains(&self) -> Vec<f64> {
        self.drives.iter().map(|d| d.gain).collect()
    }

    /// Time of sample `k` (s).
    pub fn sample_time(&self, k: usize) -> f64 {
        k as f64 * self.file.time.sample_period
    }
}

/// Checks `[[noise]]` and `[[sensor]]`: known columns, joints and bodies that exist, one sensor
/// of a kind per body or joint, one clock.
fn validate_measurement(
    file: &ScenarioFile,
    ids: &[u8],
    bodies: usize,
    invalid: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let body_ids: Vec<u8> = (1..=bodies as u8).collect();
    let check_ids = |field: &str, list: &Option<Vec<u8>>, valid: &[u8], what: &str| match list
        .iter()
        .flatten()
        .find(|j| !valid.contains(j))
    {
        Some(bad) => Err(invalid(
            field,
            format!("expected {what} among {valid:?}, got {bad}"),
        )),
        None => Ok(()),
    };
    for (k, n) in file.noise.iter().enumerate() {
        let is_joint = JointColumn::from_name(&n.column).is_some();
        let is_body = BodyGroup::NOISY.iter().any(|g| g.name() == n.column);
        if !is_joint && !is_body {
            let groups: Vec<&str> = BodyGroup::NOISY.iter().map(|g| g.name()).collect();
            let joints: Vec<&str> = JointColumn::ALL.iter().map(|c| c.name()).collect();
            return Err(invalid(
                &format!("noise[{k}].column"),
                format!(
                    "expected a joint column {joints:?} or a body group {groups:?}, got {:?}",
                    n.column
                ),
            ));
        }
        if is_body && n.joints.is_some() {
            return Err(invalid(
                &format!("noise[{k}].joints"),
                format!("expected `bodies` for the body group {:?}", n.column),
            ));
        }
        if is_joint && n.bodies.is_some() {
            return Err(invalid(
                &format!("noise[{k}].bodies"),
                format!("expected `joints` for the joint column {:?}", n.column),
            ));
        }
        check_ids(&format!("noise[{k}].joints"), &n.joints, ids, "joints")?;
        check_ids(
            &format!("noise[{k}].bodies"),
            &n.bodies,
            &body_ids,
            "bodies",
        )?;
        for (i, m) in n.model.iter().enumerate() {
            m.validate()
                .map_err(|(f, e)| invalid(&format!("noise[{k}].model[{i}].{f}"), e))?;
            m.check_rate(file.time.sample_period)
                .map_err(|(f, e)| invalid(&format!("noise[{k}].model[{i}].{f}"), e))?;
        }
    }
    for (k, s) in file.sensor.iter().enumerate() {
        s.validate(file.time.sample_period)
            .map_err(|(f, e)| invalid(&format!("sensor[{k}].{f}"), e))?;
        match s {
            Sensor::ForceTorque { bodies: b, .. } | Sensor::Imu { bodies: b, .. } => {
                check_ids(&format!("sensor[{k}].bodies"), b, &body_ids, "bodies")?;
            }
            Sensor::Encoder { joints, .. } => {
                check_ids(&format!("sensor[{k}].joints"), joints, ids, "joints")?
            }
            Sensor::Clock { .. } => {}
        }
        let same_kind = |o: &Sensor| std::mem::discriminant(o) == std::mem::discriminant(s);
        let overlap = file.sensor[..k].iter().filter(|o| same_kind(o)).any(|o| {
            matches!(s, Sensor::Clock { .. })
                || body_ids
                    .iter()
                    .any(|&b| o.covers_body(b) && s.covers_body(b))
                || ids.iter().any(|&j| o.covers_joint(j) && s.covers_joint(j))
        });
        if overlap {
            return Err(invalid(
                &format!("sensor[{k}]"),
                "expected at most one sensor of a kind per body or joint (and one clock)".into(),
            ));
        }
    }
    Ok(())
}

/// `chain` with its last link carrying `payload`; `Err` names the payload's field.
fn carrying(
    mut chain: Chain,
    payload: &crate::payload::Payload,
) -> Result<Chain, crate::param::ParamError> {
    payload.validate()?;
    let Some(last) = chain.links.last_mut() else {
        return Err((
            "mass".into(),
            "expected a model with a link to carry it".into(),
        ));
    };
    last.body = payload.carried_by(&last.body);
    Ok(chain)
}
