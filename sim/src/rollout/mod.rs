//! Rollouts: a model driven as the robot was, from the robot's own recorded states, and how far
//! it drifts from what the robot did. A model identified to be simulated is judged so: torque
//! prediction (inverse dynamics on the recorded motion) can be good while the simulated motion
//! drifts.
//!
//! **What is simulated.** For each window of a log ([`Windows`]: horizon and spacing stated),
//! the model starts at the recorded `(q, q̇)` of the window's first sample and Rapier integrates
//! it open loop ([`crate::simulation`], every joint torque-driven and dynamic) under the
//! recorded drive, each sample's value held until the next ([`crate::drive::Signal::Held`], a
//! zero-order hold: what a controller applying logged torques does). The model's joint
//! friction, damping and armature act as they do in any scenario, and its coupled drives
//! ([`Model::coupled`]) as `crate::simulation` applies them. Integrator steps are whole
//! divisions of the sample interval, at most [`MAX_STEP`] long and short enough for the model's
//! stiffest damping or friction ([`steps_per_sample`]); each window states its step.
//!
//! **What is measured** ([`Fidelity`]): per window and joint, the angle error `q_sim − q_rec`
//! at the horizon and its RMS over the window's samples (rad or m); their means over windows,
//! per joint and over joints. A window **blows up** when its simulation stops (a non-finite
//! state) or an error passes [`BLOWN_UP`]: it is counted, and left out of the means, which
//! would otherwise say nothing of the other windows.
//!
//! **Servo arms.** A joint with a position servo in the model ([`Model::servos`]) is driven
//! through it by the log's commands (`q_cmd`, each held until the next), from the same recorded
//! state, where the log has them ([`servo_driven`]: else by its torque, as any joint); windows then default to [`Windows::SERVO`]. Beside the model's figures stands what the
//! log says with no model, that each joint is where it was told ([`CommandBaseline`]).
//!
//! Frames, units and signs are the dataset's (`crate` docs): joint coordinates in the model's
//! joint frames, torques along the joint axes, positive in the joint's positive direction.

mod command;
mod commanded;
mod driven;
mod fidelity;
mod model;
mod prepared;
mod step;
mod window;
mod windows;

pub use command::{Options, RolledOut, rollout};
pub use commanded::{CommandBaseline, command_baseline};
pub use driven::{logged, with_drives};
pub use fidelity::{Fidelity, WindowError, fidelity};
pub use model::Model;
pub use prepared::{Prepared, prepare};
pub use step::{MIN_STEP, SIGN_FRACTION, STIFF_FRACTION, steps_per_sample};
pub use window::{Logged, RolledWindow, RolloutError, roll_out, servo_driven, window_steps};
pub use windows::Windows;

/// The longest integrator step of a rollout (s).
pub const MAX_STEP: f64 = 1e-3;

/// An error (rad or m) past which a window counts as blown up: a rollout that ends a whole
/// turn away predicts nothing of the motion.
pub const BLOWN_UP: f64 = std::f64::consts::TAU;
