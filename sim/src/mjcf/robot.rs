//! The body tree of `<worldbody>` as a URDF robot (`urdf_rs::Robot`): one link per body, its
//! frame the body's moved to its joint's `pos`, one joint per body (fixed for a body without
//! one), so that [`crate::urdf::import`]'s rules make the chain.

use std::collections::{HashMap, HashSet};

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use roxmltree::{Document, Node};

use super::classes::{Classes, MAIN};
use super::compiler::{Compiler, FromGeoms, flag};
use super::element::{Problem, element};
use super::geom_inertia::{self, Solid};
use super::orientation::{numbers, parse};
use crate::urdf::format::rpy;
use crate::urdf::{Locks, UNBOUNDED};

/// The file as a URDF robot, and what URDF cannot hold.
pub(super) struct Robot {
    pub robot: urdf_rs::Robot,
    /// Each named moving joint's `armature` (kg·m², or kg on a slide).
    pub armature: HashMap<String, f64>,
    /// Each joint's spring, where it has one: `stiffness` and `springref` (rad or m).
    pub springs: HashMap<String, (f64, f64)>,
    /// `<option gravity>` (m/s²).
    pub gravity: [f64; 3],
}

/// The elements of `<mujoco>` that do not enter the dynamics.
const SKIPPED: [&str; 11] = [
    "size",
    "visual",
    "statistic",
    "custom",
    "asset",
    "contact",
    "actuator",
    "sensor",
    "keyframe",
    "compiler",
    "default",
];

/// The elements of a body that do not enter the dynamics (but for a geom's mass where the body
/// takes its inertia from its geoms, [`geom_inertia`]).
const BODY_SKIPPED: [&str; 4] = ["geom", "site", "camera", "light"];

impl Robot {
    /// Reads the document's model.
    pub fn of(doc: &Document, locks: &Locks) -> Result<Robot, Problem> {
        let root = doc.root_element();
        if !root.has_tag_name("mujoco") {
            return Err((
                element(root),
                "expected an MJCF file (root element <mujoco>)".into(),
            ));
        }
        let mut gravity = [0.0, 0.0, -9.81];
        for node in root.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "option" => {
                    if node.attribute("gravity").is_some() {
                        gravity = numbers::<3>(node, "gravity")?;
                    }
                }
                "worldbody" | "equality" | "tendon" => {}
                name if SKIPPED.contains(&name) => {}
                "include" => {
                    return Err((
                        element(node),
                        "<include> needs the file's directory (expected the file read by \
                         path, `sim::mjcf::read`, which resolves it)"
                            .into(),
                    ));
                }
                other => {
                    return Err((
                        element(node),
                        format!(
                            "<{other}> is not supported (expected a model of bodies and joints)"
                        ),
                    ));
                }
            }
        }
        let mut walk = Walk {
            compiler: Compiler::of(root)?,
            classes: Classes::of(root)?,
            robot: urdf_rs::Robot {
                name: root.attribute("model").unwrap_or("mjcf").to_string(),
                version: None,
                links: vec![link("world", None)],
                joints: Vec::new(),
                materials: Vec::new(),
            },
            armature: HashMap::new(),
            springs: HashMap::new(),
            joint_of: HashMap::new(),
            locked: locks.keys().cloned().collect(),
            grounded: HashSet::from(["world".to_string()]),
            count: 0,
        };
        for world in root.children().filter(|n| n.has_tag_name("worldbody")) {
            walk.children(world, "world", Vector3::zeros(), MAIN)?;
        }
        let locked: HashSet<&str> = walk.locked.iter().map(String::as_str).collect();
        for node in root.children().filter(|n| n.has_tag_name("equality")) {
            walk.closed_by_locks(node, &locked)?;
        }
        Ok(Robot {
            robot: walk.robot,
            armature: walk.armature,
            springs: walk.springs,
            gravity,
        })
    }
}

/// The walk down the body tree.
struct Walk<'a, 'i> {
    compiler: Compiler,
    classes: Classes<'a, 'i>,
    robot: urdf_rs::Robot,
    armature: HashMap<String, f64>,
    springs: HashMap<String, (f64, f64)>,
    /// Each body's joints, by body name (for equality constraints).
    joint_of: HashMap<String, Vec<String>>,
    /// The joints the scenario holds.
    locked: HashSet<String>,
    /// The world and the bodies welded to it (directly, or through bodies welded or held):
    /// parts of the fixed base, whose masses do not enter the dynamics.
    grounded: HashSet<String>,
    /// Bodies and joints named so far (unnamed ones are numbered).
    count: usize,
}

