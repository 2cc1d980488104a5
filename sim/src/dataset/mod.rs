//! The run directory of the dataset contract (the guide's `book/src/dataset.md`):
//! `bodies.parquet`, `joints.parquet`, `truth.parquet` and `manifest.json`, written atomically,
//! and (an extension) `SHA256SUMS`, the files' SHA-256 digests that the readers verify
//! ([`checksum`]).
//!
//! Column names are constants of [`columns`], shared with the readers in `validation`.
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
//! deflection (rad or m; 0 on the joints without it, [`crate::friction::Lugre`]).

pub mod manifest;
pub mod population;
pub mod verify;
pub mod writer;

pub use crate::recorded;
pub use crate::store::{checksum, columns, temporary};

pub use manifest::Manifest;
pub use writer::{DatasetError, io, write_files, write_run, write_run_keeping_invalid};
