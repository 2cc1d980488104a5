//! MIM, the MIM paper's model identification method: the Newton–Euler equations of each body,
//! linear in its inertial parameters once the joint wrenches and the body's motion are measured.
//!
//! - [`algorithm`]: the per-run algorithm (its eqs. 15–20) at one instant, stacked body by body
//!   and as one whole-arm system;
//! - [`gls`]: the whole-arm generalized least squares efficient under joint force/torque sensor
//!   noise, and the Cramér–Rao bound it attains;
//! - [`standard`]: the ten standard parameters of every body (centroids off the link axes, full
//!   inertia tensors);
//! - [`encoders`]: MIM on what a robot without link IMUs has (encoders and joint F/T sensors);
//! - [`estimator`]: their bindings to [`crate::estimate::Estimator`].

pub mod algorithm;
pub mod encoders;
pub mod estimator;
pub mod gls;
pub mod standard;

pub use encoders::MimEncoders;
pub(crate) use encoders::encoder_view;
pub use estimator::{SingleInstant, Stacked, Standard, WholeArm, WholeArmGls};
