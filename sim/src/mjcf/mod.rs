//! MJCF in: a MuJoCo model file (`<mujoco>`) read as the serial chain of [`crate::model`],
//! through the same rules as a URDF ([`crate::urdf::import`]: the fixed base, fixed children
//! merged into their parent, locked joints, a massless prismatic first body as a rail).
//!
//! What is read, as MuJoCo reads it (the MJCF reference,
//! <https://mujoco.readthedocs.io/en/stable/XMLreference.html>):
//! * `<worldbody>`'s body tree: each `<body>`'s `pos` and orientation (`quat`, `axisangle`,
//!   `euler` in `<compiler eulerseq>`, `xyaxes`, `zaxis`; a quaternion normalized), its
//!   `<inertial>` (`pos`, `mass`, `diaginertia` in the frame of its orientation, or
//!   `fullinertia` `ixx iyy izz ixy ixz iyz` in the body's frame) and its `<joint>`s (`hinge`
//!   or `slide`, acting in order with a massless link between two, so a first slide is a rail;
//!   `pos`, `axis`, `range` with `limited`/`autolimits`, `ref`, `armature`, `damping`,
//!   `frictionloss`, `stiffness` and `springref`). A body without a joint is welded to its
//!   parent.
//! * `<default>` classes, nested, with `class` and `childclass`, for joint and geom attributes.
//! * `<compiler angle>` (MuJoCo's default: degrees) for hinge ranges, `ref`, `euler` and
//!   `axisangle`; `<option gravity>` (MuJoCo's default `0 0 −9.81`), the chain's
//!   [`crate::model::Chain::gravity`]: the simulator, sensors and estimators take it from there
//!   (a scenario's `gravity` replaces it).
//! * Sites, cameras, lights, assets, sensors, contacts and keyframes do not enter the dynamics
//!   and are skipped, and so are geoms but where a body takes its inertia from them (below) and
//!   actuators but `<motor>`s on drives and `<position>` servos (below); a mesh the file names
//!   need not exist.
//! * `<include file>` ([`mod@include`]): the included file's elements in its place, as MuJoCo
//!   reads a Menagerie `scene.xml` (by [`read`], which knows the file's directory).
//! * `<compiler inertiafromgeom>` (`auto`, MuJoCo's default: a body without `<inertial>`;
//!   `true`: every body) and `inertiagrouprange`: the body's mass and inertia are its geoms',
//!   solids of uniform density (`density`, default 1000 kg/m³, or their `mass`) with MuJoCo's
//!   volumes and moments of spheres, capsules, cylinders, ellipsoids and boxes, placed by `pos`
//!   and orientation or `fromto` (the module `geom_inertia` holds the formulas).
//!
//! A joint's `armature` becomes the joint's [`crate::model::Joint::armature`] (the simulation
//! adds it to the joint's inertia, as a rotor's reflected inertia), `damping` its viscous
//! damping, `frictionloss` its Coulomb friction `F tanh(q̇/ε)` with `ε` =
//! [`crate::urdf::URDF_FRICTION_SMOOTHING`] (MuJoCo's is a constraint, dry friction without
//! smoothing), `stiffness` and `springref` its spring ([`crate::model::Joint::stiffness`]: the
//! joint feels `−k (q − springref)`, as in MuJoCo). A joint's `ref` is the coordinate at which
//! the body sits as the file places it: the chain's coordinate is MuJoCo's `qpos`.
//!
//! Refused, with the file, the element and its line: `<include>` in text read without its file
//! ([`from_str`]), a geom whose mass MuJoCo would take from a mesh (or a height field, SDF or
//! plane) or from its shell (`shellinertia`), `<compiler>` settings that change the bodies'
//! masses after reading (`boundmass`, `boundinertia`, `settotalmass`, `balanceinertia`), ball and
//! free joints, a massless link between two moving joints (but a rail's carriage), `<frame>`,
//! equality constraints between joints that move (lock them through the scenario's `lock`, as a
//! gripper's fingers), and tendon springs and spatial tendons with passive terms. A fixed tendon with passive terms is a coupled drive, and a
//! `<motor>` on each drive the transmission (the module `drives`): [`Mjcf::drives`] and
//! [`Mjcf::transmission`] hold them, the export writes them back, and a scenario, which cannot
//! simulate a coupled drive, refuses it. A `<position>` actuator on a moving joint is that
//! joint's position servo ([`Mjcf::servos`], the module `servos`).

