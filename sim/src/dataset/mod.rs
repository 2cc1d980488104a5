//! The run directory of the dataset contract (the guide's `book/src/dataset.md`):
//! `bodies.parquet`, `joints.parquet`, `truth.parquet` and `manifest.json`, written atomically,
//! and (an extension) `SHA256SUMS`, the files' SHA-256 digests that the readers verify
//! ([`checksum`]).
//!
//! Column names are constants of [`columns`], shared with the readers ([`crate::reading`]).
//! Extensions beyond the contract: `o_x..z` in `bodies.parquet` (the position of the joint
//! point `O_i`, world, about which `n` is taken), and the geometry and
//! zero-configuration and `joint_damping` columns of `truth.parquet`, and its full-inertia
//! columns (body frame, centroid in the body frame, world tensor, the link frame's ten standard
//! parameters; `writer::full_inertia` states them). Measured columns
//! (`q_meas`, `f_x_meas`, …) are written only for the columns that the scenario's `[[noise]]`
//! and `[[sensor]]` entries measure ([`crate::measurement`]), in `joints.parquet` for joint
//! columns and in `bodies.parquet` for body groups (all three components of a group; an IMU adds
//! `imu_sf_1..3_meas`, the accelerometer's specific force at its mount, body frame); `i`
//! in `joints.parquet` is the motor current `tau / K` (the manifest's `motor_gains` hold `K`);
//! `bristle_z` in `joints.parquet`, where some joint has LuGre friction, is its bristle
//! deflection (rad or m; 0 on the joints without it, [`crate::friction::Lugre`]); `q_cmd` in
//! `joints.parquet`, where some joint is a servo, the position commanded at each sample
//! ([`crate::recording::JointRecord::q_cmd`]).
//!
//! One module holds the run-directory format whole: the on-disk primitives (Parquet tables
//! written, `table`, and read, [`reader`]; the column names, [`columns`]; SHA-256 lists,
//! [`checksum`]; directories written whole or not at all, [`atomic`], [`temporary`]; the
//! error, [`DatasetError`]), the simulated run's writer and manifest ([`writer`],
//! [`manifest`], with what it records of the run's making, [`provenance`]), the recorded run
//! ([`recorded`]), populations ([`population`]) and their verification ([`verify`]). It sits
//! below the scenario, which plays recorded runs back.

pub mod manifest;
pub mod motion_family;
pub mod population;
pub mod provenance;
pub mod verify;
pub mod writer;

pub mod atomic;
pub mod checksum;
pub mod columns;
mod error;
pub mod lerobot;
pub mod reader;
pub mod recorded;
pub(crate) mod table;
pub mod temporary;

pub use error::{DatasetError, io};
pub use manifest::Manifest;
pub use writer::{write_files, write_run, write_run_keeping_invalid};
