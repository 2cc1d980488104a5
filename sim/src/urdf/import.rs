//! Serial chains read from URDF (parsed by `urdf-rs`) into the zero-configuration description
//! of [`crate::model`].
//!
//! * The root link (the one that is no joint's child) is the fixed base: its inertia and that
//!   of links fixed to it carry no dynamics and are dropped.
//! * `revolute` and `continuous` joints become revolute joints, `prismatic` prismatic ones,
//!   numbered `1..n` along the chain; each joint's anchor and axis are its `<origin>` and
//!   `<axis>` carried into the world frame at the zero configuration (every joint coordinate 0,
//!   as URDF defines it). `<limit>` of a revolute or prismatic joint becomes the joint's
//!   [`crate::model::JointLimits`] (recorded for design, not enforced). `<dynamics damping>`
//!   becomes the joint's viscous damping and `<dynamics friction>` its Coulomb friction
//!   `F_c tanh(q̇/ε)` with `ε` = [`super::URDF_FRICTION_SMOOTHING`]; a scenario's `damping` and
//!   `friction` replace them.
//! * `fixed` joints merge their child link into its parent body, as Pinocchio and MuJoCo do:
//!   masses add, the centroid is the mass-weighted mean, the inertia tensors add about it
//!   (parallel-axis theorem).
//! * A body's inertia tensor (URDF: about the `<inertial>` origin, in that frame) is carried to
//!   the world frame at the zero configuration and diagonalized: the body frame is its
//!   principal frame (right-handed, eigenvalues ascending), the recorded principal moments its
//!   eigenvalues. A body made of one link whose `<inertia>` is already diagonal keeps that
//!   `<inertial>` frame and the moments in its order (so [`super::export`] round-trips).
//! * A first moving joint that is prismatic and carries no mass (a carriage) is a rail
//!   ([`Base::Rail`]), as [`super::export`] writes one.
//! * A body's `shape` (for the record) is its link's single `<collision>` cylinder where it has
//!   one (radius 0: a rod), else a rod whose length is the distance to the next joint (0 for the
//!   last body).
//! * Joints held at a position ([`super::lock`]: a scenario's `lock`, and mimic joints whose
//!   leader is held) are read as `fixed` joints with their child placed at that position.
//! * A link with mass and a zero inertia tensor is a point mass (the degenerate case of the
//!   triangle inequality, which CAD exports and identification priors often write): it is
//!   simulated as one.
//! * Floating, planar and spherical joints, closed loops, branches with more than one moving
//!   joint, moving links without mass, mimic joints whose leader moves and physically
//!   impossible inertias ([`crate::physical::check`]) are rejected, with the element named.

use std::collections::HashMap;
use std::path::Path;

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};

use super::format::{Problem, UNBOUNDED, URDF_FRICTION_SMOOTHING, UrdfError};
use super::lock::Locks;
use crate::dynamics::StandardParameters;
use crate::friction::Friction;
use crate::model::{Base, Body, Chain, Joint, JointKind, JointLimits, Link, Shape};

/// Reads the serial chain of a URDF file.
pub fn read(path: &Path) -> Result<Chain, UrdfError> {
    read_locked(path, &Locks::new())
}

/// Reads the serial chain of a URDF file with the joints of `locks` held at their positions
/// ([`super::lock`]).
pub fn read_locked(path: &Path, locks: &Locks) -> Result<Chain, UrdfError> {
    read_named(path, locks).map(|(chain, _)| chain)
}

/// [`read_locked`], and the URDF names of the chain's moving joints in chain order (a
/// recording's columns name its joints so).
pub fn read_named(path: &Path, locks: &Locks) -> Result<(Chain, Vec<String>), UrdfError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| UrdfError::Io {
        file: file.clone(),
        source,
    })?;
    named(&text, &file, locks)
}

/// The serial chain of URDF text; `file` names it in errors.
pub fn from_str(text: &str, file: &str) -> Result<Chain, UrdfError> {
    from_str_locked(text, file, &Locks::new())
}

/// [`from_str`] with the joints of `locks` held at their positions ([`super::lock`]).
pub fn from_str_locked(text: &str, file: &str, locks: &Locks) -> Result<Chain, UrdfError> {
    named(text, file, locks).map(|(chain, _)| chain)
}

