//! Reading a population dataset ([`crate::dataset::population`]): one arm at a time from its
//! shard's files, fetched through the row groups' statistics of the `arm` column, each shard's
//! files checked against its checksum list once per reader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use std::sync::OnceLock;

use crate::dataset::population::{
    Layout, read_description, shard_checksums, shard_files, shard_relative_files,
};
use crate::dataset::reader::{ParquetColumns, arm_rows};

use super::{Run, assemble, refuse_invalid};
use crate::dataset::DatasetError;

/// An open population directory.
pub struct PopulationReader {
    dir: PathBuf,
    layout: Layout,
    /// Per shard, the outcome of checking its files against its checksum list (once).
    /// Per shard, its checksum check, made once (the error shared by every read of the shard).
    verified: Vec<OnceLock<Result<(), std::sync::Arc<crate::dataset::DatasetError>>>>,
}

impl PopulationReader {
    /// Opens the population directory `dir` (reads its `population.json`).
    pub fn open(dir: &Path) -> Result<Self, DatasetError> {
        let layout = read_description(dir)?.layout();
        Ok(PopulationReader {
            dir: dir.to_owned(),
            layout,
            verified: (0..layout.shards()).map(|_| OnceLock::new()).collect(),
        })
    }

    /// How the population's arms are cut into shards.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The arms in complete shards (those whose manifests exist), in order: arms left out
    /// because they failed a validity gate are not among them.
    pub fn arms(&self) -> Result<Vec<usize>, DatasetError> {
        let mut arms = Vec::new();
        for s in 0..self.layout.shards() {
            let manifests = &shard_files(&self.dir, s)[3];
            if manifests.is_file() {
                arms.extend(arm_rows(manifests)?.into_iter().map(|(k, _)| k as usize));
            }
        }
        Ok(arms)
    }

    /// Reads arm `index`. The first read from a shard checks the shard's files against its
    /// checksum list.
    pub fn read(&self, index: usize) -> Result<Run, DatasetError> {
        if index >= self.layout.arms {
            return Err(DatasetError::Format {
                path: self.dir.clone(),
                message: format!(
                    "arm {index}: the population has arms 0 to {}",
                    self.layout.arms.saturating_sub(1)
                ),
            });
        }
        let s = self.layout.shard_of(index);
        let files = shard_files(&self.dir, s);
        if !files[3].is_file() {
            return Err(incomplete(&files[3], index, s));
        }
        self.verify(s)?;
        let [bodies, joints, truth, manifests] = files
            .each_ref()
            .map(|p| ParquetColumns::read_arm(p, index as u32));
        self.decode(index, &files[3], [bodies?, joints?, truth?, manifests?])
    }

    /// Reads the arms `arms` (in that order): the shards that hold many of them are read
    /// whole, once (in parallel), the others arm by arm.
    pub fn read_many(&self, arms: &[usize]) -> Result<Vec<Run>, DatasetError> {
        let mut by_shard: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &k in arms {
            by_shard.entry(self.layout.shard_of(k)).or_default().push(k);
        }
        let shards: Vec<(usize, Vec<usize>)> = by_shard.into_iter().collect();
        let read: Vec<BTreeMap<usize, Run>> = shards
            .par_iter()
            .map(|(s, wanted)| {
                if wanted.len() < WHOLE_SHARD {
                    return wanted.iter().map(|&k| Ok((k, self.read(k)?))).collect();
                }
                self.read_shard(*s, wanted)
            })
            .collect::<Result<_, DatasetError>>()?;
        let mut runs: BTreeMap<usize, Run> = read.into_iter().flatten().collect();
        arms.iter()
            .map(|k| runs.remove(k).map_or_else(|| self.read(*k), Ok))
            .collect()
    }

    /// The arms `wanted` of shard `s`, its files read whole.
    fn read_shard(&self, s: usize, wanted: &[usize]) -> Result<BTreeMap<usize, Run>, DatasetError> {
        let files = shard_files(&self.dir, s);
        if !files[3].is_file() {
            return Err(incomplete(&files[3], wanted[0], s));
        }
        self.verify(s)?;
        let [b, j, t, m] = files.each_ref().map(|p| ParquetColumns::read_by_arm(p));
        let mut tables = [b?, j?, t?, m?].map(|v| v.into_iter().collect::<BTreeMap<_, _>>());
        let mut out = BTreeMap::new();
        for &k in wanted {
            let rows = tables.each_mut().map(|m| m.remove(&(k as u32)));
            let [Some(b), Some(j), Some(t), Some(m)] = rows else {
                return Err(absent(&files[3], k));
            };
            out.insert(k, self.decode(k, &files[3], [b, j, t, m])?);
        }
        Ok(out)
    }

    /// Arm `index`'s run from its rows of the shard's four tables.
    fn decode(
        &self,
        index: usize,
        manifest_path: &Path,
        [bodies, joints, truth, manifests]: [ParquetColumns; 4],
    ) -> Result<Run, DatasetError> {
        let Some(text) = manifests.utf8("manifest")?.into_iter().next() else {
            return Err(absent(manifest_path, index));
        };
        let manifest: crate::dataset::Manifest =
            serde_json::from_str(&text).map_err(|e| DatasetError::Format {
                path: manifest_path.to_owned(),
                message: format!("arm {index}'s manifest: {e}"),
            })?;
        refuse_invalid(&manifest, manifest_path)?;
        assemble(&self.dir, [bodies, joints, truth], manifest, manifest_path)
    }

    /// Checks shard `s`'s files against its checksum list, once per reader.
    fn verify(&self, s: usize) -> Result<(), DatasetError> {
        let list = shard_checksums(&self.dir, s);
        let outcome = self.verified[s].get_or_init(|| {
            let relative = shard_relative_files(s);
            let names: Vec<&str> = relative.iter().map(String::as_str).collect();
            let files = shard_files(&self.dir, s);
            let required: Vec<&str> = names
                .into_iter()
                .zip(&files)
                .filter(|(_, f)| f.exists())
                .map(|(n, _)| n)
                .collect();
            crate::dataset::checksum::verify(&list, &self.dir, &required)
                .map_err(std::sync::Arc::new)
        });
        outcome.clone().map_err(|e| DatasetError::Format {
            path: list,
            message: e.to_string(),
        })
    }
}

/// Arms a shard must be asked for at least to be read whole by [`PopulationReader::read_many`]
/// (a row group holds [`crate::dataset::population::ARMS_PER_ROW_GROUP`] arms).
const WHOLE_SHARD: usize = 8;

/// Arm `index`'s shard `s` has no manifests (not generated, or killed while being written).
fn incomplete(manifests: &Path, index: usize, s: usize) -> DatasetError {
    DatasetError::Format {
        path: manifests.to_owned(),
        message: format!("arm {index}: its shard {s} is not complete (no manifests)"),
    }
}

/// Arm `index` is not among its shard's arms.
fn absent(manifests: &Path, index: usize) -> DatasetError {
    DatasetError::Format {
        path: manifests.to_owned(),
        message: format!(
            "arm {index} is not in its shard (it failed a validity gate and was left out)"
        ),
    }
}

/// Reads arm `index` of the population dataset `out` (its shard's files checked first; to read
/// many arms, open a [`PopulationReader`] once, which checks each shard once).
pub fn read_population_arm(out: &Path, index: usize) -> Result<Run, DatasetError> {
    PopulationReader::open(out)?.read(index)
}

/// The arms in complete shards of the population dataset `out`, in order.
pub fn population_arms(out: &Path) -> Result<Vec<usize>, DatasetError> {
    PopulationReader::open(out)?.arms()
}
