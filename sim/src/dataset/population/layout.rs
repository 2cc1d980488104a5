//! Where a population's arms live: shards of consecutive arms, their files and their
//! description (`population.json`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use super::shards::{DEFAULT_ARMS_PER_SHARD, Layout};
use crate::dataset::DatasetError;

/// File name of the population description.
pub const POPULATION_FILE: &str = "population.json";

/// The table directories of a population: the three run tables and the manifests, in the
/// order of [`shard_files`].
pub const TABLES: [&str; 4] = ["bodies", "joints", "truth", "manifests"];

/// Arms per row group of a shard's tables: the unit a reader of one arm decompresses.
pub const ARMS_PER_ROW_GROUP: usize = 32;

/// The `layout` of `population.json` for this layout (earlier versions wrote one directory
/// per arm and are not read).
pub const LAYOUT: &str = "shards/v1: bodies|joints|truth|manifests/shard=NNNNN/part-0.parquet \
     (column arm first), checksums/shard=NNNNN.sha256 (sim::dataset::population)";

/// `population.json`: what was generated, identical for every shard of one population.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Description {
    /// The scenario file's text.
    pub scenario: String,
    /// Where the scenario was read from, if from a file.
    pub scenario_path: Option<String>,
    /// Arms of the population (`0..arms`).
    pub arms: usize,
    /// Arms per shard ([`Layout`]).
    pub arms_per_shard: usize,
    /// The population's seed.
    pub seed: u64,
    /// [`LAYOUT`].
    pub layout: String,
}

impl Description {
    /// The shards of the population.
    pub fn layout(&self) -> Layout {
        Layout {
            arms: self.arms,
            arms_per_shard: self.arms_per_shard,
        }
    }
}

/// Reads `OUT/population.json`. `Err` names the file and what is wrong (missing, not JSON, a
/// population written in an earlier layout).
pub fn read_description(out: &Path) -> Result<Description, DatasetError> {
    let path = out.join(POPULATION_FILE);
    let fail = |message: String| DatasetError::Format {
        path: path.clone(),
        message,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        fail(format!(
            "{e} (expected the population.json that `sim population` writes)"
        ))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    if value.get("layout").and_then(|l| l.as_str()) != Some(LAYOUT) {
        return Err(fail(format!(
            "layout {}: expected {LAYOUT:?}; a population of an earlier version (one directory \
             per arm) is regenerated with `sim population`",
            value.get("layout").unwrap_or(&serde_json::Value::Null)
        )));
    }
    let d: Description = serde_json::from_value(value).map_err(|e| fail(e.to_string()))?;
    if d.arms_per_shard == 0 {
        return Err(fail("arms_per_shard: expected at least 1, got 0".into()));
    }
    Ok(d)
}

/// `Err` if `out` holds a population of another layout (the per-arm directories of earlier
/// versions): a generation into it would mix both, and tools globbing `OUT/bodies/*/*.parquet`
/// would read both.
pub fn check_no_other_layout(out: &Path) -> Result<(), DatasetError> {
    let path = out.join(POPULATION_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let layout = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("layout").and_then(|l| l.as_str()).map(str::to_owned));
    match layout {
        Some(l) if l != LAYOUT => Err(DatasetError::Format {
            path,
            message: format!(
                "layout {l:?}: a population of an earlier version (one directory per arm) is \
                 in this directory; remove it or write the population elsewhere"
            ),
        }),
        _ => Ok(()),
    }
}

/// The partition directory name of shard `shard`.
pub fn partition(shard: usize) -> String {
    format!("shard={shard:05}")
}

/// The paths of shard `shard`'s files relative to the population directory, in the order of
/// [`TABLES`], as its checksum list names them.
pub fn shard_relative_files(shard: usize) -> [String; 4] {
    let p = partition(shard);
    TABLES.map(|t| format!("{t}/{p}/part-0.parquet"))
}

/// Where the files of shard `shard` live, in the order of [`TABLES`].
pub fn shard_files(out: &Path, shard: usize) -> [PathBuf; 4] {
    shard_relative_files(shard).map(|r| out.join(r))
}

/// The checksum list of shard `shard` ([`crate::dataset::checksum`]; paths relative to `out`).
pub fn shard_checksums(out: &Path, shard: usize) -> PathBuf {
    out.join("checksums")
        .join(format!("{}.sha256", partition(shard)))
}

/// Key of the Parquet footer metadata that names a shard file's arms (`start..end`).
pub const ARMS_KEY: &str = "population_arms";

/// The value of [`ARMS_KEY`] for `arms`.
pub fn arms_value(arms: &std::ops::Range<usize>) -> String {
    format!("{}..{}", arms.start, arms.end)
}

/// Whether shard `shard` of `layout` is complete in `out`: its manifests file exists and was
/// written for the shard's arms (a population resumed with another arm count has a shorter
/// or longer last shard, which is written again).
pub fn shard_complete(out: &Path, layout: Layout, shard: usize) -> bool {
    let path = &shard_files(out, shard)[3];
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(reader) = parquet::file::reader::SerializedFileReader::new(file) else {
        return false;
    };
    use parquet::file::reader::FileReader;
    let want = arms_value(&layout.arms_of(shard));
    reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .is_some_and(|kv| {
            kv.iter()
                .any(|e| e.key == ARMS_KEY && e.value.as_deref() == Some(want.as_str()))
        })
}