/// The chain of URDF text and its moving joints' names (the rail's, where there is one, left
/// out: the chain's links only).
fn named(text: &str, file: &str, locks: &Locks) -> Result<(Chain, Vec<String>), UrdfError> {
    let robot = urdf_rs::read_from_string(text).map_err(|source| UrdfError::Parse {
        file: file.to_string(),
        source,
    })?;
    from_robot(&robot, file, locks)
}

/// The chain of a parsed robot description and its moving joints' names (an MJCF file reaches
/// the chain through it too, `crate::mjcf`); `file` names it in errors.
pub(crate) fn from_robot(
    robot: &urdf_rs::Robot,
    file: &str,
    locks: &Locks,
) -> Result<(Chain, Vec<String>), UrdfError> {
    let fail = |element: String, problem: String| UrdfError::Unsupported {
        file: file.to_string(),
        element,
        problem,
    };
    let root = root_link(robot).map_err(|(e, p)| fail(e, p))?;
    let mut walk = Walk {
        held: super::lock::held(robot, locks).map_err(|(e, p)| fail(e, p))?,
        bodies: Vec::new(),
    };
    walk.visit(robot, &root, Isometry3::identity(), None)
        .map_err(|(e, p)| fail(e, p))?;
    let (base, bodies) = walk.split_rail();
    let names = bodies.iter().map(|f| f.joint.clone()).collect();
    let links = Walk::links(bodies).map_err(|(e, p)| fail(e, p))?;
    let chain = Chain {
        name: robot.name.clone(),
        base,
        links,
        gravity: crate::model::STANDARD_GRAVITY,
    };
    chain
        .validate()
        .map_err(|e| fail(format!("robot \"{}\"", robot.name), e.to_string()))?;
    Ok((chain, names))
}

/// The one link that is no joint's child; every link the child of at most one joint.
fn root_link(robot: &urdf_rs::Robot) -> Result<String, Problem> {
    let mut parent_of: HashMap<&str, &str> = HashMap::new();
    for j in &robot.joints {
        if let Some(other) = parent_of.insert(&j.child.link, &j.name) {
            return Err((
                format!("joint \"{}\"", j.name),
                format!(
                    "link \"{}\" is also the child of joint \"{other}\": a closed loop (expected a serial chain)",
                    j.child.link
                ),
            ));
        }
    }
    let roots: Vec<&str> = (robot.links.iter())
        .map(|l| l.name.as_str())
        .filter(|l| !parent_of.contains_key(l))
        .collect();
    match roots.as_slice() {
        [root] => Ok(root.to_string()),
        _ => Err((
            format!("robot \"{}\"", robot.name),
            format!("expected exactly one root link, found {roots:?}"),
        )),
    }
}

/// Mass, first moment about the world origin and inertia about the world origin (world frame,
/// zero configuration) of the links merged into one body.
#[derive(Clone, Copy, Debug, Default)]
struct Mass {
    mass: f64,
    first_moment: Vector3<f64>,
    inertia_origin: Matrix3<f64>,
    /// Inertials with mass merged so far.
    parts: usize,
    /// The first one's frame (world) and moments, where its tensor is diagonal.
    diagonal: Option<(Rotation3<f64>, [f64; 3])>,
    /// The first one's centroid (world): the body's, exactly, while it is the only part.
    first_centroid: Vector3<f64>,
}

impl Mass {
    /// Adds a link's `<inertial>` with its link frame at `frame` (world).
    fn add(&mut self, frame: &Isometry3<f64>, inertial: &urdf_rs::Inertial) {
        let m = inertial.mass.value;
        let local = pose(&inertial.origin);
        let at = frame * local;
        let c = at.translation.vector;
        let i = &inertial.inertia;
        let about_centroid = Matrix3::new(
            i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz,
        );
        let r = at.rotation.to_rotation_matrix();
        let world = r.matrix() * about_centroid * r.matrix().transpose();
        if m > 0.0 {
            self.parts += 1;
            let diagonal = i.ixy == 0.0 && i.ixz == 0.0 && i.iyz == 0.0;
            self.diagonal = (self.parts == 1 && diagonal).then_some((r, [i.ixx, i.iyy, i.izz]));
            if self.parts == 1 {
                self.first_centroid = c;
            }
        }
        self.mass += m;
        self.first_moment += m * c;
        self.inertia_origin +=
            world + m * (c.norm_squared() * Matrix3::identity() - c * c.transpose());
    }

    /// The mass-weighted mean of the parts' centroids (a single part's exactly).
    fn centroid(&self) -> Vector3<f64> {
        if self.parts == 1 {
            self.first_centroid
        } else {
            self.first_moment / self.mass
        }
    }

