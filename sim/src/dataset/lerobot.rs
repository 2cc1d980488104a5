//! A LeRobot v3.0 dataset written from a servo arm's runs: each run an episode, its measured
//! positions `observation.state` and its commands `action`, what LeRobot's recorder writes for an
//! SO-100/SO-101 or Koch arm and what `validation::import::lerobot` reads back.
//!
//! Written (whole or not at all, [`super::write_dir`]): `meta/info.json` (`codebase_version`
//! `v3.0`, `fps`, the features with the motors' names, `<joint>.pos`), `data/chunk-000/
//! file-000.parquet` (`action` and `observation.state` as float32 lists, `timestamp` float32 s
//! from the episode's first sample, `frame_index`, `episode_index`, `index`, `task_index`),
//! `meta/episodes/chunk-000/file-000.parquet` (each episode's length and rows) and
//! `meta/tasks.parquet` (one task per episode, its run id). Values are in the unit asked
//! ([`super::recorded::LeRobotUnits`]: `radians`, or LeRobot's `degrees`, `v = rad · 180/π ·
//! resolution/(resolution − 1)`); no videos, no statistics.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeListArray, Float32Array, Int64Array, RecordBatch};
use arrow_array::{StringArray, UInt64Array};

use super::recorded::{LeRobotReading, LeRobotUnits};
use super::{DatasetError, io};

/// One episode: a run's samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode {
    /// The task's text (the run id).
    pub task: String,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Per motor, the measured position (rad or m).
    pub state: Vec<Vec<f64>>,
    /// Per motor, the commanded position (rad or m).
    pub action: Vec<Vec<f64>>,
}

/// What the dataset states besides its episodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The motors (the model's joint names), in vector order.
    pub motors: Vec<String>,
    /// Frames per second (Hz).
    pub fps: f64,
    /// The unit of the values.
    pub units: LeRobotUnits,
    /// Encoder ticks per turn (LeRobot's degree is `360/(resolution − 1)` of a tick's).
    pub resolution: f64,
}

/// Writes `episodes` as a LeRobot v3.0 dataset in `out` (module docs).
pub fn write(
    out: &Path,
    layout: &Layout,
    episodes: &[Episode],
    force: bool,
) -> Result<(), DatasetError> {
    let scale = match layout.units {
        LeRobotUnits::Radians => 1.0,
        LeRobotUnits::Degrees => 1.0 / LeRobotReading::radians_per_degree(layout.resolution),
        LeRobotUnits::RangeM100To100 => {
            return Err(DatasetError::Format {
                path: out.to_owned(),
                message: "range_m100_100 needs an arm's calibration; write degrees or radians"
                    .into(),
            });
        }
    };
    super::atomic::write_dir(out, force, |dir| {
        let format = |path: &Path| {
            let path = path.to_owned();
            move |e: parquet::errors::ParquetError| DatasetError::Format {
                path,
                message: e.to_string(),
            }
        };
        let data = dir.join("data/chunk-000");
        std::fs::create_dir_all(&data).map_err(io(&data))?;
        let file = data.join("file-000.parquet");
        write_batch(&file, &frames(layout, episodes, scale)).map_err(format(&file))?;
        let meta = dir.join("meta/episodes/chunk-000");
        std::fs::create_dir_all(&meta).map_err(io(&meta))?;
        let file = meta.join("file-000.parquet");
        write_batch(&file, &episode_table(episodes)).map_err(format(&file))?;
        let file = dir.join("meta/tasks.parquet");
        let tasks: Vec<&str> = episodes.iter().map(|e| e.task.as_str()).collect();
        let batch = RecordBatch::try_from_iter([
            ("task_index", column_i64(0..episodes.len() as i64)),
            ("task", Arc::new(StringArray::from(tasks)) as ArrayRef),
        ])
        .expect("equal lengths");
        write_batch(&file, &batch).map_err(format(&file))?;
        let info = dir.join("meta/info.json");
        let frames: usize = episodes.iter().map(|e| e.t.len()).sum();
        let text = serde_json::to_string_pretty(&info_json(layout, episodes.len(), frames))
            .expect("serializes");
        std::fs::write(&info, text + "\n").map_err(io(&info))
    })
}

fn column_i64(values: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(Int64Array::from_iter_values(values))
}

