//! A table under construction, written as Parquet (ZSTD, `BYTE_STREAM_SPLIT` on f64 columns).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt8Array, UInt32Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;

use super::{DatasetError, io};

/// A table under construction: named columns of equal length.
pub(crate) struct Table {
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
    f64_columns: Vec<String>,
}

impl Table {
    pub(crate) fn new() -> Self {
        Table {
            fields: Vec::new(),
            arrays: Vec::new(),
            f64_columns: Vec::new(),
        }
    }

    pub(crate) fn f64(&mut self, name: &str, values: Vec<f64>) {
        self.fields.push(Field::new(name, DataType::Float64, false));
        self.arrays.push(Arc::new(Float64Array::from(values)));
        self.f64_columns.push(name.to_string());
    }

    pub(crate) fn f64_nullable(&mut self, name: &str, values: Vec<Option<f64>>) {
        self.fields.push(Field::new(name, DataType::Float64, true));
        self.arrays.push(Arc::new(Float64Array::from(values)));
        self.f64_columns.push(name.to_string());
    }

    pub(crate) fn u32(&mut self, name: &str, values: Vec<u32>) {
        self.fields.push(Field::new(name, DataType::UInt32, false));
        self.arrays.push(Arc::new(UInt32Array::from(values)));
    }

    /// Puts a u32 column of one value in front of the others (a population's `arm`).
    pub(crate) fn prepend_u32(&mut self, name: &str, value: u32) {
        let rows = self.arrays.first().map_or(0, |a| a.len());
        self.fields
            .insert(0, Field::new(name, DataType::UInt32, false));
        self.arrays
            .insert(0, Arc::new(UInt32Array::from(vec![value; rows])));
    }

    pub(crate) fn u8(&mut self, name: &str, values: Vec<u8>) {
        self.fields.push(Field::new(name, DataType::UInt8, false));
        self.arrays.push(Arc::new(UInt8Array::from(values)));
    }

    pub(crate) fn utf8(&mut self, name: &str, values: Vec<String>) {
        self.fields.push(Field::new(name, DataType::Utf8, false));
        self.arrays.push(Arc::new(StringArray::from(values)));
    }

    /// The table as one Arrow record batch (`Err`: columns of different lengths).
    pub(crate) fn batch(&self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let schema = Arc::new(Schema::new(self.fields.clone()));
        RecordBatch::try_new(schema, self.arrays.clone())
    }

    /// The writer settings of the project's Parquet files: ZSTD level 3, `BYTE_STREAM_SPLIT`
    /// and no dictionary on the f64 columns, `metadata` in the footer.
    pub(crate) fn properties(&self, metadata: Vec<KeyValue>) -> WriterProperties {
        self.properties_builder(metadata).build()
    }

    /// [`Self::properties`] before it is built, for writers that add to it.
    pub(crate) fn properties_builder(&self, metadata: Vec<KeyValue>) -> WriterPropertiesBuilder {
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(3).expect("3 is a ZSTD level"),
            ))
            .set_key_value_metadata(Some(metadata));
        for name in &self.f64_columns {
            let col = ColumnPath::from(name.as_str());
            props = props
                .set_column_dictionary_enabled(col.clone(), false)
                .set_column_encoding(col, Encoding::BYTE_STREAM_SPLIT);
        }
        props
    }

    pub(crate) fn write(self, path: &Path, metadata: Vec<KeyValue>) -> Result<(), DatasetError> {
        let fmt = |e: &dyn std::fmt::Display| DatasetError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let batch = self.batch().map_err(|e| fmt(&e))?;
        let props = self.properties(metadata);
        let file = File::create(path).map_err(io(path))?;
        let mut writer =
            ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| fmt(&e))?;
        writer.write(&batch).map_err(|e| fmt(&e))?;
        writer.close().map_err(|e| fmt(&e))?;
        Ok(())
    }
}
