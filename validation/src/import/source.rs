//! Where a recording's table comes from: a CSV or Parquet file, a ROS 2 bag, or one episode of
//! a LeRobot dataset; with the digest the run's manifest states.

use std::path::{Path, PathBuf};

use sim::dataset::recorded::{Config, SourceFile};

use super::options::Options;
use super::table::Table;
use super::{ImportError, bag, lerobot};

/// The recording of `o` as a table, the bag topics read, and its source files' digest.
pub(super) fn read(
    o: &Options,
    config: &Config,
    held: &[String],
) -> Result<(Table, Vec<String>, SourceFile), ImportError> {
    let r = &o.reading;
    let is_bag = bag::is_bag(&o.recording);
    let is_dataset = lerobot::is_dataset(&o.recording);
    if !r.topics.is_empty() && !is_bag {
        return Err(ImportError::command_line(
            "--topic",
            "expected only with a ROS 2 bag (.mcap, .db3 or its directory)".into(),
        ));
    }
    if o.episode.is_some() && !is_dataset {
        return Err(ImportError::command_line(
            "--episode",
            "expected only with a LeRobot dataset (a directory with meta/info.json)".into(),
        ));
    }
    if is_bag {
        let (table, topics) = bag::read(&o.recording, &r.topics)?;
        let files = bag::storage::files(&o.recording)?;
        return Ok((table, topics, SourceFile::of_all(&o.recording, &files)?));
    }
    if is_dataset {
        let dataset = lerobot::Dataset::read(&o.recording)?;
        let episode = match (o.episode, dataset.episodes().as_slice()) {
            (Some(e), _) => e,
            (None, [only]) => *only,
            (None, all) => {
                return Err(ImportError::command_line(
                    "--episode",
                    format!(
                        "missing: the dataset `{}` has {} episodes ({all:?}); import one, or \
                         identify them all at once",
                        o.recording.display(),
                        all.len()
                    ),
                ));
            }
        };
        let cfg = r
            .config
            .clone()
            .unwrap_or_else(|| PathBuf::from("(no --config)"));
        let units = lerobot::Units::new(config.lerobot.as_ref(), &cfg)?;
        let table = dataset.table(episode, &units, held)?;
        return Ok((table, Vec::new(), dataset_digest(&o.recording, &dataset)?));
    }
    Ok((
        Table::read(&o.recording)?,
        Vec::new(),
        SourceFile::of(&o.recording)?,
    ))
}

fn dataset_digest(dir: &Path, dataset: &lerobot::Dataset) -> Result<SourceFile, ImportError> {
    Ok(SourceFile::of_all(dir, &dataset.files)?)
}
