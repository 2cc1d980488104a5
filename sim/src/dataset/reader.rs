//! The reader beside the writer (`store::table`): a Parquet file read whole, its columns by
//! name, typed, with errors naming the file and the column. Every Parquet file of a run
//! directory or a recorded run is read through it.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Float64Type, UInt8Type, UInt32Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::DataType;
use nalgebra::Vector3;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::statistics::Statistics;

use super::{DatasetError, io};

/// All columns of one Parquet file, concatenated over its row groups.
pub struct ParquetColumns {
    /// The file read.
    pub path: PathBuf,
    columns: HashMap<String, Vec<ArrayRef>>,
}

impl ParquetColumns {
    /// Reads every column of a Parquet file. The Arrow schema embedded in the file's metadata
    /// is not read (the Parquet schema gives the same types for these columns): arrow-ipc
    /// panics on some malformed ones instead of failing. A panic of the Parquet reader on a
    /// malformed file is still turned into an error naming the file.
    pub fn read(path: &Path) -> Result<ParquetColumns, DatasetError> {
        Self::read_guarded(path, None)
    }

    /// The rows of arm `arm` of a population shard's table (its `arm` column): only the row
    /// groups whose statistics of `arm` include it are read, and of those only its rows kept.
    pub fn read_arm(path: &Path, arm: u32) -> Result<ParquetColumns, DatasetError> {
        Self::read_guarded(path, Some(arm))
    }

    /// [`Self::read_unguarded`] with a panic of the Parquet reader turned into an error.
    fn read_guarded(path: &Path, arm: Option<u32>) -> Result<ParquetColumns, DatasetError> {
        let read = std::panic::catch_unwind(|| Self::read_unguarded(path, arm));
        read.unwrap_or_else(|_| {
            Err(DatasetError::Format {
                path: path.to_owned(),
                message: "the Parquet reader failed on a malformed file".into(),
            })
        })
    }

    /// Every arm's rows of a population shard's table, by its `arm` column (arms in file
    /// order; each arm's columns are slices of the file's batches, not copies).
    pub fn read_by_arm(path: &Path) -> Result<Vec<(u32, ParquetColumns)>, DatasetError> {
        let whole = Self::read(path)?;
        let missing = || no_arm_column(path);
        let arm_chunks = whole.columns.get("arm").ok_or_else(missing)?;
        let mut out: Vec<(u32, ParquetColumns)> = Vec::new();
        for (c, chunk) in arm_chunks.iter().enumerate() {
            let arms = chunk.as_primitive_opt::<UInt32Type>().ok_or_else(missing)?;
            let values = arms.values();
            let mut start = 0;
            while start < values.len() {
                let arm = values[start];
                let len = values[start..].iter().take_while(|&&a| a == arm).count();
                if out.last().is_none_or(|(last, _)| *last != arm) {
                    if out.iter().any(|(a, _)| *a >= arm) {
                        return Err(DatasetError::Column {
                            path: path.to_owned(),
                            column: "arm".into(),
                            expected: format!(
                                "each arm's rows together, arms ascending (arm {arm} is not)"
                            ),
                        });
                    }
                    out.push((
                        arm,
                        ParquetColumns {
                            path: path.to_owned(),
                            columns: HashMap::new(),
                        },
                    ));
                }
                let columns = &mut out.last_mut().expect("pushed").1.columns;
                for (name, chunks) in &whole.columns {
                    columns
                        .entry(name.clone())
                        .or_default()
                        .push(chunks[c].slice(start, len));
                }
                start += len;
            }
        }
        Ok(out)
    }

    fn read_unguarded(path: &Path, arm: Option<u32>) -> Result<ParquetColumns, DatasetError> {
        let fmt = |e: &dyn std::fmt::Display| DatasetError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(io(path))?;
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let mut builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
            .map_err(|e| fmt(&e))?;
        let mut filter = false;
        if let Some(arm) = arm {
            let (groups, mixed) =
                arm_row_groups(builder.metadata(), arm).ok_or_else(|| no_arm_column(path))?;
            filter = mixed;
            builder = builder.with_row_groups(groups);
        }
        let reader = builder.build().map_err(|e| fmt(&e))?;
        let mut columns: HashMap<String, Vec<ArrayRef>> = HashMap::new();
        for batch in reader {
            let mut batch: RecordBatch = batch.map_err(|e| fmt(&e))?;
            if let (true, Some(arm)) = (filter, arm) {
                batch = keep_arm(&batch, arm).map_err(|e| fmt(&e))?;
            }
            for (field, array) in batch.schema().fields().iter().zip(batch.columns()) {
                columns
                    .entry(field.name().clone())
                    .or_default()
                    .push(array.clone());
            }
        }
        Ok(ParquetColumns {
            path: path.to_owned(),
            columns,
        })
    }

    fn column(&self, name: &str, ty: DataType) -> Result<&[ArrayRef], DatasetError> {
        let err = || DatasetError::Column {
            path: self.path.clone(),
            column: name.into(),
            expected: format!("a {ty} column"),
        };
        let arrays = self.columns.get(name).ok_or_else(err)?;
        if arrays.iter().any(|a| a.data_type() != &ty) {
            return Err(err());
        }
        Ok(arrays)
    }

