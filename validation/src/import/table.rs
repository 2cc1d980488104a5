//! A wide table of numbers read from CSV or Parquet: one column per signal, one row per sample.

use std::path::{Path, PathBuf};

use super::ImportError;

/// Named columns of equal length. Empty cells and `NaN` read as NaN (gaps the importer
/// reports); anything else that is not a number is an error naming the cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Where it was read from.
    pub file: PathBuf,
    /// Column names, in file order.
    pub names: Vec<String>,
    /// Columns, in file order.
    pub columns: Vec<Vec<f64>>,
}

impl Table {
    /// Reads `path`: `.parquet` as Parquet, anything else as CSV with a header row.
    pub fn read(path: &Path) -> Result<Self, ImportError> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("parquet") => Self::read_parquet(path),
            _ => Self::read_csv(path),
        }
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(&self.columns[k])
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    fn format(path: &Path, message: impl std::fmt::Display) -> ImportError {
        ImportError::Format {
            file: path.to_owned(),
            message: message.to_string(),
        }
    }

    fn read_csv(path: &Path) -> Result<Self, ImportError> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_path(path)
            .map_err(|e| Self::format(path, e))?;
        let names: Vec<String> = reader
            .headers()
            .map_err(|e| Self::format(path, e))?
            .iter()
            .map(String::from)
            .collect();
        let mut columns = vec![Vec::new(); names.len()];
        for (r, record) in reader.records().enumerate() {
            let record = record.map_err(|e| Self::format(path, e))?;
            for (k, cell) in record.iter().enumerate() {
                let v = if cell.is_empty() || cell.eq_ignore_ascii_case("nan") {
                    f64::NAN
                } else {
                    cell.parse().map_err(|_| ImportError::Row {
                        file: path.to_owned(),
                        column: names[k].clone(),
                        row: r + 1,
                        problem: format!("expected a number, got {cell:?}"),
                    })?
                };
                columns[k].push(v);
            }
        }
        Self::checked(path, names, columns)
    }

    fn read_parquet(path: &Path) -> Result<Self, ImportError> {
        use arrow_array::Array;
        use arrow_array::cast::AsArray;
        use arrow_array::types::Float64Type;
        let file = std::fs::File::open(path).map_err(|source| ImportError::Io {
            file: path.to_owned(),
            source,
        })?;
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.build())
            .map_err(|e| Self::format(path, e))?;
        let mut names = Vec::new();
        let mut columns: Vec<Vec<f64>> = Vec::new();
        for batch in reader {
            let batch = batch.map_err(|e| Self::format(path, e))?;
            if names.is_empty() {
                names = (batch.schema().fields().iter())
                    .map(|f| f.name().clone())
                    .collect();
                columns = vec![Vec::new(); names.len()];
            }
            for (k, array) in batch.columns().iter().enumerate() {
                let cast =
                    arrow_cast::cast(array, &arrow_schema::DataType::Float64).map_err(|e| {
                        ImportError::Column {
                            file: path.to_owned(),
                            column: names[k].clone(),
                            problem: format!("expected numbers: {e}"),
                        }
                    })?;
                let values = cast.as_primitive::<Float64Type>();
                columns[k].extend((0..values.len()).map(|i| {
                    if values.is_null(i) {
                        f64::NAN
                    } else {
                        values.value(i)
                    }
                }));
            }
        }
        Self::checked(path, names, columns)
    }

    /// `Err` for duplicated column names or a table without rows.
    /// A table of `names` and `columns` from `path`, refused if a name repeats or no row is there.
    pub(super) fn checked(
        path: &Path,
        names: Vec<String>,
        columns: Vec<Vec<f64>>,
    ) -> Result<Self, ImportError> {
        for (k, n) in names.iter().enumerate() {
            if names[..k].contains(n) {
                return Err(ImportError::Column {
                    file: path.to_owned(),
                    column: n.clone(),
                    problem: "named twice (expected one column per signal)".into(),
                });
            }
        }
        let table = Table {
            file: path.to_owned(),
            names,
            columns,
        };
        if table.rows() == 0 {
            return Err(Self::format(
                path,
                "no data rows (expected a header and one row per sample)",
            ));
        }
        Ok(table)
    }
}
