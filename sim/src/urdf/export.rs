//! Any chain written as URDF, so that [`super::import`] reads it back to the same chain (bit for
//! bit for the reference models; otherwise to the rounding of body frames through `rpy` text,
//! ~1e-16). URDF states no gravity: a chain's ([`crate::model::Chain::gravity`]) is not written,
//! and reads back as [`crate::GRAVITY`] along −z (the MJCF export keeps it).
//!
//! * The root link is `world`; a rail is a prismatic joint `rail` to a link `carriage` without
//!   inertia (read back as the rail).
//! * Every joint frame is world-aligned at the zero configuration and sits at the joint point:
//!   `<origin xyz>` is the step from the previous joint point, `rpy = 0`, `<axis>` the world
//!   axis. Revolute joints with [`crate::model::JointLimits`] are written `revolute` with their
//!   `<limit>`, without as `continuous`; a prismatic joint without limits carries the unbounded
//!   `<limit>` URDF requires ([`UNBOUNDED`]).
//! * A link's `<inertial>` sits at its centroid with `rpy` of its body frame, the principal
//!   moments on the diagonal; `<dynamics damping>` is the joint's damping, `<dynamics friction>`
//!   its Coulomb level where its friction is what the import reads from one; other friction
//!   models are not URDF and are not written. The body's shape is a `<collision>` cylinder
//!   along `e1` (radius 0 for a rod).
//! * Offsets are written so that the import's floating-point sums land exactly on the model's
//!   points (`exact_step`); with the import keeping a single inertial's centroid and
//!   diagonal frame as written, a model whose body frames `rpy` states exactly (the reference
//!   models: axis-aligned frames) reads back bit for bit.

use nalgebra::{Matrix3, Rotation3, Vector3};

use super::format::{UNBOUNDED, URDF_FRICTION_SMOOTHING, UrdfError};
use crate::model::{Base, Chain, JointKind, JointLimits};

/// The `<dynamics friction>` of a joint: the Coulomb level of a friction model URDF can state
/// (Coulomb only, with the import's smoothing), else 0 (other models are not written).
pub(crate) fn urdf_friction(friction: &Option<crate::friction::Friction>) -> f64 {
    friction.as_ref().and_then(urdf_coulomb).unwrap_or(0.0)
}

/// The Coulomb level of `friction` where URDF's `<dynamics friction>` states the whole model
/// (Coulomb only, with the import's smoothing); `None` for any other model.
fn urdf_coulomb(friction: &crate::friction::Friction) -> Option<f64> {
    match *friction {
        crate::friction::Friction::CoulombViscous {
            coulomb,
            viscous,
            smoothing,
        } if viscous == 0.0 && smoothing == URDF_FRICTION_SMOOTHING => Some(coulomb),
        _ => None,
    }
}

/// What URDF cannot state of `chain`, and [`named`] therefore leaves out, one line per item
/// naming its joint (`names` as for [`named`]): a joint's armature (URDF has none), its spring
/// (stiffness and rest position) and a friction model other than Coulomb's (URDF's
/// `<dynamics friction>`), and a gravity other than [`crate::GRAVITY`] along −z (URDF states
/// none). Empty where the URDF is the whole chain; `sim export-urdf` prints them, and MJCF
/// (`crate::mjcf::export`) states all of them.
pub fn unstated(chain: &Chain, names: Option<&[String]>) -> Vec<String> {
    let mut lines = Vec::new();
    for (k, l) in chain.links.iter().enumerate() {
        let name = (names.and_then(|n| n.get(k).cloned())).unwrap_or_else(|| format!("O{}", k + 1));
        let j = &l.joint;
        let (inertia, stiffness, position) = match j.kind {
            JointKind::Revolute => ("kg·m²", "N·m/rad", "rad"),
            JointKind::Prismatic => ("kg", "N/m", "m"),
        };
        if j.armature != 0.0 {
            lines.push(format!("joint {name}: armature {} {inertia}", j.armature));
        }
        if j.stiffness != 0.0 {
            lines.push(format!(
                "joint {name}: spring of stiffness {} {stiffness} at rest position {} {position}",
                j.stiffness, j.spring_rest
            ));
        }
        if let Some(f) = &j.friction
            && urdf_coulomb(f).is_none()
        {
            lines.push(format!("joint {name}: friction model {f:?}"));
        }
    }
    if chain.gravity != crate::model::STANDARD_GRAVITY {
        lines.push(format!("gravity {:?} m/s²", chain.gravity));
    }
    lines
}

/// The offset (m) that, added to `from` in floating point, lands exactly on `to`: `to − from`,
/// moved by an ulp where the subtraction rounded, so that the import's sums reproduce the
/// model's points bit for bit.
pub(crate) fn exact_step(from: Vector3<f64>, to: Vector3<f64>) -> Vector3<f64> {
    Vector3::from_fn(|i, _| {
        let mut d = to[i] - from[i];
        for _ in 0..4 {
            let back = from[i] + d;
            if back == to[i] {
                break;
            }
            d = if back < to[i] {
                d.next_up()
            } else {
                d.next_down()
            };
        }
        d
    })
}

