//! `meta/info.json`: the dataset's version, rate and the names of its joint vectors.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::import::ImportError;

/// The versions whose layout this reader knows: v3.0 (`data/chunk-*/file-*.parquet`, many
/// episodes a file) and v2.x (`data/chunk-*/episode_*.parquet`, one episode a file).
pub const VERSIONS: [&str; 3] = ["v3.0", "v2.1", "v2.0"];

/// What the reader takes from `meta/info.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// The file.
    pub file: PathBuf,
    /// `codebase_version`.
    pub version: String,
    /// `fps` (Hz).
    pub fps: f64,
    /// The joint names of `observation.state` (LeRobot's motor names, `.pos` removed).
    pub state: Vec<String>,
    /// The joint names of `action`.
    pub action: Vec<String>,
}

impl Info {
    /// Reads `DATASET/meta/info.json`.
    pub fn read(dataset: &Path) -> Result<Self, ImportError> {
        let file = dataset.join("meta").join("info.json");
        let text = std::fs::read_to_string(&file).map_err(|source| ImportError::Io {
            file: file.clone(),
            source,
        })?;
        let json: Value = serde_json::from_str(&text).map_err(|e| ImportError::Format {
            file: file.clone(),
            message: e.to_string(),
        })?;
        let field = |field: &str, problem: String| ImportError::Field {
            file: file.clone(),
            field: field.into(),
            problem,
        };
        let version = json["codebase_version"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !VERSIONS.contains(&version.as_str()) {
            return Err(field(
                "codebase_version",
                format!(
                    "expected one of {VERSIONS:?}, got {:?}",
                    json["codebase_version"]
                ),
            ));
        }
        let fps = json["fps"].as_f64().filter(|f| *f > 0.0 && f.is_finite());
        let fps = fps.ok_or_else(|| field("fps", "expected a positive rate in Hz".into()))?;
        let names = |key: &str| -> Result<Vec<String>, ImportError> {
            let path = format!("features.{key}.names");
            let names = &json["features"][key]["names"];
            // v2.0 wrote `{"motors": [...]}`; later versions a plain list.
            let list = names.as_array().or_else(|| names["motors"].as_array());
            let list = list.ok_or_else(|| {
                field(
                    &path,
                    "missing: expected the list of the vector's motor names (`shoulder_pan.pos`, …)"
                        .into(),
                )
            })?;
            (list.iter())
                .map(|n| match n.as_str() {
                    Some(s) => Ok(s.strip_suffix(".pos").unwrap_or(s).to_owned()),
                    None => Err(field(&path, format!("expected names, got {n}"))),
                })
                .collect()
        };
        Ok(Info {
            version,
            fps,
            state: names("observation.state")?,
            action: names("action")?,
            file,
        })
    }
}