impl<'a, 'i> Walk<'a, 'i> {
    /// The bodies held by `parent` (its link `link`, whose frame is the parent body's moved by
    /// `shift`, body frame), in class `class`.
    fn children(
        &mut self,
        parent: Node<'a, 'i>,
        link: &str,
        shift: Vector3<f64>,
        class: &'a str,
    ) -> Result<(), Problem> {
        for node in parent.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "body" => self.body(node, link, shift, class)?,
                "joint" | "inertial" => {}
                name if BODY_SKIPPED.contains(&name) => self.classes.check(node)?,
                "freejoint" => {
                    return Err((
                        element(node),
                        "a free joint (a floating base) is not supported (expected a fixed base)"
                            .into(),
                    ));
                }
                other => {
                    return Err((
                        element(node),
                        format!(
                            "<{other}> is not supported in a body (expected <body>, <joint>, \
                             <inertial>, <geom>, <site>, <camera> or <light>)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// One `<body>`: its link, the joint from `parent_link` to it, and its children.
    fn body(
        &mut self,
        node: Node<'a, 'i>,
        parent_link: &str,
        parent_shift: Vector3<f64>,
        class: &'a str,
    ) -> Result<(), Problem> {
        self.classes.check(node)?;
        let class = node.attribute("childclass").unwrap_or(class);
        self.count += 1;
        let name = node
            .attribute("name")
            .map_or_else(|| format!("body{}", self.count), str::to_string);
        let joints = (node.children().filter(|n| n.has_tag_name("joint")))
            .map(|j| self.joint(j, class))
            .collect::<Result<Vec<Joint>, Problem>>()?;
        let pos = Vector3::from(if node.attribute("pos").is_some() {
            numbers::<3>(node, "pos")?
        } else {
            [0.0; 3]
        });
        let mut placed = Translation3::from(-parent_shift)
            * Isometry3::from_parts(pos.into(), self.compiler.orientation(node)?);
        let shift = joints.last().map_or(Vector3::zeros(), |j| j.pos);
        let grounded = self.grounded.contains(parent_link)
            && joints.iter().all(|j| self.locked.contains(&j.name));
        if grounded {
            self.grounded.insert(name.clone());
        }
        let inertial = self.inertial(node, class, shift, grounded)?;
        self.robot.links.push(link(&name, inertial));
        if joints.is_empty() {
            let weld = fixed(&name, parent_link, placed, self.count);
            self.robot.joints.push(weld);
        }
        // Several joints of one body act in order; between them sit massless links at each
        // joint's point (the URDF import reads a first slide so as a rail's carriage).
        let (mut parent, mut at) = (parent_link.to_string(), Vector3::zeros());
        for (k, j) in joints.iter().enumerate() {
            if j.stiffness != 0.0 {
                self.springs
                    .insert(j.name.clone(), (j.stiffness, j.spring_rest));
            }
            let child = if k + 1 == joints.len() {
                name.clone()
            } else {
                let between = format!("{name}.{}", j.name);
                self.robot.links.push(link(&between, None));
                between
            };
            placed *= Translation3::from(j.pos - at);
            at = j.pos;
            (self.joint_of.entry(name.clone()).or_default()).push(j.name.clone());
            let joint = j.urdf(&parent, &child, placed, &mut self.armature);
            self.robot.joints.push(joint);
            (parent, placed) = (child, Isometry3::identity());
        }
        self.children(node, &name, shift, class)
    }

    /// The body's inertial (its `<inertial>`, or its geoms' solid as `<compiler
    /// inertiafromgeom>` says), in its link's frame (the body's moved by `shift`). A body of the
    /// fixed base (`grounded`) takes none from its geoms: its mass does not move, and MuJoCo
    /// may take it from meshes (Menagerie's SO-ARM100 base).
    fn inertial(
        &self,
        body: Node<'a, 'i>,
        class: &'a str,
        shift: Vector3<f64>,
        grounded: bool,
    ) -> Result<Option<urdf_rs::Inertial>, Problem> {
        let explicit = body.children().find(|n| n.has_tag_name("inertial"));
        let mode = self.compiler.inertia_from_geoms;
        let node = match (mode, explicit) {
            (FromGeoms::Always, _) | (_, None) if grounded => return Ok(None),
            (FromGeoms::Always, _) | (FromGeoms::Auto, None) => {
                let solid = geom_inertia::of_body(body, class, &self.classes, &self.compiler)?;
                return Ok(solid.map(|s| from_geoms(&s, shift)));
            }
            (_, Some(node)) => node,
            (FromGeoms::Never, None) => return Ok(None),
        };
        let pos = Vector3::from(numbers::<3>(node, "pos")?);
        let [mass] = numbers::<1>(node, "mass")?;
        let (rotation, inertia) =
            match (node.attribute("diaginertia"), node.attribute("fullinertia")) {
                (Some(_), None) => {
                    let [ixx, iyy, izz] = numbers::<3>(node, "diaginertia")?;
                    let inertia = urdf_rs::Inertia {
                        ixx,
                        iyy,
                        izz,
                        ..Default::default()
                    };
                    (self.compiler.orientation(node)?, inertia)
                }
                (None, Some(_)) => {
                    let [ixx, iyy, izz, ixy, ixz, iyz] = numbers::<6>(node, "fullinertia")?;
                    if self.compiler.orientation(node)? != UnitQuaternion::identity() {
                        return Err((
                        element(node),
                        "fullinertia with an orientation (expected fullinertia in the body's frame)"
                            .into(),
                    ));
                    }
                    let inertia = urdf_rs::Inertia {
                        ixx,
                        iyy,
                        izz,
                        ixy,
                        ixz,
                        iyz,
                    };
                    (UnitQuaternion::identity(), inertia)
                }
                _ => {
                    return Err((
                        element(node),
                        "expected exactly one of diaginertia and fullinertia".into(),
                    ));
                }
            };
        Ok(Some(urdf_rs::Inertial {
            origin: pose(&Isometry3::from_parts((pos - shift).into(), rotation)),
            mass: urdf_rs::Mass { value: mass },
            inertia,
        }))
    }

    /// A `<joint>` of a body in class `class`, checked.
    fn joint(&mut self, node: Node<'a, 'i>, class: &'a str) -> Result<Joint, Problem> {
        self.classes.check(node)?;
        let get = |name: &str| self.classes.attribute(node, class, name);
        let number = |name: &str, default: f64| self.classes.number(node, class, name, default);
        let vector = |name: &str, default: [f64; 3]| -> Result<Vector3<f64>, Problem> {
            let v = self.classes.numbers::<3>(node, class, name)?;
            Ok(Vector3::from(v.unwrap_or(default)))
        };
        let slide = match get("type").unwrap_or("hinge") {
            "hinge" => false,
            "slide" => true,
            other => {
                return Err((
                    element(node),
                    format!("type=\"{other}\" is not supported (expected hinge or slide)"),
                ));
            }
        };
        let unit = if slide { 1.0 } else { self.compiler.angle };
        let range = match get("range") {
            None => None,
            Some(text) => Some(parse::<2>(text).ok_or_else(|| {
                (
                    element(node),
                    format!("range=\"{text}\": expected 2 finite numbers"),
                )
            })?),
        };
        let limited = match get("limited") {
            None | Some("auto") => range.is_some() && self.compiler.autolimits,
            Some(v) => flag(node, "limited", v)?,
        };
        let stiffness = number("stiffness", 0.0)?;
        self.count += 1;
        let name = node
            .attribute("name")
            .map_or_else(|| format!("joint{}", self.count), str::to_string);
        let axis = vector("axis", [0.0, 0.0, 1.0])?;
        if axis.norm() < 1e-12 {
            return Err((element(node), "axis is zero (expected a direction)".into()));
        }
        let joint = Joint {
            name,
            slide,
            pos: vector("pos", [0.0; 3])?,
            axis: axis.normalize(),
            range: range
                .filter(|_| limited)
                .map(|[lo, hi]| [lo * unit, hi * unit]),
            reference: number("ref", 0.0)? * unit,
            armature: number("armature", 0.0)?,
            damping: number("damping", 0.0)?,
            frictionloss: number("frictionloss", 0.0)?,
            stiffness,
            spring_rest: number("springref", 0.0)? * unit,
        };
        for (what, v) in [
            ("armature", joint.armature),
            ("damping", joint.damping),
            ("frictionloss", joint.frictionloss),
            ("stiffness", joint.stiffness),
        ] {
            if v < 0.0 {
                return Err((
                    element(node),
                    format!("{what}={v}: expected a non-negative number"),
                ));
            }
        }
        Ok(joint)
    }

    /// Checks that every active equality constraint of `<equality>` holds between joints the
    /// scenario locks (a closed loop of moving joints is not a serial chain).
    fn closed_by_locks(&self, equality: Node, locked: &HashSet<&str>) -> Result<(), Problem> {
        for c in equality.children().filter(Node::is_element) {
            if c.attribute("active") == Some("false") {
                continue;
            }
            let joints: Vec<&str> = match c.tag_name().name() {
                "joint" => ["joint1", "joint2"]
                    .iter()
                    .filter_map(|a| c.attribute(*a))
                    .collect(),
                "connect" | "weld" => (["body1", "body2"].iter())
                    .filter_map(|a| c.attribute(*a))
                    .filter_map(|b| self.joint_of.get(b))
                    .flatten()
                    .map(String::as_str)
                    .collect(),
                other => {
                    return Err((
                        element(c),
                        format!("<{other}> equality constraints are not supported"),
                    ));
                }
            };
            if let Some(free) = joints.iter().find(|j| !locked.contains(**j)) {
                return Err((
                    element(c),
                    format!(
                        "an equality constraint on joint \"{free}\", which moves: closed loops are \
                         not supported (expected its joints held: a scenario's `lock`, `export-mjcf --lock NAME=0`)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A `<joint>` as read (SI units, radians).
struct Joint {
    name: String,
    slide: bool,
    /// The joint's point in the body frame (m).
    pos: Vector3<f64>,
    /// Unit axis, body frame.
    axis: Vector3<f64>,
    range: Option<[f64; 2]>,
    reference: f64,
    armature: f64,
    damping: f64,
    frictionloss: f64,
    stiffness: f64,
    /// `springref` (rad or m).
    spring_rest: f64,
}

impl Joint {
    /// The URDF joint from `parent` to `child` whose child frame sits at `placed` (parent link
    /// frame) when the coordinate is `ref`; its armature recorded in `armature`.
    fn urdf(
        &self,
        parent: &str,
        child: &str,
        placed: Isometry3<f64>,
        armature: &mut HashMap<String, f64>,
    ) -> urdf_rs::Joint {
        armature.insert(self.name.clone(), self.armature);
        let axis = nalgebra::Unit::new_unchecked(self.axis);
        let at_zero = if self.slide {
            placed * Translation3::from(-self.reference * self.axis)
        } else {
            placed * UnitQuaternion::from_axis_angle(&axis, -self.reference)
        };
        let joint_type = match (self.slide, self.range) {
            (true, _) => urdf_rs::JointType::Prismatic,
            (false, Some(_)) => urdf_rs::JointType::Revolute,
            (false, None) => urdf_rs::JointType::Continuous,
        };
        let [lower, upper] = self.range.unwrap_or([-UNBOUNDED, UNBOUNDED]);
        urdf_rs::Joint {
            name: self.name.clone(),
            joint_type,
            origin: pose(&at_zero),
            parent: urdf_rs::LinkName {
                link: parent.into(),
            },
            child: urdf_rs::LinkName { link: child.into() },
            axis: urdf_rs::Axis {
                xyz: urdf_rs::Vec3(self.axis.into()),
            },
            limit: urdf_rs::JointLimit {
                lower,
                upper,
                effort: UNBOUNDED,
                velocity: UNBOUNDED,
                ..Default::default()
            },
            dynamics: Some(urdf_rs::Dynamics {
                damping: self.damping,
                friction: self.frictionloss,
            }),
            calibration: None,
            mimic: None,
            safety_controller: None,
        }
    }
}

/// The URDF inertial of `solid` (body frame) in the link frame (the body's moved by `shift`).
fn from_geoms(solid: &Solid, shift: Vector3<f64>) -> urdf_rs::Inertial {
    let i = &solid.inertia;
    urdf_rs::Inertial {
        origin: pose(&Isometry3::translation(
            solid.centroid.x - shift.x,
            solid.centroid.y - shift.y,
            solid.centroid.z - shift.z,
        )),
        mass: urdf_rs::Mass { value: solid.mass },
        inertia: urdf_rs::Inertia {
            ixx: i[(0, 0)],
            iyy: i[(1, 1)],
            izz: i[(2, 2)],
            ixy: i[(0, 1)],
            ixz: i[(0, 2)],
            iyz: i[(1, 2)],
        },
    }
}

/// A link of `name` with `inertial` (none: massless).
fn link(name: &str, inertial: Option<urdf_rs::Inertial>) -> urdf_rs::Link {
    urdf_rs::Link {
        name: name.into(),
        inertial: inertial.unwrap_or_else(|| urdf_rs::Inertial {
            origin: Default::default(),
            mass: urdf_rs::Mass { value: 0.0 },
            inertia: Default::default(),
        }),
        visual: Vec::new(),
        collision: Vec::new(),
    }
}

/// The fixed joint that welds `child` to `parent` at `placed`.
fn fixed(child: &str, parent: &str, placed: Isometry3<f64>, k: usize) -> urdf_rs::Joint {
    urdf_rs::Joint {
        name: format!("{child}.weld{k}"),
        joint_type: urdf_rs::JointType::Fixed,
        origin: pose(&placed),
        parent: urdf_rs::LinkName {
            link: parent.into(),
        },
        child: urdf_rs::LinkName { link: child.into() },
        axis: Default::default(),
        limit: Default::default(),
        dynamics: None,
        calibration: None,
        mimic: None,
        safety_controller: None,
    }
}

/// URDF's `<origin xyz rpy>` of a pose.
fn pose(p: &Isometry3<f64>) -> urdf_rs::Pose {
    urdf_rs::Pose {
        xyz: urdf_rs::Vec3(p.translation.vector.into()),
        rpy: urdf_rs::Vec3(rpy(&p.rotation.to_rotation_matrix())),
    }
}
