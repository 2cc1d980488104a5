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

mod arm;
mod bounds;
mod build;
mod check;
mod coupled;
mod edit;
mod file;
mod joint;
pub mod population;
mod terms;
mod time;

use std::path::{Path, PathBuf};

use crate::drive::Drive;
use crate::model::Chain;

pub use bounds::{MAX_ARMS, MAX_POPULATION_BYTES, MAX_RECORDING_BYTES, MAX_STEPS, recording_bytes};
pub use file::{JointSection, ScenarioFile, SolverSection};
pub use terms::JointTerms;
pub use time::TimeSection;

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
    /// Drives that turn several joints ([`crate::drive_train::CoupledDrive`]), set by
    /// [`Scenario::with_coupled_drives`] (a rollout of an identified model with a coupled wrist,
    /// `crate::rollout`); a scenario file states none.
    pub coupled: Vec<crate::drive_train::CoupledDrive>,
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
    /// The state at `t = 0` stated for a joint the dynamics move (`[[joint]] start`).
    pub start: Option<crate::drive::JointStart>,
    /// Viscous damping coefficient.
    pub damping: f64,
    /// The model's joint spring `(k, q₀)` ([`crate::model::Joint::stiffness`],
    /// [`crate::model::Joint::spring_rest`]): the joint feels `−k (q − q₀)`.
    pub spring: (f64, f64),
    /// Friction model.
    pub friction: Option<crate::friction::Friction>,
    /// Drive gain `K` (`tau = K · i`).
    pub gain: f64,
    /// How the motor's rotor reaches the link.
    pub transmission: Transmission,
    /// The motor's current loop and true torque constant (`sim::motor`), if stated.
    pub motor: Option<crate::motor::Motor>,
    /// The registered terms the section states (`sim::term`): load friction, drift, cogging…
    pub terms: JointTerms,
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

/// Where a scenario's model comes from.
#[derive(Clone, Copy)]
enum ModelSource<'a> {
    /// Named by `model`: a reference model, or a URDF path relative to this directory.
    Dir(&'a Path),
    /// Given.
    Given(&'a Chain),
}

impl Scenario {
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

    /// The run's sensors and noise laws, seeded by the scenario seed.
    pub(crate) fn measurement_model(&self) -> crate::measurement::MeasurementModel<'_> {
        crate::measurement::MeasurementModel {
            noise: &self.file.noise,
            sensors: &self.file.sensor,
            seed: self.file.seed,
            period: self.file.time.sample_period,
            gravity: self.chain.gravity,
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
    pub(crate) fn sample_time(&self, k: usize) -> f64 {
        k as f64 * self.file.time.sample_period
    }
}