    /// Central inertia tensor (world frame at the zero configuration).
    fn central_inertia(&self) -> Matrix3<f64> {
        let c = self.centroid();
        self.inertia_origin
            - self.mass * (c.norm_squared() * Matrix3::identity() - c * c.transpose())
    }
}

/// A moving joint as found on the walk.
struct Found {
    kind: JointKind,
    axis: Vector3<f64>,
    anchor: Vector3<f64>,
    damping: f64,
    friction: Option<Friction>,
    limits: Option<JointLimits>,
    /// The body's shape where its link states one (a single `<collision>` cylinder).
    shape: Option<Shape>,
    /// The child link's name (the body's name).
    link: String,
    /// The joint's name.
    joint: String,
    mass: Mass,
}

struct Walk {
    /// Joints held at a position (rad or m), by name.
    held: HashMap<String, f64>,
    bodies: Vec<Found>,
}

impl Walk {
    /// Visits `link` with its frame at `frame` (world, zero configuration); its inertia goes to
    /// body `into` (`None`: the fixed base).
    fn visit(
        &mut self,
        robot: &urdf_rs::Robot,
        link: &str,
        frame: Isometry3<f64>,
        into: Option<usize>,
    ) -> Result<(), Problem> {
        let l = (robot.links.iter())
            .find(|l| l.name == link)
            .ok_or_else(|| {
                (
                    format!("link \"{link}\""),
                    "named by a joint but not defined".into(),
                )
            })?;
        if let Some(b) = into {
            self.bodies[b].mass.add(&frame, &l.inertial);
        }
        for j in robot.joints.iter().filter(|j| j.parent.link == link) {
            let at = frame * pose(&j.origin);
            let element = format!("joint \"{}\"", j.name);
            if let Some(&position) = self.held.get(&j.name) {
                if Vector3::from(j.axis.xyz.0).norm() < 1e-12 {
                    return Err((element, "<axis xyz> is zero (expected a direction)".into()));
                }
                let placed = at * super::lock::motion(j, position);
                self.visit(robot, &j.child.link, placed, into)?;
                continue;
            }
            let kind = match j.joint_type {
                urdf_rs::JointType::Fixed => {
                    self.visit(robot, &j.child.link, at, into)?;
                    continue;
                }
                urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous => {
                    JointKind::Revolute
                }
                urdf_rs::JointType::Prismatic => JointKind::Prismatic,
                ref other => {
                    return Err((
                        element,
                        format!(
                            "type {other:?} is not supported (expected revolute, continuous, prismatic or fixed)"
                        ),
                    ));
                }
            };
            let next = self.bodies.len();
            if into.map_or(next > 0, |b| b + 1 != next) {
                return Err((
                    element,
                    "a second moving joint out of one body: a branch (expected a serial chain)"
                        .into(),
                ));
            }
            let axis = Vector3::from(j.axis.xyz.0);
            if axis.norm() < 1e-12 {
                return Err((element, "<axis xyz> is zero (expected a direction)".into()));
            }
            let dynamics = j.dynamics.clone().unwrap_or_default();
            if !(dynamics.friction >= 0.0 && dynamics.damping >= 0.0) {
                return Err((
                    element,
                    "<dynamics> damping and friction must be non-negative".into(),
                ));
            }
            let friction = (dynamics.friction > 0.0).then_some(Friction::CoulombViscous {
                coulomb: dynamics.friction,
                viscous: 0.0,
                smoothing: URDF_FRICTION_SMOOTHING,
            });
            let limit = &j.limit;
            let unbounded = limit.lower <= -UNBOUNDED && limit.upper >= UNBOUNDED;
            let limits = (j.joint_type != urdf_rs::JointType::Continuous
                && limit.lower < limit.upper
                && !unbounded)
                .then_some(JointLimits {
                    lower: limit.lower,
                    upper: limit.upper,
                    velocity: limit.velocity,
                    effort: limit.effort,
                });
            self.bodies.push(Found {
                kind,
                limits,
                axis: at.rotation * axis.normalize(),
                anchor: at.translation.vector,
                damping: dynamics.damping,
                friction,
                link: j.child.link.clone(),
                joint: j.name.clone(),
                shape: shape_of(robot, &j.child.link),
                mass: Mass::default(),
            });
            self.visit(robot, &j.child.link, at, Some(next))?;
        }
        Ok(())
    }

