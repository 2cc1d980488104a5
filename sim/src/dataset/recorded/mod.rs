//! A recorded run: a real robot's joint readings brought in by `validation import`, written as a
//! run directory beside the simulated ones.
//!
//! It holds `joints.parquet`, `manifest.json` and `SHA256SUMS`, and no `bodies.parquet` or
//! `truth.parquet`: a recording has no body readings and no ground truth. `joints.parquet` has
//! the contract's `run_id, sample, t, joint, kind, q, qd, qdd, tau` on a uniform time grid, with
//! `q, qd, qdd` the signal chain's output (filtered, rates formed where not recorded) and `tau`
//! the torque as measured (resampled, never filtered), and `q_recorded`, the coordinate as
//! recorded (resampled, not filtered), and `q_cmd`, the commanded position, where the log has
//! commands (a servo arm's; NaN on a joint without). It has no `tau_friction`: no robot measures its friction.
//! The manifest (`"kind": "recorded"`) names the source file and its SHA-256, the URDF, the
//! column mapping, the transmission and every choice of the signal chain ([`RecordedManifest`];
//! the importer, `validation::import`, fills it). The recording's configuration, which the
//! importer applies, is [`Config`]; the chain's record [`Chain`]. The run read for estimation
//! is `crate::reading::recorded`.

use std::path::Path;

mod chain;
mod config;
mod lerobot;
mod manifest;
mod read;

pub use chain::{Chain, Lowpass, SpectrumChoice};
pub use config::{Config, ConfigError, Coupling, JointNames, Transmission, matrix};
pub use lerobot::{LeRobotReading, LeRobotUnits};
pub use manifest::{JointColumns, JointSource, RecordedManifest, SourceFile};
pub use read::{Header, NamedJoint, read};

use parquet::file::metadata::KeyValue;

use crate::dataset::atomic::write_dir;
use crate::dataset::checksum::CHECKSUMS_FILE;
use crate::dataset::columns::{JOINTS_FILE, MANIFEST_FILE, Q_CMD};
use crate::dataset::table::Table;
use crate::dataset::{DatasetError, io};

/// The files of a recorded run, manifest last.
pub(crate) const RECORDED_FILES: [&str; 2] = [JOINTS_FILE, MANIFEST_FILE];

/// The value of the manifest's `kind` for a recorded run.
pub const RECORDED_KIND: &str = "recorded";

/// One joint's series on the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedJoint {
    /// Dataset joint id (`i` = `O_i`, 1-based along the chain).
    pub id: u8,
    /// `revolute` | `prismatic`.
    pub kind: String,
    /// Coordinate after the signal chain (rad or m).
    pub q: Vec<f64>,
    /// Its rate (rad/s or m/s).
    pub qd: Vec<f64>,
    /// Its acceleration (rad/s² or m/s²).
    pub qdd: Vec<f64>,
    /// Actuator torque or force as measured (N·m or N), resampled, not filtered.
    pub tau: Vec<f64>,
    /// Coordinate as recorded (resampled, not filtered).
    pub q_recorded: Vec<f64>,
    /// The commanded position as logged (rad or m; resampled by holding the command that was
    /// in force at each grid time), where the log has commands.
    pub q_cmd: Option<Vec<f64>>,
}

/// A recorded run's joint table.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedTable {
    /// Run id.
    pub run_id: String,
    /// Grid times (s).
    pub t: Vec<f64>,
    /// Per joint, in chain order.
    pub joints: Vec<RecordedJoint>,
}

impl RecordedTable {
    fn table(&self) -> Table {
        let (n, nj) = (self.t.len(), self.joints.len());
        let rows = n * nj;
        let mut t = Table::new();
        t.utf8("run_id", vec![self.run_id.clone(); rows]);
        t.u32("sample", (0..rows).map(|r| (r / nj) as u32).collect());
        t.f64("t", (0..rows).map(|r| self.t[r / nj]).collect());
        t.u8("joint", (0..rows).map(|r| self.joints[r % nj].id).collect());
        t.utf8(
            "kind",
            (0..rows)
                .map(|r| self.joints[r % nj].kind.clone())
                .collect(),
        );
        let column = |f: fn(&RecordedJoint) -> &Vec<f64>| -> Vec<f64> {
            (0..rows).map(|r| f(&self.joints[r % nj])[r / nj]).collect()
        };
        t.f64("q", column(|j| &j.q));
        t.f64("qd", column(|j| &j.qd));
        t.f64("qdd", column(|j| &j.qdd));
        t.f64("tau", column(|j| &j.tau));
        t.f64("q_recorded", column(|j| &j.q_recorded));
        if self.joints.iter().any(|j| j.q_cmd.is_some()) {
            let command = |r: usize| {
                let joint = &self.joints[r % nj];
                joint.q_cmd.as_ref().map_or(f64::NAN, |c| c[r / nj])
            };
            t.f64(Q_CMD, (0..rows).map(command).collect());
        }
        t
    }
}

/// Writes the recorded run directory `out` (whole or not at all; module docs) from its joint
/// table and its manifest's JSON text. With `force`, an existing `out` is replaced.
pub fn write_recorded(
    out: &Path,
    table: &RecordedTable,
    manifest_json: &str,
    force: bool,
) -> Result<(), DatasetError> {
    write_dir(out, force, |dir| {
        let meta = vec![KeyValue::new("run_id".to_string(), table.run_id.clone())];
        table.table().write(&dir.join(JOINTS_FILE), meta)?;
        let path = dir.join(MANIFEST_FILE);
        std::fs::write(&path, format!("{}\n", manifest_json.trim_end())).map_err(io(&path))?;
        crate::dataset::checksum::write(&dir.join(CHECKSUMS_FILE), dir, &RECORDED_FILES)
    })
}
