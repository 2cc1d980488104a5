//! Serial chains of rigid bodies, described as data.
//!
//! A [`Chain`] is a base ([`Base`]) followed by links `i = 1..n`, each link being the joint
//! `O_i` and the body `B_i` it carries. Everything is stated in the **world frame at the zero
//! configuration** (all joint coordinates 0): joint axes and anchor points, body centroids and
//! body-frame axes. This is the product-of-exponentials description: moving joint `i` by `q_i`
//! rotates (or translates) everything outboard of it about (along) the joint's current axis.
//!
//! The reference models (the guide's `book/src/models.md`) are built from tables in [`reference`](mod@reference).

pub mod reference;

use nalgebra::{Matrix3, Point3, Rotation3, Unit, Vector3};
use serde::{Deserialize, Serialize};

/// How the chain is attached to the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Base {
    /// Joint `O_1` is fixed in the world.
    Fixed,
    /// A massless carriage slides along a rail (prismatic joint 0, along `axis`, world frame);
    /// joint `O_1` is fixed to the carriage. The carriage's position is prescribed.
    Rail {
        /// Unit rail direction, world frame.
        axis: [f64; 3],
    },
}

/// Kind of a one-degree-of-freedom joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    /// Rotation about the axis; coordinate in rad, generalized force in N·m.
    Revolute,
    /// Translation along the axis; coordinate in m, generalized force in N.
    Prismatic,
}

impl JointKind {
    /// The name used in datasets (`revolute` | `prismatic`).
    pub fn as_str(self) -> &'static str {
        match self {
            JointKind::Revolute => "revolute",
            JointKind::Prismatic => "prismatic",
        }
    }
}

/// Joint `O_i` between body `i−1` (or the base) and body `i`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Revolute or prismatic.
    pub kind: JointKind,
    /// Unit joint axis, world frame, zero configuration.
    pub axis: [f64; 3],
    /// The joint point `O_i`, world frame, zero configuration (m).
    pub anchor: [f64; 3],
    /// Viscous damping `c ≥ 0`: the joint feels `tau_friction = −c·q̇` (N·m·s/rad or N·s/m).
    /// A URDF's `<dynamics damping>`, else 0; a scenario's `damping` replaces it.
    #[serde(default)]
    pub damping: f64,
    /// Friction model of the joint (set by the scenario), if any.
    #[serde(default)]
    pub friction: Option<crate::friction::Friction>,
    /// The inertia the joint's drive adds on its own coordinate (kg·m², or kg on a prismatic
    /// joint): a rotor's reflected inertia `J_m G²`, MJCF's `armature`; default 0. The
    /// simulation adds it as a scenario's `rotor` does (`sim::rotor`), unless the scenario
    /// states one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub armature: f64,
    /// A joint spring's stiffness `k ≥ 0` (N·m/rad or N/m; MJCF's `stiffness`): the joint feels
    /// `tau_friction = −k (q − q₀)` beside its damping; default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stiffness: f64,
    /// The spring's rest coordinate `q₀` (rad or m; MJCF's `springref`); default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spring_rest: f64,
    /// The joint's range and drive limits, where the model states them (a URDF `<limit>` of a
    /// `revolute` or `prismatic` joint). Recorded for design (excitation trajectories keep
    /// inside them); the simulation does not enforce them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<JointLimits>,
}

/// Limits of a joint (URDF `<limit>`), coordinates in rad or m.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointLimits {
    /// Lowest coordinate (rad or m).
    pub lower: f64,
    /// Highest coordinate (rad or m).
    pub upper: f64,
    /// Largest speed (rad/s or m/s).
    pub velocity: f64,
    /// Largest actuator effort (N·m or N).
    pub effort: f64,
}

/// Geometry of a body, kept for the record (truth tables, NIM populations); the dynamics use
/// only [`Body::mass`], [`Body::inertia`], [`Body::centroid`] and [`Body::frame`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// A homogeneous cylinder along body axis `e1`.
    Cylinder {
        /// Length along the axis (m).
        length: f64,
        /// Radius (m).
        radius: f64,
    },
    /// A link of known length whose cross-section is not specified.
    Rod {
        /// Length (m).
        length: f64,
    },
}

