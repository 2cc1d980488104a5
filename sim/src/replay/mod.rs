//! `sim replay`: Rapier plays a recorded run's joint trajectory on a model, and the torque the
//! model needs is compared with the torque the robot measured — the sim-to-real gap of that
//! model, the same figure `validation estimate` reports as `torque_nrms` for an estimate.
//!
//! The replay is an ordinary scenario ([`scenario`]): the model (the maker's URDF or one
//! `validation estimate --urdf-out` wrote), the run's locked joints held, every joint
//! prescribed by [`crate::profile::RecordedMotion`] (the signal chain's filtered `q, q̇, q̈`),
//! sampled on the recording's grid. Its run directory is written like any other, with the
//! scenario text and the residual ([`crate::dataset::manifest::Replayed`]) in its manifest.
//!
//! **Friction.** Without a drive-train file the model's own joint friction applies (a URDF's
//! `<dynamics>`). With one ([`DriveTrain`]), the drive terms it states (Coulomb, viscous,
//! offset, armature, through a coupled transmission) stand for the friction: the joints'
//! URDF friction is switched off (each joint states zero `coulomb_viscous` friction in the
//! scenario), the run's `tau` holds the links' torque, and the terms are added to it where
//! it is compared with the recording. They are not simulated as forces because every joint is
//! prescribed: a prescribed joint's torque is read, not integrated, so adding them after the
//! readout is the same and keeps the run's `RNEA = tau + tau_friction` contract to rounding.
//!
//! **Residual** ([`residual`]): over the recording's settled samples (those its zero-phase
//! filter has settled on, as the estimators read them), or their last part with `--holdout F`
//! (the cut at the same time as `validation estimate --holdout F`).

mod command;
mod error;
pub mod residual;
mod scenario;

pub use crate::drive_train::{DriveTerms, DriveTrain, DriveTrainError};
pub use command::{Options, replay};
pub use error::ReplayError;
pub use scenario::scenario;
