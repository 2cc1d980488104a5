//! The reader beside the writer (`store::table`): a Parquet file read whole, its columns by
//! name, typed, with errors naming the file and the column. Every Parquet file of a run
//! directory or a recorded run is read through it.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Float64Type, UInt8Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use nalgebra::Vector3;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};

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
        let read = std::panic::catch_unwind(|| Self::read_unguarded(path));
        read.unwrap_or_else(|_| {
            Err(DatasetError::Format {
                path: path.to_owned(),
                message: "the Parquet reader failed on a malformed file".into(),
            })
        })
    }

    fn read_unguarded(path: &Path) -> Result<ParquetColumns, DatasetError> {
        let fmt = |e: &dyn std::fmt::Display| DatasetError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(io(path))?;
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
            .map_err(|e| fmt(&e))?
            .build()
            .map_err(|e| fmt(&e))?;
        let mut columns: HashMap<String, Vec<ArrayRef>> = HashMap::new();
        for batch in reader {
            let batch: RecordBatch = batch.map_err(|e| fmt(&e))?;
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
