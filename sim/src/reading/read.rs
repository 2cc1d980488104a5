//! A simulated run directory read whole ([`read_run`]): its four files checked against their
//! checksums and the manifest, assembled into a [`Run`], refused where the manifest says the run
//! is invalid.

use std::path::{Path, PathBuf};

use super::tables::{read_bodies, read_joints, read_manifest, read_truth};
use crate::dataset::DatasetError;
use crate::dataset::Manifest;
use crate::dataset::columns::{BODIES_FILE, JOINTS_FILE, MANIFEST_FILE, TRUTH_FILE};

use super::series::{JointSeries, Measurements, Run, Stated};

/// Reads a run directory.
/// Its files are first checked against its `SHA256SUMS`, where it has one
/// ([`crate::dataset::checksum`]).
pub fn read_run(dir: &Path) -> Result<Run, DatasetError> {
    let list = dir.join(crate::dataset::checksum::CHECKSUMS_FILE);
    if list.exists() {
        crate::dataset::checksum::verify(&list, dir, &crate::dataset::columns::RUN_FILES)?;
    }
    let files = [BODIES_FILE, JOINTS_FILE, TRUTH_FILE, MANIFEST_FILE].map(|f| dir.join(f));
    read_files(dir, &files)
}

/// Reads a run from its four files `[bodies, joints, truth, manifest]`; `dir` is recorded as
/// where it came from.
fn read_files(dir: &Path, files: &[PathBuf; 4]) -> Result<Run, DatasetError> {
    let [bodies_path, joints_path, truth_path, manifest_path] = files;
    let manifest = read_manifest(manifest_path)?;
    refuse_invalid(&manifest, manifest_path)?;
    let [bodies, joints, truth] = [bodies_path, joints_path, truth_path]
        .map(|p| crate::dataset::reader::ParquetColumns::read(p));
    assemble(dir, [bodies?, joints?, truth?], manifest, manifest_path)
}

/// A run from its three tables' columns and its manifest (read from `manifest_path`, which
/// errors name); `dir` is recorded as where it came from.
pub(crate) fn assemble(
    dir: &Path,
    [bt, jt, tt]: [crate::dataset::reader::ParquetColumns; 3],
    manifest: Manifest,
    manifest_path: &Path,
) -> Result<Run, DatasetError> {
    let (run_id, t, bodies) = read_bodies(&bt)?;
    let mut joints = read_joints(&jt, &bt.path, t.len())?;
    let truth = read_truth(&tt)?;
    let stated = apply_design(&mut joints, &manifest, manifest_path)?;
    let clean = Measurements {
        run_id,
        t,
        bodies,
        joints,
        geometry: manifest.model.kinematics_only(),
        stated,
    };
    Ok(Run {
        dir: dir.to_owned(),
        measurements: clean.sensed(),
        clean: clean.ideal(),
        manifest,
        truth,
    })
}

/// `Err` for a run whose manifest names a failed validity gate ([`crate::validity`]): estimators,
/// studies and sweeps never read one as data.
pub(crate) fn refuse_invalid(manifest: &Manifest, origin: &Path) -> Result<(), DatasetError> {
    match &manifest.invalid {
        Some(invalid) => Err(DatasetError::MarkedInvalid(
            Box::new(invalid.clone()),
            origin.to_owned(),
        )),
        None => Ok(()),
    }
}

/// Sets what each joint's drive was told (gain, reference, torque signal) from the manifest's
/// scenario: the experiment's design, known to the experimenter; returns the stated
/// measurement model.
pub(crate) fn apply_design(
    joints: &mut [JointSeries],
    manifest: &Manifest,
    manifest_path: &Path,
) -> Result<Stated, DatasetError> {
    let scenario = crate::scenario::Scenario::from_toml_with_model(
        &manifest.scenario,
        &format!("{} (scenario)", manifest_path.display()),
        &manifest.model,
    )
    .map_err(|e| DatasetError::Format {
        path: manifest_path.to_owned(),
        message: e.to_string(),
    })?;
    for (j, d) in joints.iter_mut().zip(&scenario.drives) {
        j.gain = d.gain;
        j.reference = match &d.drive {
            crate::drive::Drive::Motion(p)
            | crate::drive::Drive::Servo(crate::drive::Servo { reference: p, .. }) => {
                Some(p.clone())
            }
            _ => None,
        };
        j.control = match &d.drive {
            crate::drive::Drive::Servo(s) => Some(s.control),
            _ => None,
        };
        j.excitation = match &d.drive {
            crate::drive::Drive::Torque(s) => Some(s.clone()),
            _ => None,
        };
    }
    Ok(Stated {
        real_drives: false,
        transmission: None,
        sensors: scenario.file.sensor,
        noise: scenario.file.noise,
    })
}

/// Writes a simulated run to `dir` (replacing it) and reads it back, as every consumer of the
/// project's datasets sees it.
pub fn write_and_read(run: &crate::Run, dir: &Path) -> Result<Run, DatasetError> {
    crate::dataset::write_run(dir, &run.recording, &run.manifest, true)?;
    read_run(dir)
}
