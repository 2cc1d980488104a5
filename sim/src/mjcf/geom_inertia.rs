//! A body's mass and inertia taken from its geoms, as MuJoCo's compiler takes them
//! (`<compiler inertiafromgeom>`: `auto`, the default, for a body without `<inertial>`; `true`
//! for every body, replacing its `<inertial>`).
//!
//! Each geom whose `group` lies in `<compiler inertiagrouprange>` (default `0 5`) is a solid of
//! uniform density (`density`, default 1000 kg/m³, or the density that gives its `mass` where it
//! states one) in the geom's frame (`pos` and orientation, or `fromto`), with MuJoCo's volumes
//! and central principal moments (MJCF reference, `geom/@size`, `@fromto`; `size` holds radii and
//! half-lengths):
//!
//! | type | volume | principal moments, geom axes |
//! |---|---|---|
//! | sphere `r` | `4/3 π r³` | `2/5 m r²` (each) |
//! | capsule `r h` | `π r² 2h + 4/3 π r³` | a cylinder of length `2h` and two hemispheres at its ends |
//! | cylinder `r h` | `π r² 2h` | `m (3r² + 4h²)/12`, `m (3r² + 4h²)/12`, `m r²/2` |
//! | ellipsoid `a b c` | `4/3 π a b c` | `m (b² + c²)/5`, `m (a² + c²)/5`, `m (a² + b²)/5` |
//! | box `a b c` | `8 a b c` | `m (b² + c²)/3`, `m (a² + c²)/3`, `m (a² + b²)/3` |
//!
//! The capsule's moments: each hemisphere (mass `m_s/2`, `m_s` the two together) has `2/5 (m_s/2)
//! r²` about a diameter of its flat face, and its centroid `3r/8` from that face, so about the
//! capsule's centre the two add `m_s (2/5 r² + h²/4 + 3hr/8)` across the axis and `2/5 m_s r²`
//! along it. Placed by `fromto`, a box or an ellipsoid is square or round across, of half-size
//! `size[0]`, whatever else `size` says, as MuJoCo (3.3.7) compiles it. The body's solid is the geoms' sum: mass, centroid, and the tensor about that
//! centroid (each geom's turned into the body frame and moved by the parallel-axis theorem).
//!
//! A geom that adds no mass (`mass="0"`, `density="0"`, or its group outside the range) is
//! skipped whatever its type. A mesh, height field, SDF or plane that would add mass is refused,
//! naming it: MuJoCo takes a mesh's volume and inertia from its triangles, which are not read
//! here; so is `shellinertia="true"` (mass on the surface).

use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use roxmltree::Node;

use super::classes::Classes;
use super::compiler::Compiler;
use super::element::{Problem, element};

/// A rigid solid: its mass, centroid and central inertia tensor, in one frame.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Solid {
    /// Mass (kg).
    pub mass: f64,
    /// Centroid (m).
    pub centroid: Vector3<f64>,
    /// Inertia tensor about the centroid (kg·m²).
    pub inertia: Matrix3<f64>,
}

impl Solid {
    /// The union of `solids` (none, or no mass: `None`).
    pub fn sum(solids: &[Solid]) -> Option<Solid> {
        let mass: f64 = solids.iter().map(|s| s.mass).sum();
        if mass <= 0.0 {
            return None;
        }
        let centroid = solids
            .iter()
            .fold(Vector3::zeros(), |c, s| c + s.centroid * s.mass)
            / mass;
        let inertia = solids.iter().fold(Matrix3::zeros(), |i, s| {
            let d = s.centroid - centroid;
            i + s.inertia + (Matrix3::identity() * d.norm_squared() - d * d.transpose()) * s.mass
        });
        Some(Solid {
            mass,
            centroid,
            inertia,
        })
    }
}

/// The solid of the geoms of `body` (its class `class`) that carry mass, in the body's frame
/// (`None` where none does).
pub(super) fn of_body<'a, 'i>(
    body: Node<'a, 'i>,
    class: &'a str,
    classes: &Classes<'a, 'i>,
    compiler: &Compiler,
) -> Result<Option<Solid>, Problem> {
    let mut solids = Vec::new();
    for geom in body.children().filter(|n| n.has_tag_name("geom")) {
        if let Some(solid) = Geom::read(geom, class, classes, compiler)?.solid()? {
            solids.push(solid);
        }
    }
    Ok(Solid::sum(&solids))
}

