//! Writing one shard of a population: its arms pushed in increasing order into the four
//! tables' Parquet files, in a temporary directory moved into place when the shard is whole.

use std::ops::Range;
use std::path::{Path, PathBuf};

use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::EnabledStatistics;

use super::layout::{
    ARMS_KEY, ARMS_PER_ROW_GROUP, TABLES, arms_value, partition, shard_checksums, shard_files,
    shard_relative_files,
};
use super::process_partial;
use crate::dataset::Manifest;
use crate::dataset::checksum::{self, HashingFile};
use crate::dataset::table::Table;
use crate::dataset::writer::run_tables;
use crate::dataset::{DatasetError, io};
use crate::recording::Recording;

/// One table's file of the shard being written.
struct TableFile {
    /// Its temporary path.
    path: PathBuf,
    writer: ArrowWriter<HashingFile>,
    schema: arrow_schema::SchemaRef,
    /// The arm that set its columns.
    first_arm: usize,
}

/// A shard being written. Arms are pushed in increasing order; [`Self::finish`] moves the
/// shard's files into place (manifests last); dropped unfinished, it leaves nothing.
pub struct ShardWriter {
    out: PathBuf,
    shard: usize,
    tmp: PathBuf,
    /// The files of [`TABLES`], created by the first arm.
    files: [Option<TableFile>; 4],
    /// The arms the shard is for.
    arms: Range<usize>,
    /// Arms in the row group being filled.
    in_group: usize,
    last_arm: Option<usize>,
    format_version: String,
}

impl ShardWriter {
    /// Starts shard `shard` of the population in `out`, to hold arms `arms` (its temporary
    /// directory under `OUT/.partial/`).
    pub fn create(out: &Path, shard: usize, arms: Range<usize>) -> Result<Self, DatasetError> {
        let tmp = process_partial(out).join(partition(shard));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
        }
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        Ok(ShardWriter {
            out: out.to_owned(),
            shard,
            tmp,
            files: Default::default(),
            arms,
            in_group: 0,
            last_arm: None,
            format_version: String::new(),
        })
    }

    /// Appends arm `arm` (greater than every arm pushed before). `Err` if its columns differ
    /// from the shard's first arm's (every arm of a population has the same columns).
    pub fn push(
        &mut self,
        arm: usize,
        rec: &Recording,
        manifest: &Manifest,
    ) -> Result<(), DatasetError> {
        assert!(
            self.arms.contains(&arm) && self.last_arm.is_none_or(|last| arm > last),
            "arms are pushed in increasing order, within the shard's"
        );
        self.last_arm = Some(arm);
        self.format_version = manifest.format_version.to_string();
        let [bodies, joints, truth] = run_tables(rec, manifest);
        let json = serde_json::to_string(manifest).expect("manifest serializes");
        let tables = [bodies, joints, truth, manifest_table(&rec.run_id, json)];
        for (k, mut table) in tables.into_iter().enumerate() {
            table.prepend_u32("arm", arm as u32);
            self.append(k, arm, table)?;
        }
        self.in_group += 1;
        if self.in_group == ARMS_PER_ROW_GROUP {
            self.in_group = 0;
            for f in self.files.iter_mut().flatten() {
                f.writer.flush().map_err(format(&f.path))?;
            }
        }
        Ok(())
    }

    /// Writes `table` of arm `arm` into file `k`, creating it with the table's columns.
    fn append(&mut self, k: usize, arm: usize, table: Table) -> Result<(), DatasetError> {
        if self.files[k].is_none() {
            let path = self.tmp.join(format!("{}.parquet", TABLES[k]));
            let metadata = vec![
                KeyValue::new("population_shard".into(), self.shard.to_string()),
                KeyValue::new(ARMS_KEY.into(), arms_value(&self.arms)),
                KeyValue::new("dataset_format_version".into(), self.format_version.clone()),
            ];
            // Statistics of `arm` only: what readers fetch an arm by; the footer of a shard
            // file, which a reader of one arm reads for every file of the table, stays small.
            let props = table
                .properties_builder(metadata)
                .set_statistics_enabled(EnabledStatistics::None)
                .set_column_statistics_enabled("arm".into(), EnabledStatistics::Page)
                .build();
            let schema = table.batch().map_err(format(&path))?.schema();
            let file = HashingFile::create(&path)?;
            let writer =
                ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(format(&path))?;
            self.files[k] = Some(TableFile {
                path,
                writer,
                schema,
                first_arm: arm,
            });
        }
        let f = self.files[k].as_mut().expect("created above");
        let batch = table.batch().map_err(format(&f.path))?;
        if batch.schema() != f.schema {
            return Err(DatasetError::Format {
                path: f.path.clone(),
                message: format!(
                    "arm {arm}'s {} columns differ from arm {}'s: every arm of a population \
                     has the same columns",
                    TABLES[k], f.first_arm
                ),
            });
        }
        f.writer.write(&batch).map_err(format(&f.path))
    }

    /// Closes the shard's files and moves them into place: tables, checksum list, manifests
    /// last (the shard is complete from then on). A shard whose every arm was left out holds
    /// only its (empty) manifests.
    pub fn finish(mut self) -> Result<(), DatasetError> {
        if self.files[3].is_none() {
            self.append(3, 0, empty_manifest_table())?;
        }
        let targets = shard_files(&self.out, self.shard);
        let relative = shard_relative_files(self.shard);
        // An earlier, complete shard is incomplete from here until its new manifests land.
        if targets[3].exists() {
            std::fs::remove_file(&targets[3]).map_err(io(&targets[3]))?;
        }
        let mut moves = Vec::new();
        let mut digests = Vec::new();
        for (k, f) in std::mem::take(&mut self.files).into_iter().enumerate() {
            let Some(f) = f else { continue };
            let file = f.writer.into_inner().map_err(format(&f.path))?;
            digests.push((relative[k].as_str(), file.finish(&f.path)?));
            moves.push((f.path, targets[k].clone()));
        }
        let list = self.tmp.join("shard.sha256");
        let text = checksum::render(digests.iter().map(|(r, d)| (*r, d.as_str())));
        std::fs::write(&list, text).map_err(io(&list))?;
        let manifests = moves.pop().expect("the manifests file");
        moves.push((list, shard_checksums(&self.out, self.shard)));
        moves.push(manifests);
        for (from, to) in &moves {
            let dir = to.parent().expect("partition directory");
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            std::fs::rename(from, to).map_err(io(to))?;
        }
        Ok(())
    }
}

impl Drop for ShardWriter {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// The manifests table's row of one arm (its `arm` column is prepended by the caller).
fn manifest_table(run_id: &str, json: String) -> Table {
    let mut t = Table::new();
    t.utf8("run_id", vec![run_id.to_string()]);
    t.utf8("manifest", vec![json]);
    t
}

fn empty_manifest_table() -> Table {
    let mut t = Table::new();
    t.u32("arm", Vec::new());
    t.utf8("run_id", Vec::new());
    t.utf8("manifest", Vec::new());
    t
}

fn format<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> DatasetError + '_ {
    move |e| DatasetError::Format {
        path: path.to_owned(),
        message: e.to_string(),
    }
}