    /// The chain's base (a massless prismatic first body is a rail) and its bodies.
    fn split_rail(&self) -> (Base, &[Found]) {
        match self.bodies.first() {
            Some(f) if f.kind == JointKind::Prismatic && f.mass.mass == 0.0 => (
                Base::Rail {
                    axis: f.axis.into(),
                },
                &self.bodies[1..],
            ),
            _ => (Base::Fixed, &self.bodies),
        }
    }

    /// The chain's links, bodies in their principal frames.
    fn links(bodies: &[Found]) -> Result<Vec<Link>, Problem> {
        (bodies.iter().enumerate())
            .map(|(k, f)| {
                if f.mass.mass <= 0.0 {
                    return Err((
                        format!("link \"{}\"", f.link),
                        "a moving link without mass (expected an <inertial> with mass > 0)".into(),
                    ));
                }
                let central = f.mass.central_inertia();
                let params =
                    StandardParameters::from_central(f.mass.mass, &Vector3::zeros(), &central);
                crate::physical::check(&params)
                    .map_err(|e| (format!("link \"{}\" <inertial>", f.link), e.to_string()))?;
                let (inertia, frame) = match f.mass.diagonal {
                    Some((r, moments)) => {
                        let c = |i: usize| -> [f64; 3] { r.matrix().column(i).into_owned().into() };
                        (moments, [c(0), c(1), c(2)])
                    }
                    None => crate::physical::principal(&central),
                };
                let length = bodies
                    .get(k + 1)
                    .map_or(0.0, |next| (next.anchor - f.anchor).norm());
                let shape = f.shape.clone().unwrap_or(Shape::Rod { length });
                Ok(Link {
                    name: f.link.clone(),
                    joint: Joint {
                        kind: f.kind,
                        axis: f.axis.into(),
                        anchor: f.anchor.into(),
                        damping: f.damping,
                        friction: f.friction.clone(),
                        armature: 0.0,
                        stiffness: 0.0,
                        spring_rest: 0.0,
                        limits: f.limits,
                    },
                    body: Body {
                        mass: f.mass.mass,
                        inertia,
                        centroid: f.mass.centroid().into(),
                        frame,
                        shape,
                    },
                })
            })
            .collect()
    }
}

/// A link's shape where it states one: a single `<collision>` cylinder is a homogeneous-cylinder
/// link of that length and radius (a radius of 0: a rod of that length), as
/// [`super::export`] writes them; anything else gives none.
fn shape_of(robot: &urdf_rs::Robot, link: &str) -> Option<Shape> {
    let l = robot.links.iter().find(|l| l.name == link)?;
    match l.collision.as_slice() {
        [one] => match one.geometry {
            urdf_rs::Geometry::Cylinder { radius, length } if radius > 0.0 => {
                Some(Shape::Cylinder { length, radius })
            }
            urdf_rs::Geometry::Cylinder { length, .. } => Some(Shape::Rod { length }),
            _ => None,
        },
        _ => None,
    }
}