/// One `<geom>` as its attributes (its own, else its class's) say.
struct Geom<'a, 'i> {
    node: Node<'a, 'i>,
    kind: &'a str,
    /// `size`, as many numbers as given (m).
    size: Vec<f64>,
    /// `mass` where stated (kg), else `density` (kg/m³).
    mass: Option<f64>,
    density: f64,
    /// The geom's frame in the body's.
    position: Vector3<f64>,
    rotation: UnitQuaternion<f64>,
    /// Whether it adds to the body's inertia (its group in the range and `shellinertia` false).
    counted: bool,
}

impl<'a, 'i> Geom<'a, 'i> {
    fn read(
        node: Node<'a, 'i>,
        class: &'a str,
        classes: &Classes<'a, 'i>,
        compiler: &Compiler,
    ) -> Result<Self, Problem> {
        let get = |name: &str| classes.attribute(node, class, name);
        let numbers = |name: &str| -> Result<Option<Vec<f64>>, Problem> {
            let Some(text) = get(name) else {
                return Ok(None);
            };
            let values: Option<Vec<f64>> =
                (text.split_whitespace().map(|t| t.parse::<f64>().ok())).collect();
            match values {
                Some(v) if v.iter().all(|x| x.is_finite()) => Ok(Some(v)),
                _ => Err((
                    element(node),
                    format!("{name}=\"{text}\": expected finite numbers"),
                )),
            }
        };
        let one = |name: &str| -> Result<Option<f64>, Problem> {
            match numbers(name)?.as_deref() {
                None => Ok(None),
                Some([v]) if *v >= 0.0 => Ok(Some(*v)),
                Some(_) => Err((
                    element(node),
                    format!("{name}: expected one non-negative number"),
                )),
            }
        };
        let group = match get("group") {
            None => 0,
            Some(text) => text.trim().parse::<i64>().map_err(|_| {
                (
                    element(node),
                    format!("group=\"{text}\": expected an integer"),
                )
            })?,
        };
        let [low, high] = compiler.inertia_groups;
        let shell = get("shellinertia") == Some("true");
        let mut geom = Geom {
            node,
            kind: get("type").unwrap_or("sphere"),
            size: numbers("size")?.unwrap_or_default(),
            mass: one("mass")?,
            density: one("density")?.unwrap_or(1000.0),
            position: Vector3::from(
                classes
                    .numbers::<3>(node, class, "pos")?
                    .unwrap_or([0.0; 3]),
            ),
            rotation: compiler.orientation(node)?,
            counted: (low..=high).contains(&group),
        };
        if let Some(ends) = numbers("fromto")? {
            geom.along(&ends)?;
        }
        if geom.counted && shell && geom.mass != Some(0.0) && geom.density != 0.0 {
            return Err((
                element(node),
                "shellinertia=\"true\": a shell's inertia is not supported (expected a solid geom, \
                 or an <inertial> in its body)"
                    .into(),
            ));
        }
        Ok(geom)
    }

    /// Places the geom by `fromto` (its two end points, body frame): centred between them, its
    /// z axis along them, its half-length half their distance. Its cross-section is round or
    /// square, so its turn about that axis does not change its inertia.
    fn along(&mut self, ends: &[f64]) -> Result<(), Problem> {
        let bad = |what: String| Err((element(self.node), what));
        let &[x0, y0, z0, x1, y1, z1] = ends else {
            return bad("fromto: expected 6 numbers (two points x y z)".into());
        };
        let (from, to) = (Vector3::new(x0, y0, z0), Vector3::new(x1, y1, z1));
        let Some(axis) = (to - from).try_normalize(1e-12) else {
            return bad("fromto: the two points are the same (expected a segment)".into());
        };
        let half = (to - from).norm() / 2.0;
        let Some(&width) = self.size.first() else {
            return bad("fromto needs size's first number, the radius or half-width (m)".into());
        };
        self.size = match self.kind {
            "capsule" | "cylinder" => vec![width, half],
            // MuJoCo (3.3.7) gives a box or ellipsoid along a segment the half-size size[0]
            // across both its x and y axes, whatever else size says.
            "box" | "ellipsoid" => vec![width, width, half],
            kind => {
                return bad(format!(
                    "fromto on a {kind} (expected a capsule, cylinder, box or ellipsoid)"
                ));
            }
        };
        self.position = (from + to) / 2.0;
        self.rotation =
            UnitQuaternion::rotation_between(&Vector3::z(), &axis).unwrap_or_else(|| {
                UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
            });
        Ok(())
    }

