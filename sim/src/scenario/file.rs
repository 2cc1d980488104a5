//! The scenario file as written: the serde schema of `scenarios/*.toml` (every key, its unit
//! and default). [`super::Scenario`] is what a file becomes once checked.

use serde::{Deserialize, Serialize};

use super::time::TimeSection;
use crate::drive::Signal;
use crate::noise::ColumnNoise;
use crate::profile::Profile;
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
    /// Gravity's acceleration in the world frame (m/s²), replacing the model's
    /// ([`crate::model::Chain::gravity`]: an MJCF file's `<option gravity>`, else
    /// [`crate::GRAVITY`] along −z).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f64; 3]>,
    /// A payload the last link carries (`payload = { mass, centroid, inertia }`, world frame
    /// at the zero configuration; [`crate::payload`]): the simulated arm's last body is the link
    /// and the payload as one. A population draws its arms around the arm carrying it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<crate::payload::Payload>,
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

/// Defines [`JointSection`]: its own fields and one per registered term
/// (`super::terms::registered`).
macro_rules! joint_section {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
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
            /// The joint's state at `t = 0` on a torque-driven, servo or free joint (a rollout
            /// starts from a recorded state); default: a servo's reference there, else at rest at 0.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub start: Option<crate::drive::JointStart>,
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
            $(
                $(#[$doc])*
                #[serde(default)]
                pub $field: Option<$ty>,
            )*
        }

        impl JointSection {
            /// A section for joint `id` with no actuation and every default (gain 1; damping,
            /// friction and every term the model's or none): set one of `motion`, `torque`,
            /// `servo` or `free` before it is checked.
            pub fn new(id: u8) -> JointSection {
                JointSection {
                    id,
                    motion: None,
                    torque: None,
                    servo: None,
                    free: false,
                    start: None,
                    gain: 1.0,
                    damping: None,
                    friction: None,
                    rotor: None,
                    motor: None,
                    spring: None,
                    $($field: None,)*
                }
            }

            /// The registered terms it states.
            pub fn terms(&self) -> super::terms::JointTerms {
                super::terms::JointTerms {
                    $($field: self.$field,)*
                }
            }
        }
    };
}
super::terms::registered!(joint_section);
