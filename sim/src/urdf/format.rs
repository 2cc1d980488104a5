//! What URDF's import ([`super::import`]) and export ([`super::export`]) share: the error a file
//! gets, and the conventions by which what one writes the other reads back.

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

/// URDF's roll, pitch, yaw of `r = Rz(yaw) Ry(pitch) Rx(roll)`, to rounding at every pitch:
/// yaw from `r`'s first column (any yaw at ±90°, where that column is along z: 0 there), then
/// pitch and roll from `Rz(−yaw) r = Ry(pitch) Rx(roll)`, whose second row `(·, cos roll,
/// −sin roll)` holds the roll whatever the pitch (the usual `asin` of the corner, and taking
/// roll from the third row, lose half the digits near ±90°, where MJCF files often turn a
/// frame).
pub fn rpy(r: &nalgebra::Rotation3<f64>) -> [f64; 3] {
    let m = r.matrix();
    let yaw = m[(1, 0)].atan2(m[(0, 0)]);
    let (s, c) = yaw.sin_cos();
    let cos_pitch = c * m[(0, 0)] + s * m[(1, 0)];
    let pitch = (-m[(2, 0)]).atan2(cos_pitch);
    let (cos_roll, minus_sin_roll) = (c * m[(1, 1)] - s * m[(0, 1)], c * m[(1, 2)] - s * m[(0, 2)]);
    [(-minus_sin_roll).atan2(cos_roll), pitch, yaw]
}

#[cfg(test)]
mod tests {
    use nalgebra::{Rotation3, UnitQuaternion, Vector3};

    /// The import's `Rz(yaw) Ry(pitch) Rx(roll)` of [`super::rpy`] is the rotation again to
    /// rounding, at every pitch up to ±90° (where nalgebra's `euler_angles`, which the URDF
    /// export used, loses half the digits: 1e-8).
    #[test]
    fn rpy_reads_back_to_rounding_up_to_a_quarter_turn() {
        // The largest entry of `Rz(c) Ry(b) Rx(a) − r`.
        let off = |[a, b, c]: [f64; 3], r: &Rotation3<f64>| {
            (Rotation3::from_euler_angles(a, b, c).matrix() - r.matrix())
                .abs()
                .max()
        };
        let (mut ours, mut nalgebras) = (0.0f64, 0.0f64);
        for (k, off_quarter) in [1e-2, 1e-5, 1e-7, 1e-8, 1e-9, 1e-10, 1e-12, 0.0]
            .iter()
            .enumerate()
        {
            for sign in [1.0, -1.0] {
                let pitch = sign * (std::f64::consts::FRAC_PI_2 - off_quarter);
                let roll = 0.3 + 0.7 * k as f64;
                let r = Rotation3::from_euler_angles(roll, pitch, -1.1 + 0.4 * k as f64);
                ours = ours.max(off(super::rpy(&r), &r));
                let (a, b, c) = r.euler_angles();
                nalgebras = nalgebras.max(off([a, b, c], &r));
            }
        }
        // A turned body frame of a real model (unit quaternion through a matrix) too.
        let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2);
        let r = q.to_rotation_matrix();
        ours = ours.max(off(super::rpy(&r), &r));
        assert!(ours < 1e-15, "{ours}");
        assert!(
            nalgebras > 1e-10,
            "nalgebra's euler_angles is exact here now: {nalgebras}"
        );
    }
}
