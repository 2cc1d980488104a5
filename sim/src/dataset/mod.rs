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

// The format's primitives live in leaf modules below the simulation (a scenario may play back a
// recorded run, and this module's writers read scenarios); this is their one public path.
pub use crate::store::{DatasetError, io};

/// A recorded run: a real robot's joint readings brought in by `validation import`, written as
/// a run directory beside the simulated ones (`joints.parquet`, `manifest.json`, `SHA256SUMS`; no
/// bodies, no truth), and read back.
pub mod recorded {
    pub use crate::recorded::*;
}

/// Directories written whole or not at all.
pub mod atomic {
    pub use crate::store::atomic::*;
}

/// The SHA-256 lists of run and shard files.
pub mod checksum {
    pub use crate::store::checksum::*;
}

/// The column names every writer and reader shares.
pub mod columns {
    pub use crate::store::columns::*;
}

/// The one Parquet reader.
pub mod reader {
    pub use crate::store::reader::*;
}

/// Temporary directories removed on drop.
pub mod temporary {
    pub use crate::store::temporary::*;
}

pub use manifest::Manifest;
pub use writer::{write_files, write_run, write_run_keeping_invalid};
