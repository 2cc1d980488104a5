//! A robot description file, told apart by its extension: MJCF (`.xml`, [`crate::mjcf`]) or
//! URDF (anything else, [`crate::urdf`]). Every place that takes a robot's file (a recording's
//! import, an estimator's prior, the export commands) reads it here, so each takes both.

use std::path::Path;

use crate::model::Chain;
use crate::urdf::{Locks, UrdfError};

/// The chain of the file at `path` with the joints of `locks` held, and the file's names of the
/// chain's moving joints in chain order. An MJCF file's drive tendons and motors
/// ([`crate::mjcf::Mjcf::drives`]) are not part of the chain: read them with [`crate::mjcf::read`].
pub fn read_named(path: &Path, locks: &Locks) -> Result<(Chain, Vec<String>), UrdfError> {
    if crate::mjcf::is_mjcf(&path.display().to_string()) {
        let read = crate::mjcf::read(path, locks)?;
        Ok((read.chain, read.joints))
    } else {
        crate::urdf::read_named(path, locks)
    }
}

/// The file's joints held at a position with `locks`, by name: those locked and, in a URDF,
/// the mimic joints of a held leader (MJCF couples moving joints by equalities, which hold
/// nothing more). A recording's columns of these joints are not read.
pub fn held(path: &Path, locks: &Locks) -> Result<Vec<String>, UrdfError> {
    if crate::mjcf::is_mjcf(&path.display().to_string()) {
        return Ok(locks.keys().cloned().collect());
    }
    let file = path.display().to_string();
    let robot = urdf_rs::read_file(path).map_err(|source| UrdfError::Parse {
        file: file.clone(),
        source,
    })?;
    let held = crate::urdf::lock::held(&robot, locks).map_err(|(element, problem)| {
        UrdfError::Unsupported {
            file,
            element,
            problem,
        }
    })?;
    let mut names: Vec<String> = held.into_keys().collect();
    names.sort();
    Ok(names)
}

/// The chain of the file at `path`, no joint locked.
pub fn read(path: &Path) -> Result<Chain, UrdfError> {
    read_named(path, &Locks::new()).map(|(chain, _)| chain)
}
