//! The reference models (the guide's `book/src/models.md`), built from their tables.

use super::{Base, Body, Chain, Joint, JointKind, Link, Shape};

/// Names of the reference models.
pub const NAMES: [&str; 3] = ["arm6", "link2", "cyl2"];

/// Returns the reference model called `name`, if there is one.
pub fn by_name(name: &str) -> Option<Chain> {
    match name {
        "arm6" => Some(arm6()),
        "link2" => Some(link2()),
        "cyl2" => Some(cyl2()),
        _ => None,
    }
}

/// A cylinder link of `arm6`: length l (m), radius R (m), mass m (kg), central principal
/// moments J11 (axial), J22, J33 (kg·m²) — one row of the MIM paper's Table 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cylinder {
    /// Length (m).
    pub length: f64,
    /// Radius (m).
    pub radius: f64,
    /// Mass (kg).
    pub mass: f64,
    /// `(J11, J22, J33)` (kg·m²).
    pub j: [f64; 3],
}

impl Cylinder {
    /// A homogeneous cylinder: `J11 = m R²/2`, `J22 = J33 = m (3R² + l²)/12`.
    pub fn homogeneous(length: f64, radius: f64, mass: f64) -> Self {
        let transverse = mass * (3.0 * radius * radius + length * length) / 12.0;
        Cylinder {
            length,
            radius,
            mass,
            j: [mass * radius * radius / 2.0, transverse, transverse],
        }
    }
}

/// The MIM paper's Table 1, as printed; the printed values are the truth of our simulation.
/// The moments are `m·R²/2` and `m(3R² + l²)/12` to within 6e-5 kg·m² (B2's J22 = J33 is
/// 92.99515 by the formula, printed 92.9952). B1–B5 share a density of 1741.8 kg/m³; B6
/// (100 kg) has 1178.9 kg/m³.
pub(crate) const ARM6_CYLINDERS: [Cylinder; 6] = [
    Cylinder {
        length: 1.045,
        radius: 0.5,
        mass: 1429.5806,
        j: [178.6976, 219.4436, 219.4436],
    },
    Cylinder {
        length: 1.245,
        radius: 0.3,
        mass: 613.1464,
        j: [27.5916, 92.9952, 92.9952],
    },
    Cylinder {
        length: 1.21,
        radius: 0.2,
        mass: 264.8486,
        j: [5.2970, 34.9622, 34.9622],
    },
    Cylinder {
        length: 0.315,
        radius: 0.2,
        mass: 68.9482,
        j: [1.3790, 1.2596, 1.2596],
    },
    Cylinder {
        length: 0.29,
        radius: 0.2,
        mass: 63.4761,
        j: [1.2695, 1.0796, 1.0796],
    },
    Cylinder {
        length: 0.3,
        radius: 0.3,
        mass: 100.0,
        j: [4.5, 3.0, 3.0],
    },
];

const X: [f64; 3] = [1.0, 0.0, 0.0];
const Y: [f64; 3] = [0.0, 1.0, 0.0];
const Z: [f64; 3] = [0.0, 0.0, 1.0];

/// `arm6`: the MIM paper's 6-DOF arm of homogeneous cylinders on a rail.
///
/// Carriage on a rail along `x`; `O1` about `z` at the carriage origin; `B1` vertical
/// (`e1 = +z, e2 = +x, e3 = +y`); `O2` at `(0, 0, l1)` about `+y`; `B2..B6` stretched along `+x`
/// (`e1 = +x, e2 = +y, e3 = +z`); `O3` about `+y`, `O4` about `+x`, `O5` about `+y`, `O6` about
/// `+x`. Each joint sits at the inner end face of its body, on the axis.
pub fn arm6() -> Chain {
    arm6_from("arm6", &ARM6_CYLINDERS)
}

/// The `arm6` topology (joints, axes, frames) with other cylinders: joints sit at the end faces
/// of the given lengths.
pub(crate) fn arm6_from(name: &str, cylinders: &[Cylinder; 6]) -> Chain {
    let axes = [Z, Y, Y, X, Y, X];
    let mut links = Vec::with_capacity(6);
    // B1 stands on the carriage.
    let b1 = &cylinders[0];
    links.push(cylinder_link(
        "B1",
        axes[0],
        [0.0; 3],
        [0.0, 0.0, b1.length / 2.0],
        [Z, X, Y],
        b1,
    ));
    let height = b1.length;
    let mut x = 0.0;
    for (k, row) in cylinders.iter().enumerate().skip(1) {
        let anchor = [x, 0.0, height];
        let centroid = [x + row.length / 2.0, 0.0, height];
        links.push(cylinder_link(
            &format!("B{}", k + 1),
            axes[k],
            anchor,
            centroid,
            [X, Y, Z],
            row,
        ));
        x += row.length;
    }
    Chain {
        name: name.into(),
        base: Base::Rail { axis: X },
        links,
        gravity: crate::model::STANDARD_GRAVITY,
    }
}

