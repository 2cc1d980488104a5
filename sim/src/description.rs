//! A robot description file, told apart by its extension: MJCF (`.xml`, [`crate::mjcf`]) or
//! URDF (anything else, [`crate::urdf`]). Every place that takes a robot's file (a recording's
//! import, an estimator's prior, the export commands) reads it here, so each takes both.

use std::path::Path;

use crate::model::Chain;
use crate::urdf::{Locks, UrdfError};

/// The chain of the file at `path` with the joints of `locks` held, and the file's names of the
/// chain's moving joints in chain order.
pub fn read_named(path: &Path, locks: &Locks) -> Result<(Chain, Vec<String>), UrdfError> {
    if crate::mjcf::is_mjcf(&path.display().to_string()) {
        let read = crate::mjcf::read(path, locks)?;
        Ok((read.chain, read.joints))
    } else {
        crate::urdf::read_named(path, locks)
    }
}

/// The chain of the file at `path`, no joint locked.
pub fn read(path: &Path) -> Result<Chain, UrdfError> {
    read_named(path, &Locks::new()).map(|(chain, _)| chain)
}
