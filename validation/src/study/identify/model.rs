//! The chosen model as files: `model.urdf`, `model.xml` and `drives.toml`.

use std::path::Path;

use sim::model::Chain;
use sim::replay::DriveTrain;

use crate::estimate::engine::{IdentifiedModel, Loaded};

/// Writes the chosen `model` of the run `run` into `dir` with the joints named `names`:
/// `model.urdf`, `drives.toml`, `model.xml`; returns the names written.
pub(super) fn write(
    dir: &Path,
    model: &IdentifiedModel,
    run: &Loaded,
    names: &[String],
) -> crate::Result<Vec<String>> {
    let drives = model.drives.clone().unwrap_or(DriveTrain {
        min_speed: crate::estimate::idim::MIN_SPEED,
        coupling: None,
        drive: Vec::new(),
        servo: Vec::new(),
    });
    let mut chain = with_drive_terms(&model.chain, &drives);
    chain.name = format!("{} ({} identified)", chain.name, model.method);
    let urdf = sim::urdf::export::named(&chain, Some(names))?;
    put(dir, "model.urdf", &urdf)?;
    let text = format!(
        "# Drive terms identified by {} (armid identify); `sim replay --drives` reads them\n\
         # (sim::replay::DriveTrain). model.xml states what MJCF can of them.\n{}",
        model.method,
        toml::to_string(&drives).map_err(|e| crate::Error::Format {
            path: dir.join("drives.toml"),
            message: e.to_string(),
        })?
    );
    put(dir, "drives.toml", &text)?;
    let transmission: Option<Vec<Vec<f64>>> =
        (run.measurements.stated.transmission.as_ref()).map(|r| {
            (0..r.nrows())
                .map(|m| r.row(m).iter().copied().collect())
                .collect()
        });
    let actuation = sim::mjcf::Actuation {
        drives: &drives,
        transmission: transmission.as_deref(),
    };
    put(
        dir,
        "model.xml",
        &sim::mjcf::with_drives(&chain, Some(names), Some(&actuation)),
    )?;
    Ok(["model.urdf", "model.xml", "drives.toml"]
        .map(String::from)
        .to_vec())
}

/// `chain` with each joint's own terms those of its drive where the drive turns that joint only
/// (viscous → damping, Coulomb → friction as a URDF states it, rotor inertia → armature), and
/// none where the drive is coupled or has no terms: a URDF alone (`<dynamics damping
/// friction>`) then carries what it can of the drives, and `sim replay --drives`, which
/// replaces a file's joint friction by the drive-train file, counts nothing twice.
fn with_drive_terms(chain: &Chain, drives: &DriveTrain) -> Chain {
    let actuation = sim::mjcf::Actuation {
        drives,
        transmission: None,
    };
    let mut out = chain.clone();
    let n = chain.links.len();
    for (j, link) in out.links.iter_mut().enumerate() {
        let [armature, viscous, coulomb] = actuation.joint_terms(j, n).unwrap_or_default();
        link.joint.armature = armature;
        link.joint.damping = viscous;
        link.joint.friction = (coulomb != 0.0).then_some(sim::friction::Friction::CoulombViscous {
            coulomb,
            viscous: 0.0,
            smoothing: sim::urdf::URDF_FRICTION_SMOOTHING,
        });
    }
    out
}

/// Writes `text` to `dir/name`.
fn put(dir: &Path, name: &str, text: &str) -> crate::Result<()> {
    let path = dir.join(name);
    crate::files::write_atomic(&path, text).map_err(crate::Error::io(&path))
}
