//! Rebuilds serial robot manipulators in the Rapier physics engine, replays identification
//! experiments on them and records physically consistent data for inertial-parameter estimators.
//!
//! Data flows one way: [`scenario`] (a TOML file) → [`model`] (a chain of rigid bodies) →
//! [`simulation`] (the Rapier world, stepped) → [`recording`] (per-sample body and joint
//! quantities) → [`dataset`] (Parquet files in a run directory). A scenario's
//! [`population`] section draws many arms; [`batch`] simulates them in parallel, by shard,
//! into one partitioned dataset ([`dataset::population`]).
//!
//! # Conventions (stated once, used everywhere)
//!
//! * **Units**: SI throughout — m, kg, s, rad, N, N·m, kg·m². Scenario files use the same units.
//! * **World frame**: `x = e1(0)` is the rail direction, `z = e3(0)` points up, `y = z × x`.
//!   Gravity is `g = 9.80665 m/s²` along `−z` ([`GRAVITY`]).
//! * **Zero configuration**: every model is described in the world frame with all joint
//!   coordinates at zero (see [`model`]). Joint axes and anchors are given there; positive joint
//!   coordinates follow the right-hand rule about (or translation along) the joint axis.
//! * **Body frame**: centred at the body's centroid, axes along its central principal axes of
//!   inertia, so its central inertia tensor is `diag(J11, J22, J33)` in that frame. For the
//!   cylinder links of `arm6`, `e1` is the cylinder axis pointing away from the base.
//! * **Orientation**: the unit quaternion and the Cardan angles both describe the body frame →
//!   world rotation `A⁽⁰ⁱ⁾ = Rx(α)·Ry(β)·Rz(γ)` (the MIM paper's eq. 9), see [`kinematics`].
//! * **Angular velocity and acceleration** are recorded in the *body* frame; linear quantities
//!   (centroid position, velocity, acceleration, joint forces and moments) in the *world* frame.
//! * **Joint wrench**: `f_i`, `n_i` are the force and moment that body `i−1` (the parent, or the
//!   carriage/ground for body 1) exerts on body `i` through its inner joint `O_i`, the moment
//!   taken about the point `O_i`. The wrench includes everything transmitted through the joint:
//!   constraint reactions, motor action and applied joint torques.
//! * **Generalized joint force** `tau` is the actuator's force (prismatic, N) or torque
//!   (revolute, N·m) along the joint axis acting on the child; `tau_friction` is the
//!   generalized friction/damping force with the joint's other passive terms ([`term`]: a
//!   motor's cogging), so that inverse dynamics gives
//!   `RNEA(q, qd, qdd) = tau + tau_friction`. The motor current is `i = tau / K` with the
//!   joint's drive gain `K` (the teaching paper's `τ = K·i`, its eq. 1).
//! * **What a sample holds**: Rapier integrates the motion (symplectic Euler). A sample at `t`
//!   holds Rapier's joint state `(q, q̇)` at `t`; every other column is evaluated from the
//!   continuous-time equations of motion at that state ([`readout`]): prescribed joints'
//!   accelerations from their profiles, the others' from the forward dynamics under the forces
//!   applied over the step from `t`, body kinematics and joint wrenches from the forward
//!   kinematics and the Newton–Euler backward pass. So `RNEA(q, q̇, q̈) = tau + tau_friction` and
//!   every body's Newton–Euler equations hold to rounding at any step, as MuJoCo's sensors do;
//!   the trajectory itself is Rapier's, accurate to the order of its integrator (the manifest's
//!   `checks.rapier` states how far the engine's discrete world is from the readings).

pub mod batch;
pub mod butterworth;
pub mod checks;
pub mod cli;
pub mod cogging;
pub mod convert;
pub mod dataset;
pub mod description;
pub mod drive;
pub mod drive_train;
pub mod dynamics;
pub mod elastic;
pub mod error;
pub mod friction;
pub mod invalid;
pub mod kinematics;
pub mod lerobot_export;
pub mod measurement;
pub mod mjcf;
pub mod model;
pub mod motor;
pub mod noise;
pub mod param;
pub mod payload;
pub mod physical;
pub mod position_servo;
pub mod profile;
pub mod reading;
pub mod readout;
pub mod recording;
pub mod replay;
pub mod residuals;
pub mod rollout;
pub mod rotor;
pub mod run;
pub mod scenario;
pub mod sensor;
pub mod simulation;
pub mod term;
pub mod urdf;
pub mod validity;
pub mod wrench;

pub use error::{Error, Result};

/// The generator's version (this crate's), written into every manifest and part of the
/// cache keys of what is made from its output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Populations of arms, a section of a scenario file ([`scenario::population`]).
pub use scenario::population;

pub use run::{Run, simulate};

/// Standard gravity, m/s², acting along `−z` of the world frame.
pub const GRAVITY: f64 = 9.80665;

/// The gravity vector in the world frame, m/s².
pub fn gravity_vector() -> nalgebra::Vector3<f64> {
    nalgebra::Vector3::new(0.0, 0.0, -GRAVITY)
}
