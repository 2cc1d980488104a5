//! Reading a recorded run back: its joint table and the part of its manifest the simulator
//! needs to replay it ([`Header`]). The rest of the manifest (the column mapping, the
//! configuration) belongs to the importer, which reads it whole.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::{RECORDED_FILES, RECORDED_KIND, RecordedJoint, RecordedTable};
use crate::dataset::checksum::{CHECKSUMS_FILE, verify};
use crate::dataset::columns::{JOINTS_FILE, MANIFEST_FILE, Q_CMD};
use crate::dataset::reader::ParquetColumns;
use crate::dataset::{DatasetError, io};

/// A recorded run's manifest as far as the simulator reads it (unknown fields are the
/// importer's and are ignored here).
#[derive(Clone, Debug, Deserialize)]
pub struct Header {
    /// [`RECORDED_KIND`].
    pub kind: String,
    /// Run id.
    pub run_id: String,
    /// Samples on the grid.
    pub samples: usize,
    /// The robot description the run was imported with.
    pub urdf: Source,
    /// The import configuration's joints held fixed (`lock`, URDF names → rad or m).
    pub config: LockedJoints,
    /// Per joint, in chain order: dataset id and URDF name.
    pub joints: Vec<NamedJoint>,
    /// The signal chain: grid period and the end samples its filter has not settled on.
    pub signal: Settling,
    /// The robot description's chain as read at import, as far as a replay needs it.
    #[serde(default)]
    pub model: ImportedModel,
}

/// The imported chain's gravity: a replay simulates the recorded arm under it, whatever model
/// it plays.
#[derive(Clone, Debug, Deserialize)]
pub struct ImportedModel {
    /// [`crate::model::Chain::gravity`] (m/s², world frame).
    #[serde(default = "standard_gravity")]
    pub gravity: [f64; 3],
}

impl Default for ImportedModel {
    fn default() -> Self {
        ImportedModel {
            gravity: standard_gravity(),
        }
    }
}

fn standard_gravity() -> [f64; 3] {
    crate::model::STANDARD_GRAVITY
}

/// A source file as the manifest names it.
#[derive(Clone, Debug, Deserialize)]
pub struct Source {
    /// Path as given at import.
    pub path: String,
    /// SHA-256 (hex).
    pub sha256: String,
}

/// The import configuration's locks.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct LockedJoints {
    /// URDF joint name → held coordinate.
    #[serde(default)]
    pub lock: BTreeMap<String, f64>,
}

/// A joint of the run.
#[derive(Clone, Debug, Deserialize)]
pub struct NamedJoint {
    /// Dataset joint id (1-based along the chain).
    pub id: u8,
    /// URDF joint name.
    pub name: String,
}

/// The signal chain's grid and end transient.
#[derive(Clone, Debug, Deserialize)]
pub struct Settling {
    /// Grid period (s).
    pub period: f64,
    /// Samples at each end the zero-phase filter has not settled on.
    pub settling: usize,
}

/// Reads the recorded run in `dir`: checksums verified, then its manifest header and its joint
/// table (rows sample-major, the joints of a sample in chain order, as the writer writes them).
pub fn read(dir: &Path) -> Result<(Header, RecordedTable), DatasetError> {
    verify(&dir.join(CHECKSUMS_FILE), dir, &RECORDED_FILES)?;
    let path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let header: Header = serde_json::from_str(&text).map_err(|e| DatasetError::Format {
        path: path.clone(),
        message: format!("expected a recorded run's manifest: {e}"),
    })?;
    if header.kind != RECORDED_KIND {
        return Err(DatasetError::Format {
            path,
            message: format!(
                "expected \"kind\": \"{RECORDED_KIND}\", got {:?}",
                header.kind
            ),
        });
    }
    let table = read_joints(&dir.join(JOINTS_FILE), &header)?;
    Ok((header, table))
}

fn read_joints(path: &Path, header: &Header) -> Result<RecordedTable, DatasetError> {
    let table = ParquetColumns::read(path)?;
    let ids = table.u8("joint")?;
    let kinds = table.utf8("kind")?;
    let [t, q, qd, qdd, tau, q_recorded] =
        ["t", "q", "qd", "qdd", "tau", "q_recorded"].map(|c| table.f64(c));
    let (t, q, qd, qdd, tau, q_recorded) = (t?, q?, qd?, qdd?, tau?, q_recorded?);
    let q_cmd = match table.has(Q_CMD) {
        true => Some(table.f64(Q_CMD)?),
        false => None,
    };
    for (name, values) in [("t", &t), ("q", &q), ("qd", &qd), ("qdd", &qdd)] {
        if let Some(row) = values.iter().position(|v| !v.is_finite()) {
            return Err(DatasetError::Column {
                path: path.to_owned(),
                column: name.into(),
                expected: format!("finite values (row {row} is {})", values[row]),
            });
        }
    }
    let nj = header.joints.len();
    let rows = ids.len();
    let layout_ok = nj > 0
        && rows == nj * header.samples
        && (0..rows).all(|r| ids[r] == header.joints[r % nj].id);
    if !layout_ok {
        return Err(DatasetError::Column {
            path: path.to_owned(),
            column: "joint".into(),
            expected: format!(
                "rows sample by sample, each sample's joints in the manifest's order {:?}",
                header.joints.iter().map(|j| j.id).collect::<Vec<_>>()
            ),
        });
    }
    let pick =
        |v: &[f64], j: usize| -> Vec<f64> { v.iter().skip(j).step_by(nj).copied().collect() };
    let joints = (0..nj)
        .map(|j| RecordedJoint {
            id: header.joints[j].id,
            kind: kinds[j].clone(),
            q: pick(&q, j),
            qd: pick(&qd, j),
            qdd: pick(&qdd, j),
            tau: pick(&tau, j),
            q_recorded: pick(&q_recorded, j),
            q_cmd: (q_cmd.as_ref().map(|c| pick(c, j))).filter(|c| !c.iter().all(|v| v.is_nan())),
        })
        .collect::<Vec<_>>();
    for j in &joints {
        check_drive(path, j)?;
    }
    Ok(RecordedTable {
        run_id: header.run_id.clone(),
        t: pick(&t, 0),
        joints,
    })
}

/// A joint's torque is finite at every sample, or, on a servo joint that logs its commands only,
/// NaN at every sample; its commands, where it has them, are finite.
fn check_drive(path: &Path, j: &RecordedJoint) -> Result<(), DatasetError> {
    let column = |column: &str, expected: String| DatasetError::Column {
        path: path.to_owned(),
        column: column.into(),
        expected: format!("joint {}: {expected}", j.id),
    };
    if let Some(c) = &j.q_cmd
        && let Some(k) = c.iter().position(|v| !v.is_finite())
    {
        return Err(column(
            "q_cmd",
            format!("finite commands (sample {k} is {})", c[k]),
        ));
    }
    let commanded_only = j.q_cmd.is_some() && j.tau.iter().all(|v| v.is_nan());
    match j.tau.iter().position(|v| !v.is_finite()) {
        Some(k) if !commanded_only => Err(column(
            "tau",
            format!(
                "finite values, or NaN throughout on a joint with commands (sample {k} is {})",
                j.tau[k]
            ),
        )),
        _ => Ok(()),
    }
}
