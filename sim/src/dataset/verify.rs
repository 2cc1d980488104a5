//! Checking a population dataset assembled from shards (`sim population verify DIR`): every
//! arm `0..arms` of its `population.json` present and complete, no file that is not one of an
//! arm's files (a second copy, a stray partition, a leftover `.partial/`), and every arm valid:
//! its files matching its checksum list (`checksums/arm=NNNNN.sha256`), its manifest readable,
//! naming that arm and not marked invalid, its Parquet files readable with the row counts the
//! manifest implies, its inverse-dynamics check within [`MAX_RNEA_RESIDUAL`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};

use super::Manifest;
use super::checksum;
use super::population::{
    POPULATION_FILE, TABLES, arm_checksums, arm_files, arm_relative_files, partition,
};

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
    /// Arms with no manifest or a missing table file.
    pub missing: Vec<usize>,
    /// Arms present but invalid, with the reason.
    pub invalid: Vec<(usize, String)>,
    /// Files that belong to no arm of the population (duplicates, strays, leftovers).
    pub unexpected: Vec<PathBuf>,
}

impl Verification {
    /// Whether the population is whole: every arm valid, nothing else.
    pub fn is_whole(&self) -> bool {
        self.missing.is_empty() && self.invalid.is_empty() && self.unexpected.is_empty()
    }
}

/// A population directory that cannot be verified at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// `population.json` is missing or unreadable.
    #[error("{path}: {problem} (expected the population.json that `sim population` writes)")]
    Description {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The directory cannot be listed.
    #[error("{path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Verifies the population directory `out`.
pub fn verify(out: &Path) -> Result<Verification, VerifyError> {
    let arms = declared_arms(out)?;
    let mut v = Verification {
        arms,
        ..Default::default()
    };
    let mut expected: BTreeSet<PathBuf> = [out.join(POPULATION_FILE)].into();
    for k in 0..arms {
        let files = arm_files(out, k);
        let list = arm_checksums(out, k);
        expected.extend(files.iter().cloned());
        expected.insert(list.clone());
        if files.iter().chain([&list]).any(|f| !f.is_file()) {
            v.missing.push(k);
            continue;
        }
        let relative = arm_relative_files(k);
        let names: Vec<&str> = relative.iter().map(String::as_str).collect();
        let checked = checksum::verify(&list, out, &names).map_err(|e| e.to_string());
        match checked.and_then(|()| check_arm(k, &files)) {
            Ok(()) => v.valid += 1,
            Err(reason) => v.invalid.push((k, reason)),
        }
    }
    let mut present = Vec::new();
    list_files(out, &mut present)?;
    v.unexpected = present
        .into_iter()
        .filter(|p| !expected.contains(p))
        .collect();
    Ok(v)
}

/// `arms` of `population.json`.
fn declared_arms(out: &Path) -> Result<usize, VerifyError> {
    let path = out.join(POPULATION_FILE);
    let fail = |problem: String| VerifyError::Description {
        path: path.clone(),
        problem,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| fail(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    value["arms"]
        .as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| fail("no integer field `arms`".into()))
}

/// Arm `k`'s manifest and tables: readable, naming the arm, with consistent row counts and a
/// passing inverse-dynamics check.
fn check_arm(k: usize, files: &[PathBuf; 4]) -> Result<(), String> {
    let text = std::fs::read_to_string(&files[3]).map_err(|e| format!("manifest: {e}"))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| format!("manifest: {e}"))?;
    if !m.run_id.ends_with(&partition(k)) {
        return Err(format!("manifest names run {:?}, not arm {k}", m.run_id));
    }
    if let Some(invalid) = &m.invalid {
        return Err(format!("marked invalid: {invalid}"));
    }
    let residual = m.checks.rnea_max_rel_residual;
    if residual.is_nan() || residual > MAX_RNEA_RESIDUAL {
        return Err(format!(
            "checks.rnea_max_rel_residual = {residual:e} (at most {MAX_RNEA_RESIDUAL:e})"
        ));
    }
    let bodies = m.model.links.len();
    let joints = m.model.joint_ids().len();
    let rows = [m.samples * bodies, m.samples * joints, bodies];
    for ((table, _), (file, want)) in TABLES.iter().zip(files.iter().zip(rows)) {
        let got = parquet_rows(file).map_err(|e| format!("{table}: {e}"))?;
        if got != want {
            return Err(format!(
                "{table}: {got} rows, expected {want} ({} samples)",
                m.samples
            ));
        }
    }
    Ok(())
}

fn parquet_rows(path: &Path) -> Result<usize, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let reader = SerializedFileReader::new(file).map_err(|e| e.to_string())?;
    Ok(reader.metadata().file_metadata().num_rows() as usize)
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
