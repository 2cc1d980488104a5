//! A population dataset: every arm's run, laid out as Hive-style partitions so that one
//! directory per table reads as one Parquet dataset (pyarrow, polars, DuckDB:
//! `read_parquet('OUT/bodies/*/*.parquet', hive_partitioning = true)`):
//!
//! ```text
//! OUT/population.json                      the population: scenario text, arms, seed
//! OUT/bodies/arm=00042/part-0.parquet      bodies.parquet of arm 42 (dataset.md)
//! OUT/joints/arm=00042/part-0.parquet
//! OUT/truth/arm=00042/part-0.parquet
//! OUT/checksums/arm=00042.sha256           SHA-256 of the arm's four files (sha256sum -c, from OUT)
//! OUT/manifests/arm=00042.json             the arm's manifest, written last
//! ```
//!
//! An arm is complete when its manifest exists: its files are written into a temporary
//! directory under `OUT/.partial/<host>-<pid>/` and moved into place, checksum list and
//! manifest last; a killed writer's temporaries are removed by the next run on its host
//! ([`super::temporary`]), and its arm without a manifest is regenerated. Shards write disjoint
//! arms into the same `OUT` (or into separate directories that are merged by copying the
//! trees); every file of an arm depends only on the scenario and the arm's index.

use std::path::{Path, PathBuf};

use super::Manifest;
use super::checksum::{self, CHECKSUMS_FILE};
use super::columns::{BODIES_FILE, JOINTS_FILE, MANIFEST_FILE, RUN_FILES, TRUTH_FILE};
use super::temporary;
use super::writer::{DatasetError, io, write_files};
use crate::recording::Recording;

/// The table directories of a population, with the run file each partition holds.
pub const TABLES: [(&str, &str); 3] = [
    ("bodies", BODIES_FILE),
    ("joints", JOINTS_FILE),
    ("truth", TRUTH_FILE),
];

/// File name of the population description.
pub const POPULATION_FILE: &str = "population.json";

/// The partition directory name of arm `index`.
pub fn partition(index: usize) -> String {
    format!("arm={index:05}")
}

/// Where the files of arm `index` live: `(bodies, joints, truth, manifest)`.
pub fn arm_files(out: &Path, index: usize) -> [PathBuf; 4] {
    let p = partition(index);
    [
        out.join("bodies").join(&p).join("part-0.parquet"),
        out.join("joints").join(&p).join("part-0.parquet"),
        out.join("truth").join(&p).join("part-0.parquet"),
        out.join("manifests").join(format!("{p}.json")),
    ]
}

/// The checksum list of arm `index` ([`super::checksum`]; paths relative to `out`).
pub fn arm_checksums(out: &Path, index: usize) -> PathBuf {
    out.join("checksums")
        .join(format!("{}.sha256", partition(index)))
}

/// The paths of arm `index`'s four files relative to the population directory, as its
/// checksum list names them.
pub fn arm_relative_files(index: usize) -> [String; 4] {
    let p = partition(index);
    [
        format!("bodies/{p}/part-0.parquet"),
        format!("joints/{p}/part-0.parquet"),
        format!("truth/{p}/part-0.parquet"),
        format!("manifests/{p}.json"),
    ]
}

/// Whether arm `index` is complete in `out`.
pub fn arm_complete(out: &Path, index: usize) -> bool {
    arm_files(out, index)[3].exists()
}

/// Writes `population.json` (identical for every shard of one population), atomically: shards
/// running at the same time each write a temporary file and rename it into place.
pub fn write_description(out: &Path, description: &serde_json::Value) -> Result<(), DatasetError> {
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
pub fn remove_stale(out: &Path) {
    temporary::remove_stale(&out.join(".partial"), "");
    temporary::remove_stale(out, &format!(".{POPULATION_FILE}."));
}

/// Removes this process's (empty) directory of temporaries; `.partial/` itself stays, since a
/// shard running beside this one may be about to write into it.
pub fn remove_own_partial(out: &Path) {
    let _ = std::fs::remove_dir(process_partial(out));
}

/// Writes arm `index`'s files into `out`, replacing any earlier files of that arm.
pub fn write_arm(
    out: &Path,
    index: usize,
    rec: &Recording,
    manifest: &Manifest,
) -> Result<(), DatasetError> {
    let tmp = process_partial(out).join(partition(index));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    let result = (|| {
        write_files(&tmp, rec, manifest)?;
        let targets = arm_files(out, index);
        // An earlier, complete arm is incomplete from here until its new manifest lands.
        if targets[3].exists() {
            std::fs::remove_file(&targets[3]).map_err(io(&targets[3]))?;
        }
        // The run's checksum list, with the paths the population gives the files.
        let digests = checksum::read(&tmp.join(CHECKSUMS_FILE))?;
        let relative = arm_relative_files(index);
        let list = checksum::render(
            RUN_FILES
                .iter()
                .zip(&relative)
                .map(|(f, r)| (r.as_str(), digests[*f].as_str())),
        );
        let list_tmp = tmp.join("arm.sha256");
        std::fs::write(&list_tmp, list).map_err(io(&list_tmp))?;
        let mut moves: Vec<(PathBuf, PathBuf)> = RUN_FILES[..3]
            .iter()
            .zip(&targets)
            .map(|(f, to)| (tmp.join(f), to.clone()))
            .collect();
        moves.push((list_tmp, arm_checksums(out, index)));
        moves.push((tmp.join(MANIFEST_FILE), targets[3].clone()));
        for (from, to) in &moves {
            let dir = to.parent().expect("partition directory");
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            std::fs::rename(from, to).map_err(io(to))?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}