pub mod actuation;
mod classes;
mod compiler;
mod drives;
mod element;
pub mod export;
mod geom_inertia;
pub mod include;
mod orientation;
mod robot;
mod servos;
mod text;

use std::path::Path;

use crate::drive_train::DriveTrain;
use crate::model::Chain;
pub use actuation::Actuation;
pub use export::{to_string, with_drives};

use crate::urdf::{Locks, UrdfError};

/// A model read from MJCF.
#[derive(Clone, Debug)]
pub struct Mjcf {
    /// The serial chain (zero configuration: every `qpos` 0).
    pub chain: Chain,
    /// The MJCF names of the chain's moving joints, in chain order.
    pub joints: Vec<String>,
    /// The drives the file states (module `drives`): its fixed tendons with passive terms
    /// (coupled drives, as [`export::with_drives`] writes them) and, with them, every joint's
    /// own terms; `None` where the file has neither drive tendons nor a motor per drive.
    pub drives: Option<DriveTrain>,
    /// `R` of `θm = R q` (drives × joints) from a `<motor>` on each drive, its `gear` times
    /// the drive's row of `R̃`.
    pub transmission: Option<Vec<Vec<f64>>>,
    /// Per moving joint (chain order), the position servo of its `<position>` actuator, where
    /// it has one (module `servos`).
    pub servos: Vec<Option<crate::position_servo::PositionServo>>,
}

impl Mjcf {
    /// The file's drives as the exporter writes them back ([`export::with_drives`]).
    pub fn actuation(&self) -> Option<Actuation<'_>> {
        self.drives.as_ref().map(|drives| Actuation {
            drives,
            transmission: self.transmission.as_deref(),
        })
    }
}

/// Reads the MJCF file at `path` with the joints of `locks` held at their positions, its
/// `<include>`s resolved against its directory.
pub fn read(path: &Path, locks: &Locks) -> Result<Mjcf, UrdfError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| UrdfError::Io {
        file: file.clone(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let text = include::expand(&text, path, dir)?;
    from_str(&text, &file, locks)
}

/// Reads MJCF text; `file` names it in errors.
pub fn from_str(text: &str, file: &str, locks: &Locks) -> Result<Mjcf, UrdfError> {
    let fail = |(element, problem): (String, String)| UrdfError::Unsupported {
        file: file.to_string(),
        element,
        problem,
    };
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        fail((
            "XML".into(),
            format!("not readable XML: {e} (expected an MJCF <mujoco> file)"),
        ))
    })?;
    let read = robot::Robot::of(&doc, locks).map_err(fail)?;
    let (mut chain, joints) = crate::urdf::import::from_robot(&read.robot, file, locks)?;
    chain.gravity = read.gravity;
    for (link, name) in chain.links.iter_mut().zip(&joints) {
        link.joint.armature = read.armature.get(name).copied().unwrap_or(0.0);
        (link.joint.stiffness, link.joint.spring_rest) =
            read.springs.get(name).copied().unwrap_or((0.0, 0.0));
    }
    let locked = locks.keys().map(String::as_str).collect();
    let (drives, transmission) = drives::read(&doc, &joints, &chain, &locked).map_err(fail)?;
    let servos = servos::read(&doc, &joints, &chain).map_err(fail)?;
    Ok(Mjcf {
        chain,
        joints,
        drives,
        transmission,
        servos,
    })
}

/// Whether `path` names an MJCF file (`.xml`) rather than a URDF.
pub fn is_mjcf(path: &str) -> bool {
    path.ends_with(".xml")
}