impl Shape {
    /// Length of the body (m).
    pub fn length(&self) -> f64 {
        match *self {
            Shape::Cylinder { length, .. } | Shape::Rod { length } => length,
        }
    }

    /// Radius (m), where the shape has one.
    pub fn radius(&self) -> Option<f64> {
        match *self {
            Shape::Cylinder { radius, .. } => Some(radius),
            Shape::Rod { .. } => None,
        }
    }
}

/// Rigid body `B_i`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Mass (kg).
    pub mass: f64,
    /// Central principal moments of inertia `(J11, J22, J33)` about the body axes (kg·m²).
    pub inertia: [f64; 3],
    /// Centroid, world frame, zero configuration (m).
    pub centroid: [f64; 3],
    /// Body axes `e1, e2, e3` expressed in the world frame at the zero configuration
    /// (a right-handed orthonormal triad): the columns of the body → world rotation.
    pub frame: [[f64; 3]; 3],
    /// Geometry, for the record.
    pub shape: Shape,
}

/// Link `i`: joint `O_i` and the body `B_i` it carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Body name (e.g. `B1`).
    pub name: String,
    /// Inner joint `O_i`.
    pub joint: Joint,
    /// The body.
    pub body: Body,
}

/// A serial chain: base, then links `1..n`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chain {
    /// Model name (e.g. `arm6`).
    pub name: String,
    /// Attachment to the world.
    pub base: Base,
    /// Links `1..n` from the base outwards.
    pub links: Vec<Link>,
    /// Gravity's acceleration in the world frame (m/s²): [`crate::GRAVITY`] along `−z` unless
    /// the model file states another (MJCF's `<option gravity>`, whose default is MuJoCo's
    /// `0 0 −9.81`) or the scenario does (`gravity`). The simulator, the sensors' readings, the
    /// physics checks and every estimator take it from the chain.
    #[serde(default = "standard_gravity", skip_serializing_if = "is_standard")]
    pub gravity: [f64; 3],
}

/// [`crate::GRAVITY`] along `−z` (m/s², world frame): a chain's gravity unless stated.
pub const STANDARD_GRAVITY: [f64; 3] = [0.0, 0.0, -crate::GRAVITY];

fn standard_gravity() -> [f64; 3] {
    STANDARD_GRAVITY
}

fn is_standard(g: &[f64; 3]) -> bool {
    *g == STANDARD_GRAVITY
}

/// A chain that cannot be simulated, with the offending field.
#[derive(Debug, thiserror::Error)]
#[error("model `{model}`: {field}: {problem}")]
pub struct ModelError {
    /// Model name.
    pub model: String,
    /// Path of the offending field, e.g. `links[2].body.frame`.
    pub field: String,
    /// What is wrong and what was expected.
    pub problem: String,
}

impl Chain {
    /// [`Chain::gravity`] as a vector (m/s², world frame).
    pub fn gravity_vector(&self) -> nalgebra::Vector3<f64> {
        nalgebra::Vector3::from(self.gravity)
    }

    /// Number of bodies (links) `n`.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether the chain has no link.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Indices of all joints in dataset numbering: `0` is the rail where there is one, `i` is
    /// `O_i`.
    pub fn joint_ids(&self) -> Vec<u8> {
        let first = if self.rail_axis().is_some() { 0 } else { 1 };
        (first..=self.links.len() as u8).collect()
    }

    /// Kind of every joint in dataset order (the rail is prismatic).
    pub fn joint_kinds(&self) -> Vec<JointKind> {
        let rail = self.rail_axis().map(|_| JointKind::Prismatic);
        rail.into_iter()
            .chain(self.links.iter().map(|l| l.joint.kind))
            .collect()
    }

    /// The rail axis, if the chain sits on a rail.
    pub fn rail_axis(&self) -> Option<Unit<Vector3<f64>>> {
        match self.base {
            Base::Fixed => None,
            Base::Rail { axis } => Some(Unit::new_normalize(Vector3::from(axis))),
        }
    }

