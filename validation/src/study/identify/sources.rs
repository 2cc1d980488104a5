//! The logs `identify` is given, one per run: each file, and each episode of a LeRobot dataset.

use std::path::{Path, PathBuf};

use crate::import::lerobot;

/// One log: a file (or bag), or one episode of a dataset.
#[derive(Clone, Debug)]
pub(super) struct Source {
    /// The file, bag or dataset.
    pub path: PathBuf,
    /// The dataset's episode.
    pub episode: Option<i64>,
    /// The run's id: the file's stem, or `<dataset>_episode_<k>`.
    pub id: String,
}

impl Source {
    /// The log as a person names it.
    pub fn name(&self) -> String {
        match self.episode {
            Some(e) => format!("{} (episode {e})", self.path.display()),
            None => self.path.display().to_string(),
        }
    }

    /// Imports the log into `run`.
    pub fn import(
        &self,
        o: &super::options::Options,
        run: &Path,
    ) -> crate::Result<sim::dataset::recorded::RecordedManifest> {
        Ok(crate::import::import(&crate::import::Options {
            recording: self.path.clone(),
            urdf: o.model.clone(),
            reading: o.reading.clone(),
            episode: self.episode,
            run_id: Some(self.id.clone()),
            out: run.to_path_buf(),
            force: true,
        })?)
    }
}

/// `logs`, each dataset expanded into its episodes; `Err` where two would share a run id.
pub(super) fn expand(logs: &[PathBuf]) -> crate::Result<Vec<Source>> {
    let mut out: Vec<Source> = Vec::new();
    for path in logs {
        let stem = run_id(path);
        if lerobot::is_dataset(path) {
            let dataset = lerobot::Dataset::read(path)?;
            out.extend(dataset.episodes().into_iter().map(|e| Source {
                path: path.clone(),
                episode: Some(e),
                id: format!("{stem}_episode_{e}"),
            }));
        } else {
            out.push(Source {
                path: path.clone(),
                episode: None,
                id: stem,
            });
        }
    }
    for (k, s) in out.iter().enumerate() {
        if let Some(other) = out[..k].iter().find(|o| o.id == s.id) {
            return Err(crate::Error::invalid(
                s.name(),
                format!(
                    "a log named apart from the others (`{}` also has the run id `{}`)",
                    other.name(),
                    s.id
                ),
            ));
        }
    }
    Ok(out)
}

/// The run id of a log: its file name without extension.
pub(super) fn run_id(log: &Path) -> String {
    log.file_stem()
        .map_or("log".into(), |s| s.to_string_lossy().into_owned())
}
