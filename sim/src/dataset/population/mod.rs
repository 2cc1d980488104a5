//! A population dataset: its arms' runs in a few large Parquet files, one set per *shard* (a
//! block of consecutive arms), Hive-partitioned so that one directory per table reads as one
//! Parquet dataset (pyarrow, polars, DuckDB:
//! `read_parquet('OUT/bodies/*/*.parquet', hive_partitioning = true)`):
//!
//! ```text
//! OUT/population.json                         the population: scenario text, arms, shard size
//! OUT/bodies/shard=00003/part-0.parquet       bodies.parquet rows of arms 3000..3999
//! OUT/joints/shard=00003/part-0.parquet       joints.parquet rows of the same arms
//! OUT/truth/shard=00003/part-0.parquet        truth.parquet rows of the same arms
//! OUT/manifests/shard=00003/part-0.parquet    one row per arm: arm, run_id, manifest (JSON)
//! OUT/checksums/shard=00003.sha256            SHA-256 of the shard's four files (sha256sum -c, from OUT)
//! ```
//!
//! Every table's rows are the run tables of the dataset contract (`book/src/dataset.md`) with a
//! first column `arm` (u32, the arm's index), arms in increasing order, [`ARMS_PER_ROW_GROUP`]
//! arms per row group, so a reader fetches one arm through the row groups' statistics of `arm`
//! without reading the rest of the file. Arms that failed a validity gate are absent.
//!
//! A shard is complete when its manifests file exists: its files are written into a temporary
//! directory under `OUT/.partial/<host>-<pid>/` and moved into place, checksum list and
//! manifests last; a killed writer's temporaries are removed by the next run on its host
//! ([`super::temporary`]), and its shard without manifests is regenerated whole. Processes
//! given `--shard K/N` write the shards `s` with `s % N == K` into the same `OUT` (or into
//! separate directories that are merged by copying the trees); every file of a shard depends
//! only on the scenario and the shard's index.

mod layout;
mod shard_writer;
mod shards;

pub use layout::{
    ARMS_KEY, ARMS_PER_ROW_GROUP, DEFAULT_ARMS_PER_SHARD, Description, LAYOUT, Layout,
    POPULATION_FILE, TABLES, arms_value, check_no_other_layout, partition, read_description,
    shard_checksums, shard_complete, shard_files, shard_relative_files,
};
pub use shard_writer::ShardWriter;

use std::path::{Path, PathBuf};

use super::temporary;
use crate::dataset::{DatasetError, io};

/// Writes `population.json` (identical for every shard of one population), atomically: shards
/// running at the same time each write a temporary file and rename it into place.
pub(crate) fn write_description(out: &Path, description: &Description) -> Result<(), DatasetError> {
    std::fs::create_dir_all(out).map_err(io(out))?;
    let path = out.join(POPULATION_FILE);
    let tmp = out.join(temporary::name(&format!(".{POPULATION_FILE}.")));
    let text = serde_json::to_string_pretty(description).expect("serializes") + "\n";
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

/// This process's directory of temporaries under `OUT/.partial/` ([`temporary`]).
fn process_partial(out: &Path) -> PathBuf {
    out.join(".partial").join(temporary::name(""))
}

/// Removes the temporaries that writers of this host killed mid-way left in `out`: called
/// before a population is generated into it.
pub(crate) fn remove_stale(out: &Path) {
    temporary::remove_stale(&out.join(".partial"), "");
    temporary::remove_stale(out, &format!(".{POPULATION_FILE}."));
}

/// Removes this process's (empty) directory of temporaries; `.partial/` itself stays, since a
/// shard running beside this one may be about to write into it.
pub(crate) fn remove_own_partial(out: &Path) {
    let _ = std::fs::remove_dir(process_partial(out));
}
