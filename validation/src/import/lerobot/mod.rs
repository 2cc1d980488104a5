//! A LeRobot dataset (v3.0, v2.x) as one wide [`Table`] per episode: what `import` and
//! `identify` read from the datasets LeRobot's servo arms (SO-100/SO-101, Koch) are recorded
//! into.
//!
//! The dataset is a directory with `meta/info.json` ([`info`]: version, `fps`, the motor names
//! of `observation.state` and `action`) and `data/chunk-*/*.parquet` (v3.0: `file-*.parquet`,
//! many episodes a file; v2.x: `episode_*.parquet`), whose rows carry `timestamp` (s from the
//! episode's start; `frame_index / fps` where it is that, rounded to float32: [`Dataset`]),
//! `frame_index`, `episode_index`, `observation.state` (the positions the servos reported)
//! and `action` (the positions commanded). Each episode is a log: its rows in file order
//! become `t`, `q_<joint>` and `qcmd_<joint>`, `<joint>` the motor name without `.pos`, which
//! must be a joint of the model (or one the configuration locks, whose columns are left out),
//! in radians by the configuration's `[lerobot]` units ([`units`]). Other features (images,
//! velocities, currents) are not read. The import's checks then apply as to any table: stamps
//! that go back, gaps, limits.

pub mod info;
pub mod units;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{Array, ArrayRef};

pub use info::Info;
pub use units::Units;

use super::ImportError;
use super::table::Table;

/// The columns read from every data file.
const TIME: &str = "timestamp";
const EPISODE: &str = "episode_index";
const FRAME: &str = "frame_index";
const STATE: &str = "observation.state";
const ACTION: &str = "action";

/// Whether `path` is a LeRobot dataset: a directory with `meta/info.json`.
pub fn is_dataset(path: &Path) -> bool {
    path.join("meta").join("info.json").is_file()
}

/// A dataset's frames, every episode's, in file order.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The dataset's directory.
    pub dir: PathBuf,
    /// `meta/info.json`.
    pub info: Info,
    /// The data files read (sorted), `meta/info.json` first: what the run's manifest hashes.
    pub files: Vec<PathBuf>,
    time: Vec<f64>,
    frame: Vec<f64>,
    episode: Vec<i64>,
    state: Vec<Vec<f64>>,
    action: Vec<Vec<f64>>,
}

impl Dataset {
    /// Reads the dataset in `dir`.
    pub fn read(dir: &Path) -> Result<Self, ImportError> {
        let info = Info::read(dir)?;
        let data = data_files(dir)?;
        let mut d = Dataset {
            dir: dir.to_owned(),
            files: std::iter::once(info.file.clone())
                .chain(data.clone())
                .collect(),
            info,
            time: Vec::new(),
            frame: Vec::new(),
            episode: Vec::new(),
            state: Vec::new(),
            action: Vec::new(),
        };
        for file in &data {
            d.read_file(file)?;
        }
        Ok(d)
    }

    /// The episodes, in order of first appearance.
    pub fn episodes(&self) -> Vec<i64> {
        let mut seen = Vec::new();
        for &e in &self.episode {
            if seen.last() != Some(&e) && !seen.contains(&e) {
                seen.push(e);
            }
        }
        seen
    }

    /// Episode `episode` as a table of `t`, `q_<joint>`, `qcmd_<joint>` (radians), leaving out
    /// the motors in `held`.
    pub fn table(
        &self,
        episode: i64,
        units: &Units,
        held: &[String],
    ) -> Result<Table, ImportError> {
        let rows: Vec<usize> = (0..self.episode.len())
            .filter(|&r| self.episode[r] == episode)
            .collect();
        let file = PathBuf::from(format!("{} (episode {episode})", self.dir.display()));
        if rows.is_empty() {
            return Err(ImportError::Field {
                file: PathBuf::from("command line"),
                field: "--episode".into(),
                problem: format!(
                    "the dataset `{}` has no episode {episode} (it has {:?})",
                    self.dir.display(),
                    self.episodes()
                ),
            });
        }
        let mut names = vec!["t".to_owned()];
        let mut columns = vec![self.stamps(&rows)];
        for (prefix, motors, values) in [
            ("q_", &self.info.state, &self.state),
            ("qcmd_", &self.info.action, &self.action),
        ] {
            for (k, motor) in motors.iter().enumerate() {
                if held.contains(motor) {
                    continue;
                }
                let mut x: Vec<f64> = rows.iter().map(|&r| values[r][k]).collect();
                units.to_radians(motor, &mut x)?;
                names.push(format!("{prefix}{motor}"));
                columns.push(x);
            }
        }
        Table::checked(&file, names, columns)
    }

    /// The stamps of `rows` (s): LeRobot's recorder writes `frame_index / fps` rounded to
    /// float32 (0.5 µs at 8 s, which would make a uniform log read as jittered and move a held
    /// command's switch across a sample); where every row's stamp is exactly that, the stamps are
    /// `frame_index / fps` in full precision, else as stored.
    fn stamps(&self, rows: &[usize]) -> Vec<f64> {
        let fps = self.info.fps;
        let exact = |r: usize| self.frame[r] / fps;
        match rows.iter().all(|&r| exact(r) as f32 as f64 == self.time[r]) {
            true => rows.iter().map(|&r| exact(r)).collect(),
            false => rows.iter().map(|&r| self.time[r]).collect(),
        }
    }

