//! The manifest of a recorded run: where its data came from and every choice made on the way
//! (`validation import` makes it, [`crate::dataset::recorded`] writes it).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::chain::Chain;
use super::config::Config;

/// A file the run was made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Its path as given.
    pub path: String,
    /// Its SHA-256 (hex).
    pub sha256: String,
}

impl SourceFile {
    /// `path` as given, with the digest of `files`' bytes one after another (a ROS 2 bag's
    /// directory: its storage files in reading order).
    pub fn of_all(
        path: &Path,
        files: &[std::path::PathBuf],
    ) -> Result<Self, crate::dataset::DatasetError> {
        let files: Vec<&Path> = files.iter().map(|f| f.as_path()).collect();
        Ok(SourceFile {
            path: path.display().to_string(),
            sha256: crate::dataset::checksum::digest_all(&files)?,
        })
    }

    /// The file at `path` with its digest.
    pub fn of(path: &Path) -> Result<Self, crate::dataset::DatasetError> {
        Ok(SourceFile {
            path: path.display().to_string(),
            sha256: crate::dataset::checksum::digest(path)?,
        })
    }
}

/// The columns found for one joint (column names).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JointColumns {
    /// Coordinate: `q_<j>` or `qm_<j>`.
    pub position: String,
    /// `qd_<j>`, where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// `qdd_<j>`, where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceleration: Option<String>,
    /// Torque: `tau_<j>`, `i_<j>` or `taum_<j>`; none on a servo joint that logs its
    /// commands only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque: Option<String>,
    /// Commanded position: `qcmd_<j>`, where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// One joint of the run: its URDF name, the columns it was read from and what was applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointSource {
    /// Dataset joint id (1-based along the chain).
    pub id: u8,
    /// URDF joint name.
    pub name: String,
    /// The recording's columns.
    pub columns: JointColumns,
    /// Drive gain `K` (N·m/A or N/A) applied to a current column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain: Option<f64>,
    /// Offset added to the coordinate (rad or m).
    pub offset: f64,
}

/// `manifest.json` of a recorded run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedManifest {
    /// Always [`crate::dataset::recorded::RECORDED_KIND`].
    pub kind: String,
    /// Run id.
    pub run_id: String,
    /// The recording.
    pub recording: SourceFile,
    /// Rows of the recording.
    pub rows: usize,
    /// Samples of the run (the uniform grid).
    pub samples: usize,
    /// The robot description.
    pub urdf: SourceFile,
    /// The configuration file, where one was given, and its content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<SourceFile>,
    /// The configuration applied (gains, transmission, offsets, locks).
    pub config: Config,
    /// The sample rate given for a recording without a time column (Hz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// The JointState topics read from a ROS 2 bag (none for a table).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// The URDF's chain as read (the maker's parameters: a prior, not a truth).
    pub model: crate::model::Chain,
    /// Per joint, in chain order.
    pub joints: Vec<JointSource>,
    /// The signal chain as applied.
    pub signal: Chain,
    /// Crate versions of the importer.
    pub engine: std::collections::BTreeMap<String, String>,
}

impl RecordedManifest {
    /// Reads `manifest.json` of the run directory `dir`, if it is a recorded run's (`None` for a
    /// simulated run's).
    pub fn read(dir: &Path) -> Result<Option<Self>, crate::dataset::DatasetError> {
        let path = dir.join(crate::dataset::columns::MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(crate::dataset::io(&path))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| crate::dataset::DatasetError::Format {
                path: path.clone(),
                message: e.to_string(),
            })?;
        if value.get("kind").and_then(|k| k.as_str())
            != Some(crate::dataset::recorded::RECORDED_KIND)
        {
            return Ok(None);
        }
        serde_json::from_value(value)
            .map(Some)
            .map_err(|e| crate::dataset::DatasetError::Format {
                path,
                message: format!("a recorded run's manifest: {e}"),
            })
    }
}
