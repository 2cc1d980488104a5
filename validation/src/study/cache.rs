//! Populations and trained models a study makes, cached under the output root (`populations/`,
//! `models/`) by a hash of what made them, so that a second run reuses them and a change invalidates them.
//!
//! - A population lives in `populations/<scenario name>-<key>`, the key hashing the scenario's
//!   text, its model as read (every inertial and joint, so an edited URDF counts) and the
//!   generator's version (`sim`'s). A larger request resumes the same directory (arm `k` is
//!   the same arm whatever the count).
//! - Models live in `models/<label>-<key>`, the key hashing their population's key, the arms
//!   they were trained on, the training settings and this crate's version; `made.json` beside
//!   them holds the training's own report, written last, so a directory without it (an
//!   interrupted training) is trained again; `models/<label>` links to the set the last run
//!   used, the name a user types (`--nim-models generated/models/nim_noise`).
//!
//! The hash is 64-bit FNV-1a over the length-prefixed parts: a cache key, not a checksum of
//! the data (the run files carry their SHA-256 sums).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use sim::scenario::Scenario;

use sim::population::Shard;
use sim::reading::{PopulationReader, Run};

/// 16 hex digits of the FNV-1a hash of `parts`, each prefixed by its length.
pub fn key(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        let len = (part.len() as u64).to_le_bytes();
        for b in len.iter().chain(part.as_bytes()) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The cache key of `scenario`'s population.
pub(crate) fn population_key(scenario: &Scenario) -> String {
    key(&[
        &scenario.source,
        &format!("{:?}", scenario.chain),
        sim::VERSION,
    ])
}

/// The cache directory of `scenario`'s population under `populations`.
pub(crate) fn population_dir(populations: &Path, scenario: &Scenario) -> PathBuf {
    let key = population_key(scenario);
    populations.join(format!("{}-{key}", scenario.file.name))
}

/// The first `arms` arms of `scenario`'s population, generated (or resumed) in its cache
/// directory under `populations`, and that directory.
pub fn population(
    populations: &Path,
    scenario: &Scenario,
    arms: usize,
) -> crate::Result<(Vec<Run>, PathBuf)> {
    let dir = population_dir(populations, scenario);
    let runs = generate(scenario, arms, &dir)?;
    Ok((runs, dir))
}

/// Models labelled `label` trained by `train` into the directory it is given (under `models`),
/// unless the cache holds them for the same `parts` (what made them: their population's key, arms, settings);
/// the training's report `T` (read back from `made.json` when cached) and the directory.
pub fn trained<T: Serialize + DeserializeOwned>(
    models: &Path,
    label: &str,
    parts: &[&str],
    train: impl FnOnce(&Path) -> crate::Result<T>,
) -> crate::Result<(T, PathBuf)> {
    let mut all = vec![label, env!("CARGO_PKG_VERSION")];
    all.extend_from_slice(parts);
    let dir = models.join(format!("{label}-{}", key(&all)));
    let made = dir.join("made.json");
    if let Ok(text) = std::fs::read_to_string(&made)
        && let Ok(report) = serde_json::from_str(&text)
    {
        println!("reused the models in {}", dir.display());
        link_latest(models, label, &dir)?;
        return Ok((report, dir));
    }
    let report = train(&dir)?;
    let text = serde_json::to_string_pretty(&report).expect("a training report serializes");
    crate::files::write_atomic(&made, &text).map_err(crate::Error::io(&made))?;
    link_latest(models, label, &dir)?;
    Ok((report, dir))
}

/// Points `<models>/<label>` at `dir` (a symbolic link, replaced; where the earlier layout left a
/// directory of that name, it is removed): the name a user types for the last run's models.
pub(crate) fn link_latest(models: &Path, label: &str, dir: &Path) -> crate::Result<()> {
    let link = models.join(label);
    match std::fs::symlink_metadata(&link) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(&link).map_err(crate::Error::io(&link))?,
        Ok(_) => std::fs::remove_file(&link).map_err(crate::Error::io(&link))?,
        Err(_) => {}
    }
    let target = dir
        .file_name()
        .map_or_else(|| dir.to_owned(), PathBuf::from);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&target, &link).map_err(crate::Error::io(&link))?;
    #[cfg(not(unix))]
    let _ = target;
    Ok(())
}

/// Generates (or resumes) `scenario`'s population with `arms` arms into `dir` and reads them.
pub fn generate(scenario: &Scenario, arms: usize, dir: &Path) -> crate::Result<Vec<Run>> {
    let s = scenario.edited(|f| {
        if let Some(p) = f.population.as_mut() {
            p.arms = arms;
        }
    })?;
    let t0 = std::time::Instant::now();
    let g = sim::batch::generate(&s, dir, Shard::ALL, false, None)?;
    if g.written > 0 {
        println!(
            "simulated {} arms into {} in {:.1} s ({:.2} arms/s)",
            g.written,
            dir.display(),
            t0.elapsed().as_secs_f64(),
            g.written as f64 / t0.elapsed().as_secs_f64()
        );
    }
    let reader = PopulationReader::open(dir)?;
    Ok(reader.read_many(&(0..arms).collect::<Vec<_>>())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_depends_on_every_part_and_on_where_parts_split() {
        let k = key(&["ab", "c"]);
        assert_eq!(k.len(), 16);
        assert_eq!(k, key(&["ab", "c"]));
        assert_ne!(k, key(&["a", "bc"]));
        assert_ne!(k, key(&["ab", "d"]));
        assert_ne!(k, key(&["ab"]));
    }
}