/// A URDF `<origin>` as an isometry: translation `xyz`, rotation `Rz(yaw) Ry(pitch) Rx(roll)`.
fn pose(p: &urdf_rs::Pose) -> Isometry3<f64> {
    let [roll, pitch, yaw] = p.rpy.0;
    Isometry3::from_parts(
        Translation3::from(Vector3::from(p.xyz.0)),
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_euler_angles(roll, pitch, yaw)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain `base —j1→ a`, with `a` carrying `b` through a fixed joint.
    fn two_parts(second_joint: &str) -> String {
        format!(
            r#"<robot name="t">
  <link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="a"><inertial><origin xyz="0.1 0 0"/><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial></link>
  {second_joint}
  <link name="b"><inertial><origin xyz="0 0 0.1"/><mass value="1"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.006"/></inertial></link>
</robot>"#
        )
    }

    #[test]
    fn a_fixed_link_merges_into_its_parent_by_the_parallel_axis_theorem() {
        let text = two_parts(
            r#"<joint name="f" type="fixed"><origin xyz="0.3 0 0"/><parent link="a"/><child link="b"/></joint>"#,
        );
        let chain = from_str(&text, "test.urdf").unwrap();
        assert_eq!(chain.len(), 1);
        let body = &chain.links[0].body;
        // By hand: masses 2 at (0.1, 0, 0) and 1 at (0.3, 0, 0.1).
        let (c1, c2) = (Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.3, 0.0, 0.1));
        let c: Vector3<f64> = (c1 * 2.0 + c2) / 3.0;
        let shift = |m: f64, d: Vector3<f64>| {
            m * (d.norm_squared() * Matrix3::identity() - d * d.transpose())
        };
        let expected = Matrix3::from_diagonal(&Vector3::new(0.01, 0.02, 0.03))
            + Matrix3::from_diagonal(&Vector3::new(0.004, 0.005, 0.006))
            + shift(2.0, c1 - c)
            + shift(1.0, c2 - c);
        assert_eq!(body.mass, 3.0);
        let centroid: Vector3<f64> = body.centroid.into();
        assert!((centroid - c).norm() < 1e-15);
        let r = Matrix3::from_columns(&body.frame.map(Vector3::from));
        let tensor = r * Matrix3::from_diagonal(&Vector3::from(body.inertia)) * r.transpose();
        assert!((tensor - expected).norm() < 1e-15, "{tensor} vs {expected}");
        assert!(
            (r.determinant() - 1.0).abs() < 1e-12,
            "right-handed body frame"
        );
    }

    fn rejected(text: &str, element: &str, words: &str) {
        let e = from_str(text, "robot.urdf").unwrap_err().to_string();
        assert!(
            e.contains("robot.urdf") && e.contains(element) && e.contains(words),
            "{e}"
        );
    }

    #[test]
    fn unsupported_urdf_features_are_rejected_with_the_element_named() {
        let floating = two_parts(
            r#"<joint name="free6" type="floating"><parent link="a"/><child link="b"/></joint>"#,
        );
        rejected(&floating, "joint \"free6\"", "Floating");
        let looped = two_parts(
            r#"<joint name="k" type="fixed"><parent link="a"/><child link="b"/></joint>
               <joint name="loop" type="fixed"><parent link="base"/><child link="b"/></joint>"#,
        );
        rejected(&looped, "joint \"loop\"", "closed loop");
        let branch = two_parts(
            r#"<joint name="j2" type="revolute"><parent link="a"/><child link="b"/></joint>
               <link name="c"><inertial><mass value="1"/>
                 <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
               <joint name="j3" type="revolute"><parent link="a"/><child link="c"/></joint>"#,
        );
        rejected(&branch, "joint \"j3\"", "branch");
        let massless = two_parts(
            r#"<joint name="j2" type="revolute"><parent link="a"/><child link="b"/></joint>
               <link name="c"/>
               <joint name="j3" type="revolute"><parent link="b"/><child link="c"/></joint>"#,
        );
        rejected(&massless, "link \"c\"", "without mass");
    }

    #[test]
    fn dynamics_friction_and_limits_are_read_and_written_back() {
        let text = two_parts(
            r#"<joint name="j2" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/>
               <limit lower="-0.2" upper="0.3" effort="50" velocity="0.5"/>
               <dynamics damping="1.5" friction="0.3"/></joint>"#,
        );
        let chain = from_str(&text, "robot.urdf").unwrap();
        let j = &chain.links[1].joint;
        assert_eq!(j.damping, 1.5);
        assert_eq!(
            j.friction,
            Some(Friction::CoulombViscous {
                coulomb: 0.3,
                viscous: 0.0,
                smoothing: URDF_FRICTION_SMOOTHING
            })
        );
        let l = j.limits.unwrap();
        assert_eq!(
            (l.lower, l.upper, l.effort, l.velocity),
            (-0.2, 0.3, 50.0, 0.5)
        );
        assert_eq!(chain.links[0].joint.limits.map(|l| l.upper), Some(1.0));
        let back = from_str(&super::super::to_string(&chain).unwrap(), "back.urdf").unwrap();
        assert_eq!(back.links[1].joint, chain.links[1].joint);
        let bad = text.replace(r#"friction="0.3""#, r#"friction="-1""#);
        rejected(&bad, "joint \"j2\"", "non-negative");
    }

    #[test]
    fn an_impossible_inertia_is_rejected_with_the_link_named() {
        // Principal moments 0.01, 0.02, 0.05: 0.01 + 0.02 < 0.05, no mass density has them.
        let text = two_parts(
            r#"<joint name="j2" type="revolute"><parent link="a"/><child link="b"/></joint>"#,
        )
        .replace(r#"izz="0.006""#, r#"izz="0.05""#);
        let text = text.replace(r#"iyy="0.005""#, r#"iyy="0.02""#);
        let text = text.replace(r#"ixx="0.004""#, r#"ixx="0.01""#);
        rejected(&text, "link \"b\" <inertial>", "triangle inequality");
    }
}