    /// The geom's solid in the body frame (`None`: it adds no mass).
    fn solid(&self) -> Result<Option<Solid>, Problem> {
        if !self.counted || self.mass == Some(0.0) || self.density == 0.0 {
            return Ok(None);
        }
        let (volume, moments) = self.shape()?;
        let mass = self.mass.unwrap_or(self.density * volume);
        let r = self.rotation.to_rotation_matrix();
        let inertia =
            r.matrix() * Matrix3::from_diagonal(&(moments * mass)) * r.matrix().transpose();
        Ok(Some(Solid {
            mass,
            centroid: self.position,
            inertia,
        }))
    }

    /// The geom's volume (m³) and its central principal moments per unit mass (m²), geom axes.
    fn shape(&self) -> Result<(f64, Vector3<f64>), Problem> {
        use std::f64::consts::PI;
        let need = |n: usize| -> Result<&[f64], Problem> {
            match self.size.get(..n) {
                Some(s) if s.iter().all(|v| *v > 0.0) => Ok(s),
                _ => Err((
                    element(self.node),
                    format!(
                        "a {} needs {n} positive sizes (radii and half-lengths, m) to weigh it; \
                         size is {:?}",
                        self.kind, self.size
                    ),
                )),
            }
        };
        Ok(match self.kind {
            "sphere" => {
                let r = need(1)?[0];
                (4.0 / 3.0 * PI * r.powi(3), Vector3::repeat(0.4 * r * r))
            }
            "capsule" => {
                let (r, h) = need(2).map(|s| (s[0], s[1]))?;
                let cylinder = PI * r * r * 2.0 * h;
                let sphere = 4.0 / 3.0 * PI * r.powi(3);
                let volume = cylinder + sphere;
                let (mc, ms) = (cylinder / volume, sphere / volume);
                let across = mc * (3.0 * r * r + 4.0 * h * h) / 12.0
                    + ms * (0.4 * r * r + h * h + 0.75 * h * r);
                let along = mc * r * r / 2.0 + ms * 0.4 * r * r;
                (volume, Vector3::new(across, across, along))
            }
            "cylinder" => {
                let (r, h) = need(2).map(|s| (s[0], s[1]))?;
                let across = (3.0 * r * r + 4.0 * h * h) / 12.0;
                (
                    PI * r * r * 2.0 * h,
                    Vector3::new(across, across, r * r / 2.0),
                )
            }
            "ellipsoid" | "box" => {
                let (a, b, c) = need(3).map(|s| (s[0], s[1], s[2]))?;
                let (volume, k) = if self.kind == "box" {
                    (8.0 * a * b * c, 1.0 / 3.0)
                } else {
                    (4.0 / 3.0 * PI * a * b * c, 0.2)
                };
                let (a2, b2, c2) = (a * a, b * b, c * c);
                (volume, Vector3::new(b2 + c2, a2 + c2, a2 + b2) * k)
            }
            kind => {
                let what = match (kind, self.node.attribute("mesh")) {
                    ("mesh", Some(mesh)) => format!("mesh \"{mesh}\""),
                    _ => format!("a {kind}"),
                };
                return Err((
                    element(self.node),
                    format!(
                        "MuJoCo would take this body's inertia from {what}, which is not \
                         computed here (expected an <inertial> in the body, or the geom out of \
                         the inertia: mass=\"0\" or a group outside inertiagrouprange)"
                    ),
                ));
            }
        })
    }
}
