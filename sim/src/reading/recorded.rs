//! A recorded run directory read: the joint series an estimator may read, and no truth.
//!
//! The signal chain's end transient ([`super::Chain::settling`] samples at each end) is
//! left out here, so every estimator sees only samples the filter has settled on.

use std::path::{Path, PathBuf};

use super::{JointSeries, Measurements, Stated};
use crate::dataset::DatasetError;
use crate::dataset::columns::JOINTS_FILE;
use crate::dataset::recorded::{JointNames, RecordedManifest, matrix};

/// A recorded run, read.
#[derive(Clone, Debug)]
pub struct RecordedRun {
    /// Where it was read from.
    pub dir: PathBuf,
    /// Its manifest (the recording, URDF, mapping and signal chain).
    pub manifest: RecordedManifest,
    /// The joint series past the filter's end transients; no body series.
    pub measurements: Measurements,
}

impl RecordedRun {
    /// The URDF names of the joints, in chain order.
    pub fn joint_names(&self) -> Vec<String> {
        self.manifest
            .joints
            .iter()
            .map(|j| j.name.clone())
            .collect()
    }
}

/// Whether `dir` holds a recorded run (its manifest says `"kind": "recorded"`).
pub fn is_recorded(dir: &Path) -> Result<bool, DatasetError> {
    Ok(RecordedManifest::read(dir)?.is_some())
}

/// Reads the recorded run in `dir`: its files checked against `SHA256SUMS` first.
pub fn read_recorded(dir: &Path) -> Result<RecordedRun, DatasetError> {
    // Checksums first, then the joint table in the writer's layout, as many joints and samples
    // as the manifest says (sim's reader).
    let (_, table) = crate::dataset::recorded::read(dir)?;
    let manifest_path = dir.join(crate::dataset::columns::MANIFEST_FILE);
    let manifest = RecordedManifest::read(dir)?.ok_or_else(|| DatasetError::Format {
        path: manifest_path.clone(),
        message: "not a recorded run (expected \"kind\": \"recorded\")".into(),
    })?;
    let path = dir.join(JOINTS_FILE);
    let t = table.t;
    let joints: Vec<JointSeries> = (table.joints.into_iter())
        .map(|j| JointSeries {
            id: j.id,
            kind: j.kind,
            q: j.q,
            qd: j.qd,
            qdd: j.qdd,
            tau: j.tau,
            q_cmd: j.q_cmd,
            gain: 1.0,
            ..JointSeries::default()
        })
        .collect();
    let inconsistent = |expected: String| DatasetError::Column {
        path: path.clone(),
        column: "joint".into(),
        expected,
    };
    let settle = manifest.signal.settling;
    if t.len() <= 2 * settle + 5 {
        return Err(inconsistent(format!(
            "more than {} samples: the filter's end transients take {settle} at each end",
            2 * settle + 5
        )));
    }
    // The drive's torque as measured is `tau` (currents became torques at import): it stands as
    // the current of a unit gain, which the identifiers read as `K·i`.
    let mut joints = joints;
    for j in &mut joints {
        j.current = j.tau.clone();
    }
    let all = Measurements {
        run_id: manifest.run_id.clone(),
        t,
        bodies: Vec::new(),
        joints,
        geometry: manifest.model.kinematics_only(),
        stated: Stated {
            real_drives: true,
            transmission: transmission(&manifest, &manifest_path)?,
            ..Stated::default()
        },
    };
    let measurements = all.window(settle, all.t.len() - settle);
    Ok(RecordedRun {
        dir: dir.to_owned(),
        manifest,
        measurements,
    })
}

/// The transmission matrix of the manifest's configuration, where it has one.
fn transmission(
    manifest: &RecordedManifest,
    path: &Path,
) -> Result<Option<nalgebra::DMatrix<f64>>, DatasetError> {
    let Some(t) = &manifest.config.transmission else {
        return Ok(None);
    };
    let names = JointNames {
        names: manifest.joints.iter().map(|j| j.name.clone()).collect(),
    };
    matrix(t, &names, path)
        .map(Some)
        .map_err(|e| DatasetError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        })
}
