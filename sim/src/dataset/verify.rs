//! Checking a population dataset assembled from shards (`sim population verify DIR`): every
//! arm `0..arms` of its `population.json` present in its shard, no file that is not one of a
//! shard's files (a second copy, a stray partition, a leftover `.partial/`), and every arm
//! valid: its shard's files matching their checksum list (`checksums/shard=NNNNN.sha256`), its
//! manifest readable, naming that arm and not marked invalid, its rows in each table as many as
//! the manifest implies, its inverse-dynamics check within [`MAX_RNEA_RESIDUAL`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::Manifest;
use super::checksum;
use super::population::{
    Layout, POPULATION_FILE, read_description, shard_checksums, shard_files, shard_relative_files,
};
use crate::dataset::reader::{ParquetColumns, arm_rows};

/// Largest `checks.rnea_max_rel_residual` an arm may have (the readings are exact to rounding,
/// ~1e-15; anything near this is a broken run).
pub const MAX_RNEA_RESIDUAL: f64 = 1e-9;

/// What is wrong with a population directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verification {
    /// Arms the population declares.
    pub arms: usize,
    /// Arms present, complete and valid.
    pub valid: usize,
    /// Arms in no complete shard, or left out of theirs (a validity gate failed).
    pub missing: Vec<usize>,
    /// Arms present but invalid, with the reason.
    pub invalid: Vec<(usize, ArmFault)>,
    /// Files that belong to no shard of the population (duplicates, strays, leftovers).
    pub unexpected: Vec<PathBuf>,
}

impl Verification {
    /// Whether the population is whole: every arm valid, nothing else.
    pub fn is_whole(&self) -> bool {
        self.missing.is_empty() && self.invalid.is_empty() && self.unexpected.is_empty()
    }
}

/// Why an arm present in a population is not valid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArmFault {
    /// Its shard as a whole: a file missing from or not matching its checksum list, or a file
    /// unreadable (the reader's message).
    #[error("{0}")]
    Shard(String),
    /// The shard's manifests name an arm outside the shard.
    #[error("{}: arm {arm} is not one of the shard's arms {range:?}", file.display())]
    Foreign {
        /// The manifests' file.
        file: PathBuf,
        /// The arm named.
        arm: u32,
        /// The shard's arms.
        range: std::ops::Range<usize>,
    },
    /// Its manifest is not JSON of the schema (the parser's message).
    #[error("manifest: {0}")]
    Manifest(String),
    /// Its manifest names another run.
    #[error("manifest names run {run:?}, not arm {arm}")]
    OtherArm {
        /// The run named.
        run: String,
        /// The arm.
        arm: usize,
    },
    /// Its manifest marks it invalid (a validity gate kept it).
    #[error("marked invalid: {0}")]
    MarkedInvalid(String),
    /// Its inverse-dynamics check is NaN or above [`MAX_RNEA_RESIDUAL`].
    #[error("checks.rnea_max_rel_residual = {0:e} (at most {MAX_RNEA_RESIDUAL:e})")]
    Residual(f64),
    /// A table holds another number of its rows than its manifest implies.
    #[error("{table}: {got} rows, expected {want} ({samples} samples)")]
    Rows {
        /// The table.
        table: &'static str,
        /// Its rows of the arm.
        got: usize,
        /// Those the manifest implies.
        want: usize,
        /// The manifest's samples.
        samples: usize,
    },
}