    fn read_file(&mut self, file: &Path) -> Result<(), ImportError> {
        let format = |message: String| ImportError::Format {
            file: file.to_owned(),
            message,
        };
        let f = std::fs::File::open(file).map_err(|source| ImportError::Io {
            file: file.to_owned(),
            source,
        })?;
        let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
            .map_err(|e| format(e.to_string()))?;
        let schema = builder.schema().clone();
        let mut roots = Vec::new();
        for name in [TIME, FRAME, EPISODE, STATE, ACTION] {
            roots.push(schema.index_of(name).map_err(|_| {
                ImportError::Column {
                    file: file.to_owned(),
                    column: name.into(),
                    problem: "missing: a LeRobot dataset's frames have timestamp, episode_index, \
                          observation.state and action"
                        .into(),
                }
            })?);
        }
        let mask = parquet::arrow::ProjectionMask::roots(builder.parquet_schema(), roots);
        let reader = builder
            .with_projection(mask)
            .build()
            .map_err(|e| format(e.to_string()))?;
        let first = self.time.len();
        for batch in reader {
            let batch = batch.map_err(|e| format(e.to_string()))?;
            let row = self.time.len() - first;
            let column = |name: &str| batch.column_by_name(name).expect("projected").clone();
            self.time.extend(numbers(file, TIME, &column(TIME))?);
            self.frame.extend(numbers(file, FRAME, &column(FRAME))?);
            let episodes = numbers(file, EPISODE, &column(EPISODE))?;
            self.episode.extend(episodes.iter().map(|&e| e as i64));
            let width = |names: &Vec<String>| names.len();
            let state = vectors(file, (STATE, row), &column(STATE), width(&self.info.state))?;
            let action = vectors(
                file,
                (ACTION, row),
                &column(ACTION),
                width(&self.info.action),
            )?;
            self.state.extend(state);
            self.action.extend(action);
        }
        Ok(())
    }
}

/// The data files under `DATASET/data`, sorted (chunk, then file or episode).
fn data_files(dir: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let data = dir.join("data");
    let io = |file: &Path| {
        let file = file.to_owned();
        move |source| ImportError::Io { file, source }
    };
    let mut files = Vec::new();
    let mut chunks: Vec<PathBuf> = (std::fs::read_dir(&data).map_err(io(&data))?)
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    chunks.sort();
    for chunk in chunks {
        let mut here: Vec<PathBuf> = (std::fs::read_dir(&chunk).map_err(io(&chunk))?)
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
            .collect();
        here.sort();
        files.extend(here);
    }
    if files.is_empty() {
        return Err(ImportError::Format {
            file: data,
            message: "no parquet files (expected data/chunk-*/file-*.parquet or \
                      data/chunk-*/episode_*.parquet)"
                .into(),
        });
    }
    Ok(files)
}

/// A column of scalars as numbers (NaN where null).
fn numbers(file: &Path, name: &str, array: &ArrayRef) -> Result<Vec<f64>, ImportError> {
    let cast = arrow_cast::cast(array, &arrow_schema::DataType::Float64).map_err(|e| {
        ImportError::Column {
            file: file.to_owned(),
            column: name.into(),
            problem: format!("expected numbers: {e}"),
        }
    })?;
    let values = cast.as_primitive::<Float64Type>();
    Ok((0..values.len())
        .map(|i| match values.is_null(i) {
            true => f64::NAN,
            false => values.value(i),
        })
        .collect())
}

/// A column of fixed-length vectors (a list or fixed-size list per row), each `width` long;
/// `first` the file's row (0-based) of the array's first.
fn vectors(
    file: &Path,
    (name, first): (&str, usize),
    array: &ArrayRef,
    width: usize,
) -> Result<Vec<Vec<f64>>, ImportError> {
    let problem = |problem: String| ImportError::Column {
        file: file.to_owned(),
        column: name.into(),
        problem,
    };
    let row = |i: usize| -> Option<ArrayRef> {
        if let Some(l) = array.as_list_opt::<i32>() {
            Some(l.value(i))
        } else if let Some(l) = array.as_list_opt::<i64>() {
            Some(l.value(i))
        } else {
            array.as_fixed_size_list_opt().map(|l| l.value(i))
        }
    };
    let mut out = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        let values = row(i).ok_or_else(|| {
            problem(format!(
                "expected a list of numbers, got {}",
                array.data_type()
            ))
        })?;
        let x = numbers(file, name, &values)?;
        if x.len() != width || array.is_null(i) {
            return Err(ImportError::Row {
                file: file.to_owned(),
                column: name.into(),
                row: first + out.len() + 1,
                problem: format!(
                    "{} values (meta/info.json names {width})",
                    if array.is_null(i) { 0 } else { x.len() }
                ),
            });
        }
        out.push(x);
    }
    Ok(out)
}