    /// The chain's kinematics only, as an identification experiment knows it: joint kinds,
    /// axes, anchors and link frames. Masses, inertias, centroids (moved to the joint point),
    /// body shapes (reduced to their length), friction and damping are removed, so an
    /// estimator given this cannot read the truth it is scored against.
    pub fn kinematics_only(&self) -> Chain {
        let mut c = self.clone();
        for link in &mut c.links {
            link.joint.damping = 0.0;
            link.joint.friction = None;
            let b = &mut link.body;
            b.mass = 0.0;
            b.inertia = [0.0; 3];
            b.centroid = link.joint.anchor;
            b.shape = Shape::Rod {
                length: b.shape.length(),
            };
        }
        c
    }

    /// Checks that the chain is physically meaningful: positive masses and moments satisfying
    /// the triangle inequality, unit axes, orthonormal right-handed body frames.
    pub fn validate(&self) -> Result<(), ModelError> {
        let err = |field: String, problem: String| ModelError {
            model: self.name.clone(),
            field,
            problem,
        };
        if self.links.is_empty() {
            return Err(err("links".into(), "expected at least one link".into()));
        }
        if self.links.len() > 250 {
            return Err(err("links".into(), "expected at most 250 links".into()));
        }
        if let Base::Rail { axis } = self.base
            && let Some(problem) = not_unit(axis)
        {
            return Err(err("base.axis".into(), problem));
        }
        for (k, link) in self.links.iter().enumerate() {
            let b = &link.body;
            if let Some(problem) = not_unit(link.joint.axis) {
                return Err(err(format!("links[{k}].joint.axis"), problem));
            }
            if !(b.mass.is_finite() && b.mass > 0.0) {
                return Err(err(
                    format!("links[{k}].body.mass"),
                    format!("expected a positive mass in kg, got {}", b.mass),
                ));
            }
            let [j1, j2, j3] = b.inertia;
            // Zero moments are a point mass (all three) or an ideal rod: the degenerate cases of
            // the triangle inequality, which real bodies approach.
            let ok = [j1, j2, j3].iter().all(|j| j.is_finite() && *j >= 0.0)
                && j1 <= j2 + j3 * (1.0 + 1e-12)
                && j2 <= j1 + j3 * (1.0 + 1e-12)
                && j3 <= j1 + j2 * (1.0 + 1e-12);
            if !ok {
                return Err(err(
                    format!("links[{k}].body.inertia"),
                    format!(
                        "expected non-negative principal moments (kg·m²) obeying the \
                         triangle inequality, got {:?}",
                        b.inertia
                    ),
                ));
            }
            let r = Matrix3::from_columns(&b.frame.map(Vector3::from));
            let orthonormal = (r.transpose() * r - Matrix3::identity()).abs().max() < 1e-9;
            if !orthonormal || (r.determinant() - 1.0).abs() > 1e-9 {
                return Err(err(
                    format!("links[{k}].body.frame"),
                    "expected three orthonormal, right-handed unit vectors e1, e2, e3 (world)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// What is wrong with `axis` where it is not a unit vector.
fn not_unit(axis: [f64; 3]) -> Option<String> {
    let n = Vector3::from(axis).norm();
    ((n - 1.0).abs() > 1e-9)
        .then(|| format!("expected a unit vector [x, y, z], got {axis:?} (norm {n})"))
}

/// Whether `v` is 0 (an armature left out of a serialized model).
fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl Joint {
    /// Unit axis, world frame, zero configuration.
    pub fn axis(&self) -> Unit<Vector3<f64>> {
        Unit::new_normalize(Vector3::from(self.axis))
    }

    /// Anchor point `O_i`, world frame, zero configuration.
    pub fn anchor(&self) -> Point3<f64> {
        Point3::from(self.anchor)
    }
}

impl Body {
    /// Body → world rotation at the zero configuration.
    pub fn rotation(&self) -> Rotation3<f64> {
        Rotation3::from_matrix_unchecked(Matrix3::from_columns(&self.frame.map(Vector3::from)))
    }

    /// Centroid, world frame, zero configuration.
    pub fn centroid(&self) -> Point3<f64> {
        Point3::from(self.centroid)
    }

    /// Central inertia tensor in the body frame (kg·m²).
    pub fn inertia_body(&self) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::from(self.inertia))
    }
}
