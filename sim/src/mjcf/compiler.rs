//! `<compiler>`: how the file writes angles and where bodies' inertias come from.

use roxmltree::Node;

use super::element::{Problem, element};

/// The `<compiler>` settings the reader uses: how the file writes angles, where bodies' inertias
/// come from.
#[derive(Clone, Debug)]
pub(super) struct Compiler {
    /// Radians per unit of the file's angles (`angle="degree"`, MuJoCo's default: π/180).
    pub angle: f64,
    /// `eulerseq`: three of `xyzXYZ` (lowercase: about the moving axes).
    pub eulerseq: Vec<char>,
    /// `autolimits` (default true): a joint with a `range` is limited unless `limited="false"`.
    pub autolimits: bool,
    /// `inertiafromgeom`: where a body's inertia comes from its geoms.
    pub inertia_from_geoms: FromGeoms,
    /// `inertiagrouprange` (default `0 5`): the geom groups that add to a body's inertia.
    pub inertia_groups: [i64; 2],
}

/// `<compiler inertiafromgeom>`: which bodies take their mass and inertia from their geoms
/// ([`super::geom_inertia`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FromGeoms {
    /// `false`: none (a body without `<inertial>` is massless).
    Never,
    /// `auto` (MuJoCo's default): the bodies without `<inertial>`.
    Auto,
    /// `true`: every body, its `<inertial>` ignored.
    Always,
}

/// `<compiler>` attributes that change bodies' masses and inertias after they are read, with
/// the value under which they change nothing (MuJoCo's defaults).
const MASS_SETTINGS: [(&str, &str); 4] = [
    ("boundmass", "0"),
    ("boundinertia", "0"),
    ("settotalmass", "-1"),
    ("balanceinertia", "false"),
];

impl Compiler {
    /// The file's `<compiler>` settings (MuJoCo's defaults where absent).
    pub fn of(root: Node) -> Result<Self, Problem> {
        let mut c = Compiler {
            angle: std::f64::consts::PI / 180.0,
            eulerseq: vec!['x', 'y', 'z'],
            autolimits: true,
            inertia_from_geoms: FromGeoms::Auto,
            inertia_groups: [0, 5],
        };
        for node in root.children().filter(|n| n.has_tag_name("compiler")) {
            match node.attribute("angle") {
                Some("radian") => c.angle = 1.0,
                Some("degree") => c.angle = std::f64::consts::PI / 180.0,
                Some(other) => {
                    return Err((
                        element(node),
                        format!("angle=\"{other}\" (expected \"radian\" or \"degree\")"),
                    ));
                }
                None => {}
            }
            if let Some(seq) = node.attribute("eulerseq") {
                let chars: Vec<char> = seq.chars().collect();
                if chars.len() != 3 || !chars.iter().all(|c| "xyzXYZ".contains(*c)) {
                    return Err((
                        element(node),
                        format!("eulerseq=\"{seq}\" (expected three of x, y, z, X, Y, Z)"),
                    ));
                }
                c.eulerseq = chars;
            }
            if let Some(v) = node.attribute("autolimits") {
                c.autolimits = flag(node, "autolimits", v)?;
            }
            c.inertia_from_geoms = match node.attribute("inertiafromgeom") {
                None => c.inertia_from_geoms,
                Some("auto") => FromGeoms::Auto,
                Some("true") => FromGeoms::Always,
                Some("false") => FromGeoms::Never,
                Some(other) => {
                    return Err((
                        element(node),
                        format!(
                            "inertiafromgeom=\"{other}\" (expected \"auto\", \"true\" or \"false\")"
                        ),
                    ));
                }
            };
            if let Some(text) = node.attribute("inertiagrouprange") {
                let groups: Option<Vec<i64>> =
                    (text.split_whitespace()).map(|t| t.parse().ok()).collect();
                c.inertia_groups = (groups.and_then(|g| g.try_into().ok())).ok_or_else(|| {
                    (
                        element(node),
                        format!("inertiagrouprange=\"{text}\": expected two integers"),
                    )
                })?;
            }
            for (name, neutral) in MASS_SETTINGS {
                let value = node.attribute(name);
                let same = value.is_none_or(|v| {
                    v == neutral
                        || (v.parse::<f64>().ok())
                            .zip(neutral.parse::<f64>().ok())
                            .is_some_and(|(a, b)| a == b)
                });
                if !same {
                    return Err((
                        element(node),
                        format!(
                            "{name}=\"{}\": changing the bodies' masses and inertias after \
                             reading them is not supported (expected {name}=\"{neutral}\", \
                             MuJoCo's default, and the numbers in the bodies)",
                            value.unwrap_or_default()
                        ),
                    ));
                }
            }
        }
        Ok(c)
    }
}

/// A boolean attribute.
pub(super) fn flag(node: Node, name: &str, value: &str) -> Result<bool, Problem> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err((
            element(node),
            format!("{name}=\"{other}\" (expected \"true\" or \"false\")"),
        )),
    }
}