/// Every frame of every episode.
fn frames(layout: &Layout, episodes: &[Episode], scale: f64) -> RecordBatch {
    let n = layout.motors.len();
    let vectors = |series: fn(&Episode) -> &Vec<Vec<f64>>| -> ArrayRef {
        let values: Vec<f32> = (episodes.iter())
            .flat_map(|e| (0..e.t.len()).flat_map(move |k| (0..n).map(move |j| (k, j, e))))
            .map(|(k, j, e)| (series(e)[j][k] * scale) as f32)
            .collect();
        let item = Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Float32,
            true,
        ));
        let values = Arc::new(Float32Array::from(values));
        Arc::new(FixedSizeListArray::try_new(item, n as i32, values, None).expect("n per row"))
    };
    let timestamp: Vec<f32> = (episodes.iter())
        .flat_map(|e| e.t.iter().map(|t| (t - e.t[0]) as f32))
        .collect();
    let per_frame = |f: fn(usize, usize) -> i64| -> ArrayRef {
        column_i64(
            (episodes.iter().enumerate())
                .flat_map(move |(i, e)| (0..e.t.len()).map(move |k| f(i, k))),
        )
    };
    let total: usize = episodes.iter().map(|e| e.t.len()).sum();
    RecordBatch::try_from_iter([
        ("action", vectors(|e| &e.action)),
        ("observation.state", vectors(|e| &e.state)),
        (
            "timestamp",
            Arc::new(Float32Array::from(timestamp)) as ArrayRef,
        ),
        ("frame_index", per_frame(|_, k| k as i64)),
        ("episode_index", per_frame(|i, _| i as i64)),
        ("index", column_i64(0..total as i64)),
        ("task_index", per_frame(|i, _| i as i64)),
    ])
    .expect("equal lengths")
}

/// `meta/episodes`: each episode's length and rows of the data file.
fn episode_table(episodes: &[Episode]) -> RecordBatch {
    let lengths: Vec<u64> = episodes.iter().map(|e| e.t.len() as u64).collect();
    let from: Vec<u64> = (lengths.iter())
        .scan(0, |at, l| {
            let start = *at;
            *at += l;
            Some(start)
        })
        .collect();
    let to: Vec<u64> = from.iter().zip(&lengths).map(|(f, l)| f + l).collect();
    let zeros = || column_i64(std::iter::repeat_n(0, episodes.len()));
    RecordBatch::try_from_iter([
        ("episode_index", column_i64(0..episodes.len() as i64)),
        ("length", Arc::new(UInt64Array::from(lengths)) as ArrayRef),
        (
            "dataset_from_index",
            Arc::new(UInt64Array::from(from)) as ArrayRef,
        ),
        (
            "dataset_to_index",
            Arc::new(UInt64Array::from(to)) as ArrayRef,
        ),
        ("data/chunk_index", zeros()),
        ("data/file_index", zeros()),
    ])
    .expect("equal lengths")
}

fn write_batch(path: &Path, batch: &RecordBatch) -> Result<(), parquet::errors::ParquetError> {
    let file = std::fs::File::create(path)?;
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None)?;
    writer.write(batch)?;
    writer.close().map(|_| ())
}

fn info_json(layout: &Layout, episodes: usize, frames: usize) -> serde_json::Value {
    let names: Vec<String> = layout.motors.iter().map(|m| format!("{m}.pos")).collect();
    let vector = serde_json::json!({"dtype": "float32", "shape": [names.len()], "names": names});
    let scalar = |dtype: &str| serde_json::json!({"dtype": dtype, "shape": [1], "names": null});
    serde_json::json!({
        "codebase_version": "v3.0",
        "robot_type": null,
        "total_episodes": episodes,
        "total_frames": frames,
        "total_tasks": episodes,
        "chunks_size": 1000,
        "data_files_size_in_mb": 100,
        "video_files_size_in_mb": 500,
        "fps": layout.fps,
        "splits": {"train": format!("0:{episodes}")},
        "data_path": "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet",
        "video_path": null,
        "features": {
            "action": vector,
            "observation.state": vector,
            "timestamp": scalar("float32"),
            "frame_index": scalar("int64"),
            "episode_index": scalar("int64"),
            "index": scalar("int64"),
            "task_index": scalar("int64"),
        },
    })
}
