//! What URDF's import ([`super::import`]) and export ([`super::export`]) share: the error a file
//! gets, and the two conventions by which what one writes the other reads back.

/// A robot description (URDF, or MJCF through `crate::mjcf`) that cannot be used as a serial
/// chain.
#[derive(Debug, thiserror::Error)]
pub enum UrdfError {
    /// The file cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The XML is not a URDF robot.
    #[error("{file}: not a readable URDF robot: {source}")]
    Parse {
        /// The file.
        file: String,
        /// The parser's error.
        source: urdf_rs::UrdfError,
    },
    /// An element the project does not support, or an inconsistent one.
    #[error("{file}: {element}: {problem}")]
    Unsupported {
        /// The file.
        file: String,
        /// The element, e.g. `joint "elbow"`.
        element: String,
        /// What is wrong and what is expected.
        problem: String,
    },
}

/// The sign smoothing `ε` (rad/s or m/s) given to a URDF's `<dynamics friction>`, which URDF
/// states as a Coulomb level only: `F_c tanh(q̇/ε)` ([`crate::friction::Friction::CoulombViscous`]).
pub const URDF_FRICTION_SMOOTHING: f64 = 0.01;

/// What the exporter writes for a bound the model does not have (URDF requires `effort` and
/// `velocity`, and the range of a prismatic joint); the import reads a prismatic range this wide
/// as no limits.
pub const UNBOUNDED: f64 = 1e9;

/// An element of the file and what is wrong with it.
pub(super) type Problem = (String, String);