fn cylinder_link(
    name: &str,
    axis: [f64; 3],
    anchor: [f64; 3],
    centroid: [f64; 3],
    frame: [[f64; 3]; 3],
    row: &Cylinder,
) -> Link {
    Link {
        name: name.into(),
        joint: Joint {
            kind: JointKind::Revolute,
            axis,
            anchor,
            damping: 0.0,
            friction: None,
            armature: 0.0,
            stiffness: 0.0,
            spring_rest: 0.0,
            limits: None,
        },
        body: Body {
            mass: row.mass,
            inertia: row.j,
            centroid,
            frame,
            shape: Shape::Cylinder {
                length: row.length,
                radius: row.radius,
            },
        },
    }
}

/// Density of the `cyl2` links (kg/m³): aluminium.
pub const CYL2_DENSITY: f64 = 2700.0;

/// `cyl2`: the MIM paper's appendix 2-DOF variant of `arm6` (the appendix gives no numbers).
///
/// The first two joints of `arm6` on a fixed base: `O1` about `z` at the origin with `B1`
/// vertical (`e1 = +z, e2 = +x, e3 = +y`), `O2` about `+y` at the top of `B1` with `B2` along
/// `+x` (`e1 = +x, e2 = +y, e3 = +z`). Lengths are `link2`'s (1.0 m, 0.8 m); radii 0.10 m and
/// 0.08 m and the density [`CYL2_DENSITY`] are our choice. Masses and moments follow from the
/// homogeneous-cylinder formulas.
pub fn cyl2() -> Chain {
    let row = |length: f64, radius: f64| {
        let mass = CYL2_DENSITY * std::f64::consts::PI * radius * radius * length;
        Cylinder::homogeneous(length, radius, mass)
    };
    let (b1, b2) = (row(1.0, 0.10), row(0.8, 0.08));
    let links = vec![
        cylinder_link(
            "B1",
            Z,
            [0.0; 3],
            [0.0, 0.0, b1.length / 2.0],
            [Z, X, Y],
            &b1,
        ),
        cylinder_link(
            "B2",
            Y,
            [0.0, 0.0, b1.length],
            [b2.length / 2.0, 0.0, b1.length],
            [X, Y, Z],
            &b2,
        ),
    ];
    Chain {
        name: "cyl2".into(),
        base: Base::Fixed,
        links,
        gravity: crate::model::STANDARD_GRAVITY,
    }
}

/// `link2`: the frequency-domain paper's planar 2-link arm (its Table 1).
///
/// Both joints revolute about `+y`, the base joint at the origin; at `q = 0` the arm hangs
/// straight down (`−z`). Centroids at the link midpoints, central inertia `diag(J, J, J)`,
/// body frames parallel to the world frame at `q = 0`.
pub fn link2() -> Chain {
    let (m1, m2, j, l1, l2) = (5.0, 1.5, 5.0, 1.0, 0.8);
    let link = |name: &str, mass: f64, length: f64, top: f64| Link {
        name: name.into(),
        joint: Joint {
            kind: JointKind::Revolute,
            axis: Y,
            anchor: [0.0, 0.0, top],
            damping: 0.0,
            friction: None,
            armature: 0.0,
            stiffness: 0.0,
            spring_rest: 0.0,
            limits: None,
        },
        body: Body {
            mass,
            inertia: [j, j, j],
            centroid: [0.0, 0.0, top - length / 2.0],
            frame: [X, Y, Z],
            shape: Shape::Rod { length },
        },
    };
    Chain {
        name: "link2".into(),
        base: Base::Fixed,
        links: vec![link("L1", m1, l1, 0.0), link("L2", m2, l2, -l1)],
        gravity: crate::model::STANDARD_GRAVITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_models_are_valid() {
        for name in NAMES {
            by_name(name).unwrap().validate().unwrap();
        }
    }

    #[test]
    fn arm6_table_matches_cylinder_formulas() {
        // Table 1 is m·R²/2 axial and m(3R² + l²)/12 transverse, up to its rounding.
        for row in &ARM6_CYLINDERS {
            let axial = row.mass * row.radius.powi(2) / 2.0;
            let transverse = row.mass * (3.0 * row.radius.powi(2) + row.length.powi(2)) / 12.0;
            assert!((axial - row.j[0]).abs() <= 6e-5, "{axial} vs {}", row.j[0]);
            assert!(
                (transverse - row.j[1]).abs() <= 6e-5,
                "{transverse} vs {}",
                row.j[1]
            );
            assert_eq!(row.j[1], row.j[2]);
        }
    }

    #[test]
    fn arm6_joints_sit_on_the_body_axes() {
        let arm = arm6();
        for w in arm.links.windows(2) {
            let (inner, outer) = (&w[0].body, &w[1].joint);
            let e1 = nalgebra::Vector3::from(inner.frame[0]);
            let half = inner.shape.length() / 2.0;
            let end = inner.centroid() + e1 * half;
            assert!((end - outer.anchor()).norm() < 1e-12);
        }
    }
}
