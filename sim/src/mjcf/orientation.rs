//! Numbers, angles and frame orientations as MJCF writes them (in `<compiler angle eulerseq>`).

use nalgebra::{Matrix3, Rotation3, Unit, UnitQuaternion, Vector3};
use roxmltree::Node;

use super::compiler::Compiler;
use super::element::{Problem, element};

impl Compiler {
    /// The orientation a node states (identity where it states none).
    pub fn orientation(&self, node: Node) -> Result<UnitQuaternion<f64>, Problem> {
        let given: Vec<&str> = ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
            .into_iter()
            .filter(|a| node.attribute(*a).is_some())
            .collect();
        let name = match given.as_slice() {
            [] => return Ok(UnitQuaternion::identity()),
            [one] => *one,
            _ => {
                return Err((
                    element(node),
                    format!("orientation given as {given:?} (expected at most one)"),
                ));
            }
        };
        let bad = |what: &str| (element(node), format!("{name}: expected {what}"));
        match name {
            "quat" => {
                let [w, x, y, z] = numbers::<4>(node, "quat")?;
                let q = nalgebra::Quaternion::new(w, x, y, z);
                if q.norm() < 1e-12 {
                    return Err(bad("a non-zero quaternion w x y z"));
                }
                Ok(UnitQuaternion::from_quaternion(q))
            }
            "axisangle" => {
                let [x, y, z, a] = numbers::<4>(node, "axisangle")?;
                let axis = Unit::try_new(Vector3::new(x, y, z), 1e-12)
                    .ok_or_else(|| bad("a non-zero axis x y z and an angle"))?;
                Ok(UnitQuaternion::from_axis_angle(&axis, a * self.angle))
            }
            "euler" => {
                let angles = numbers::<3>(node, "euler")?;
                let mut q = UnitQuaternion::identity();
                for (c, a) in self.eulerseq.iter().zip(angles) {
                    let axis = match c.to_ascii_lowercase() {
                        'x' => Vector3::x_axis(),
                        'y' => Vector3::y_axis(),
                        _ => Vector3::z_axis(),
                    };
                    let r = UnitQuaternion::from_axis_angle(&axis, a * self.angle);
                    q = if c.is_ascii_lowercase() { q * r } else { r * q };
                }
                Ok(q)
            }
            "xyaxes" => {
                let v = numbers::<6>(node, "xyaxes")?;
                let x = Vector3::new(v[0], v[1], v[2]);
                let y = Vector3::new(v[3], v[4], v[5]);
                let x = x
                    .try_normalize(1e-12)
                    .ok_or_else(|| bad("a non-zero x axis"))?;
                let y = (y - x * x.dot(&y))
                    .try_normalize(1e-12)
                    .ok_or_else(|| bad("a y axis not along x"))?;
                let m = Matrix3::from_columns(&[x, y, x.cross(&y)]);
                Ok(UnitQuaternion::from_rotation_matrix(
                    &Rotation3::from_matrix_unchecked(m),
                ))
            }
            _ => {
                let z = Vector3::from(numbers::<3>(node, "zaxis")?);
                let z = z
                    .try_normalize(1e-12)
                    .ok_or_else(|| bad("a non-zero axis"))?;
                Ok(
                    UnitQuaternion::rotation_between(&Vector3::z(), &z).unwrap_or_else(|| {
                        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
                    }),
                )
            }
        }
    }
}

/// `N` numbers of attribute `name` of `node`.
pub(super) fn numbers<const N: usize>(node: Node, name: &str) -> Result<[f64; N], Problem> {
    let text = node.attribute(name).unwrap_or_default();
    parse::<N>(text).ok_or_else(|| {
        (
            element(node),
            format!("{name}=\"{text}\": expected {N} finite numbers"),
        )
    })
}

/// `N` finite numbers of `text`, or `None`.
pub(super) fn parse<const N: usize>(text: &str) -> Option<[f64; N]> {
    let values: Vec<f64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let array: [f64; N] = values.try_into().ok()?;
    array.iter().all(|v| v.is_finite()).then_some(array)
}