    /// Whether the file has a column of that name.
    pub fn has(&self, name: &str) -> bool {
        self.columns.contains_key(name)
    }

    /// The file's column names (in no particular order).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.keys().map(String::as_str)
    }

    /// A Float64 column over every row group; a null is NaN (the gates then refuse it).
    pub fn f64(&self, name: &str) -> Result<Vec<f64>, DatasetError> {
        let arrays = self.column(name, DataType::Float64)?;
        Ok(arrays
            .iter()
            .flat_map(|a| {
                let a = a.as_primitive::<Float64Type>();
                (0..a.len()).map(move |i| if a.is_null(i) { f64::NAN } else { a.value(i) })
            })
            .collect())
    }

    fn integers<T: ArrowPrimitiveType>(&self, name: &str) -> Result<Vec<T::Native>, DatasetError> {
        Ok(self
            .column(name, T::DATA_TYPE)?
            .iter()
            .flat_map(|a| a.as_primitive::<T>().values().to_vec())
            .collect())
    }

    /// A UInt32 column over every row group.
    pub fn u32(&self, name: &str) -> Result<Vec<u32>, DatasetError> {
        self.integers::<UInt32Type>(name)
    }

    /// A UInt8 column over every row group.
    pub fn u8(&self, name: &str) -> Result<Vec<u8>, DatasetError> {
        self.integers::<UInt8Type>(name)
    }

    /// A Utf8 column over every row group; a null is the empty string.
    pub fn utf8(&self, name: &str) -> Result<Vec<String>, DatasetError> {
        Ok(self
            .column(name, DataType::Utf8)?
            .iter()
            .flat_map(|a| {
                a.as_string::<i32>()
                    .iter()
                    .map(|s| s.unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
            })
            .collect())
    }

    /// Three Float64 columns `<prefix><suffix>` as vectors (e.g. `pos` + `_x`, `_y`, `_z`).
    pub fn vec3(
        &self,
        prefix: &str,
        suffixes: [&str; 3],
    ) -> Result<Vec<Vector3<f64>>, DatasetError> {
        let [x, y, z] = suffixes.map(|s| self.f64(&format!("{prefix}{s}")));
        let (x, y, z) = (x?, y?, z?);
        Ok((0..x.len())
            .map(|i| Vector3::new(x[i], y[i], z[i]))
            .collect())
    }
}

/// A table without the `arm` column of a population shard's tables.
fn no_arm_column(path: &Path) -> DatasetError {
    DatasetError::Column {
        path: path.to_owned(),
        column: "arm".into(),
        expected: "a UInt32 column of arm indices (a population shard's table)".into(),
    }
}

/// The row groups that may hold rows of `arm` by their statistics of the `arm` column, and
/// whether some of them hold other arms too. `None`: the file has no `arm` column.
fn arm_row_groups(meta: &ParquetMetaData, arm: u32) -> Option<(Vec<usize>, bool)> {
    let column = meta
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .position(|c| c.path().string() == "arm")?;
    let mut groups = Vec::new();
    let mut mixed = false;
    for (k, group) in meta.row_groups().iter().enumerate() {
        let range = match group.column(column).statistics() {
            Some(Statistics::Int32(s)) => s
                .min_opt()
                .zip(s.max_opt())
                .map(|(lo, hi)| (*lo as u32, *hi as u32)),
            _ => None,
        };
        match range {
            Some((lo, hi)) if arm < lo || arm > hi => {}
            Some((lo, hi)) if lo == hi => groups.push(k),
            _ => {
                groups.push(k);
                mixed = true;
            }
        }
    }
    Some((groups, mixed))
}

/// The rows of `batch` whose `arm` is `arm`.
fn keep_arm(batch: &RecordBatch, arm: u32) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let arms = batch
        .column_by_name("arm")
        .and_then(|a| a.as_primitive_opt::<UInt32Type>())
        .ok_or_else(|| arrow_schema::ArrowError::SchemaError("no UInt32 column `arm`".into()))?;
    let mask: BooleanArray = arms.iter().map(|a| Some(a == Some(arm))).collect();
    arrow_select::filter::filter_record_batch(batch, &mask)
}

/// The `arm` column of a population shard's table as runs `(arm, rows)`, in file order (only
/// that column is read).
pub fn arm_rows(path: &Path) -> Result<Vec<(u32, usize)>, DatasetError> {
    let fmt = |e: &dyn std::fmt::Display| DatasetError::Format {
        path: path.to_owned(),
        message: e.to_string(),
    };
    let file = File::open(path).map_err(io(path))?;
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(|e| fmt(&e))?;
    let mask = ProjectionMask::columns(builder.parquet_schema(), ["arm"]);
    let reader = builder.with_projection(mask).build().map_err(|e| fmt(&e))?;
    let mut runs: Vec<(u32, usize)> = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| fmt(&e))?;
        let arms = batch
            .column_by_name("arm")
            .and_then(|a| a.as_primitive_opt::<UInt32Type>())
            .ok_or_else(|| no_arm_column(path))?;
        for a in arms.values().iter().copied() {
            match runs.last_mut() {
                Some((last, n)) if *last == a => *n += 1,
                _ => runs.push((a, 1)),
            }
        }
    }
    Ok(runs)
}
