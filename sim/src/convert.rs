//! The one place where Rapier's glam math types meet the project's nalgebra types.

use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use rapier3d_f64::math::{Rotation, Vector};

/// glam vector → nalgebra vector.
pub(crate) fn vec_from(v: Vector) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

/// nalgebra vector → glam vector.
pub(crate) fn vec_to(v: &Vector3<f64>) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// glam unit quaternion → nalgebra unit quaternion (same rotation).
pub(crate) fn rot_from(q: Rotation) -> UnitQuaternion<f64> {
    UnitQuaternion::new_unchecked(Quaternion::new(q.w, q.x, q.y, q.z))
}

/// nalgebra unit quaternion → glam unit quaternion (same rotation).
pub(crate) fn rot_to(q: &UnitQuaternion<f64>) -> Rotation {
    Rotation::from_xyzw(q.i, q.j, q.k, q.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_agrees_on_rotation() {
        let q = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
        let v = Vector3::new(0.1, -2.0, 3.5);
        let g = rot_to(&q);
        assert!((rot_from(g).into_inner() - q.into_inner()).norm() < 1e-15);
        assert!((vec_from(g * vec_to(&v)) - q * v).norm() < 1e-14);
    }
}