/// A body's shape as a `<collision>` cylinder along its `e1` axis at its centroid (a rod: radius
/// 0), which the import reads back as the shape.
fn shape_collision(
    shape: &crate::model::Shape,
    at: Vector3<f64>,
    frame: &Rotation3<f64>,
) -> urdf_rs::Collision {
    // URDF cylinders lie along their local z; Ry(π/2) turns z onto the body's e1.
    let along_e1 = frame * Rotation3::from_euler_angles(0.0, std::f64::consts::FRAC_PI_2, 0.0);
    let [roll, pitch, yaw] = super::format::rpy(&along_e1);
    urdf_rs::Collision {
        name: None,
        origin: urdf_rs::Pose {
            xyz: urdf_rs::Vec3([at.x, at.y, at.z]),
            rpy: urdf_rs::Vec3([roll, pitch, yaw]),
        },
        geometry: urdf_rs::Geometry::Cylinder {
            radius: shape.radius().unwrap_or(0.0),
            length: shape.length(),
        },
    }
}

/// The URDF text of `chain`, its joints named `O1`, `O2`, … (the datasets' names).
pub fn to_string(chain: &Chain) -> Result<String, UrdfError> {
    named(chain, None)
}

/// [`to_string`] with the joints named `names` (chain order; `None`: `O1`, …): a model
/// identified from a recording keeps the names its columns use.
pub fn named(chain: &Chain, names: Option<&[String]>) -> Result<String, UrdfError> {
    let vec3 = |v: Vector3<f64>| urdf_rs::Vec3([v.x, v.y, v.z]);
    let link = |name: &str, inertial: urdf_rs::Inertial, collision: Vec<urdf_rs::Collision>| {
        urdf_rs::Link {
            name: name.to_string(),
            inertial,
            visual: Vec::new(),
            collision,
        }
    };
    let joint = |name: String,
                 kind: JointKind,
                 parent: &str,
                 child: &str,
                 origin: Vector3<f64>,
                 axis: Vector3<f64>,
                 (damping, friction): (f64, f64),
                 limits: Option<JointLimits>| {
        let prismatic = kind == JointKind::Prismatic;
        let limit = match limits {
            Some(l) => urdf_rs::JointLimit {
                lower: l.lower,
                upper: l.upper,
                effort: l.effort,
                velocity: l.velocity,
                ..Default::default()
            },
            None => urdf_rs::JointLimit {
                lower: if prismatic {
                    -UNBOUNDED
                } else {
                    f64::NEG_INFINITY
                },
                upper: if prismatic { UNBOUNDED } else { f64::INFINITY },
                effort: UNBOUNDED,
                velocity: UNBOUNDED,
                ..Default::default()
            },
        };
        urdf_rs::Joint {
            name,
            joint_type: match (prismatic, limits.is_some()) {
                (true, _) => urdf_rs::JointType::Prismatic,
                (false, true) => urdf_rs::JointType::Revolute,
                (false, false) => urdf_rs::JointType::Continuous,
            },
            origin: urdf_rs::Pose {
                xyz: vec3(origin),
                rpy: urdf_rs::Vec3([0.0; 3]),
            },
            parent: urdf_rs::LinkName {
                link: parent.to_string(),
            },
            child: urdf_rs::LinkName {
                link: child.to_string(),
            },
            axis: urdf_rs::Axis { xyz: vec3(axis) },
            limit,
            calibration: None,
            dynamics: (damping != 0.0 || friction != 0.0)
                .then_some(urdf_rs::Dynamics { damping, friction }),
            mimic: None,
            safety_controller: None,
        }
    };
    let mut links = vec![link("world", urdf_rs::Inertial::default(), Vec::new())];
    let mut joints = Vec::new();
    let mut parent = "world".to_string();
    if let Base::Rail { axis } = chain.base {
        links.push(link("carriage", urdf_rs::Inertial::default(), Vec::new()));
        joints.push(joint(
            "rail".into(),
            JointKind::Prismatic,
            "world",
            "carriage",
            Vector3::zeros(),
            axis.into(),
            (0.0, 0.0),
            None,
        ));
        parent = "carriage".into();
    }
    let mut previous = Vector3::zeros();
    for (k, l) in chain.links.iter().enumerate() {
        let anchor: Vector3<f64> = l.joint.anchor.into();
        let name = (names.and_then(|n| n.get(k).cloned())).unwrap_or_else(|| format!("O{}", k + 1));
        joints.push(joint(
            name,
            l.joint.kind,
            &parent,
            &l.name,
            exact_step(previous, anchor),
            l.joint.axis.into(),
            (l.joint.damping, urdf_friction(&l.joint.friction)),
            l.joint.limits,
        ));
        let b = &l.body;
        let frame =
            Rotation3::from_matrix_unchecked(Matrix3::from_columns(&b.frame.map(Vector3::from)));
        let [roll, pitch, yaw] = super::format::rpy(&frame);
        let centroid: Vector3<f64> = b.centroid.into();
        links.push(link(
            &l.name,
            urdf_rs::Inertial {
                origin: urdf_rs::Pose {
                    xyz: vec3(exact_step(anchor, centroid)),
                    rpy: urdf_rs::Vec3([roll, pitch, yaw]),
                },
                mass: urdf_rs::Mass { value: b.mass },
                inertia: urdf_rs::Inertia {
                    ixx: b.inertia[0],
                    iyy: b.inertia[1],
                    izz: b.inertia[2],
                    ..Default::default()
                },
            },
            vec![shape_collision(
                &b.shape,
                exact_step(anchor, centroid),
                &frame,
            )],
        ));
        parent = l.name.clone();
        previous = anchor;
    }
    let robot = urdf_rs::Robot {
        name: chain.name.clone(),
        version: None,
        links,
        joints,
        materials: Vec::new(),
    };
    urdf_rs::write_to_string(&robot).map_err(|source| UrdfError::Parse {
        file: format!("{} (export)", chain.name),
        source,
    })
}