/// A population directory that cannot be verified at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// `population.json` is missing, unreadable or of another layout.
    #[error(transparent)]
    Description(#[from] super::DatasetError),
    /// The directory cannot be listed.
    #[error("{path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Verifies the population directory `out` (its shards in parallel).
pub fn verify(out: &Path) -> Result<Verification, VerifyError> {
    let layout = read_description(out)?.layout();
    let mut v = Verification {
        arms: layout.arms,
        ..Default::default()
    };
    let mut expected: BTreeSet<PathBuf> = [out.join(POPULATION_FILE)].into();
    for s in 0..layout.shards() {
        expected.extend(shard_files(out, s));
        expected.insert(shard_checksums(out, s));
    }
    let shards: Vec<ShardCheck> = (0..layout.shards())
        .into_par_iter()
        .map(|s| check_shard(out, layout, s))
        .collect();
    for c in shards {
        v.valid += c.valid;
        v.missing.extend(c.missing);
        v.invalid.extend(c.invalid);
    }
    let mut present = Vec::new();
    list_files(out, &mut present)?;
    v.unexpected = present
        .into_iter()
        .filter(|p| !expected.contains(p))
        .collect();
    Ok(v)
}

/// One shard's part of a [`Verification`].
#[derive(Default)]
struct ShardCheck {
    valid: usize,
    missing: Vec<usize>,
    invalid: Vec<(usize, ArmFault)>,
}

/// Checks shard `s`: its checksums, then each arm its manifests name.
fn check_shard(out: &Path, layout: Layout, s: usize) -> ShardCheck {
    let arms = layout.arms_of(s);
    let mut c = ShardCheck::default();
    let files = shard_files(out, s);
    if !files[3].is_file() {
        c.missing.extend(arms);
        return c;
    }
    match shard_arms(out, s, &files, &arms) {
        Err(reason) => c.invalid.extend(arms.map(|k| (k, reason.clone()))),
        Ok(found) => {
            for k in arms {
                match found.get(&k) {
                    None => c.missing.push(k),
                    Some(Ok(())) => c.valid += 1,
                    Some(Err(reason)) => c.invalid.push((k, reason.clone())),
                }
            }
        }
    }
    c
}

/// The arms shard `s` holds, each checked; `Err`: the shard as a whole is unusable.
fn shard_arms(
    out: &Path,
    s: usize,
    files: &[PathBuf; 4],
    range: &std::ops::Range<usize>,
) -> Result<BTreeMap<usize, Result<(), ArmFault>>, ArmFault> {
    let relative = shard_relative_files(s);
    // Every file of the shard that exists must be listed (and match).
    let required: Vec<&str> = relative
        .iter()
        .zip(files)
        .filter(|(_, f)| f.exists())
        .map(|(r, _)| r.as_str())
        .collect();
    let shard = |e: super::DatasetError| ArmFault::Shard(e.to_string());
    checksum::verify(&shard_checksums(out, s), out, &required).map_err(shard)?;
    let m = ParquetColumns::read(&files[3]).map_err(shard)?;
    let (arms, texts) = (
        m.u32("arm").map_err(shard)?,
        m.utf8("manifest").map_err(shard)?,
    );
    if let Some(&arm) = arms.iter().find(|&&k| !range.contains(&(k as usize))) {
        return Err(ArmFault::Foreign {
            file: files[3].clone(),
            arm,
            range: range.clone(),
        });
    }
    let mut rows = Vec::new();
    if !arms.is_empty() {
        for f in &files[..3] {
            let runs = arm_rows(f).map_err(shard)?;
            rows.push(runs.into_iter().collect::<BTreeMap<u32, usize>>());
        }
    }
    Ok(arms
        .iter()
        .zip(&texts)
        .map(|(&k, text)| {
            let counts = rows.iter().map(|r| r.get(&k).copied().unwrap_or(0));
            (k as usize, check_arm(k as usize, text, counts))
        })
        .collect())
}

/// Arm `k`'s manifest and rows: readable, naming the arm, with row counts as its manifest
/// implies (`rows`: in bodies, joints, truth) and a passing inverse-dynamics check.
fn check_arm(k: usize, text: &str, rows: impl Iterator<Item = usize>) -> Result<(), ArmFault> {
    let m: Manifest = serde_json::from_str(text).map_err(|e| ArmFault::Manifest(e.to_string()))?;
    if !m.run_id.ends_with(&format!("arm={k:05}")) {
        return Err(ArmFault::OtherArm {
            run: m.run_id,
            arm: k,
        });
    }
    if let Some(invalid) = &m.invalid {
        return Err(ArmFault::MarkedInvalid(invalid.to_string()));
    }
    let residual = m.checks.rnea_max_rel_residual;
    if residual.is_nan() || residual > MAX_RNEA_RESIDUAL {
        return Err(ArmFault::Residual(residual));
    }
    let bodies = m.model.links.len();
    let joints = m.model.joint_ids().len();
    let want = [m.samples * bodies, m.samples * joints, bodies];
    for ((table, got), want) in ["bodies", "joints", "truth"]
        .into_iter()
        .zip(rows)
        .zip(want)
    {
        if got != want {
            return Err(ArmFault::Rows {
                table,
                got,
                want,
                samples: m.samples,
            });
        }
    }
    Ok(())
}

/// Every file under `dir`, recursively.
fn list_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), VerifyError> {
    let io = |source| VerifyError::Io {
        path: dir.to_owned(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            list_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
