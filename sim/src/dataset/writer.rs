//! Writes a run directory: Parquet (ZSTD, `BYTE_STREAM_SPLIT` on f64 columns) and JSON, into a
//! temporary sibling directory that is renamed into place only once every file is complete.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt8Array, UInt32Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use super::checksum::CHECKSUMS_FILE;
use super::columns::*;
use super::manifest::Manifest;
use crate::model::Chain;
use crate::recording::Recording;

/// A run directory that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The output exists and replacing it was not asked for.
    #[error("output directory `{0}` already exists (pass --force to replace it)")]
    Exists(PathBuf),
    /// The run failed a validity gate; nothing was written.
    #[error("{0}; nothing written to `{1}` (pass --keep-invalid to write it marked invalid)")]
    Invalid(Box<crate::validity::Invalid>, PathBuf),
    /// A run marked invalid (written with `--keep-invalid`) was given to a reader that needs a
    /// valid one.
    #[error("`{1}`: {0}; runs marked invalid (written with --keep-invalid) are not read as data")]
    MarkedInvalid(Box<crate::validity::Invalid>, PathBuf),
    /// A file's SHA-256 differs from its checksum list's ([`super::checksum`]).
    #[error(
        "`{path}`: its SHA-256 differs from the one in `{list}`: the file is corrupted, \
         truncated or was changed after it was written"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The checksum list.
        list: PathBuf,
    },
    /// File-system failure.
    #[error("`{path}`: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Parquet/Arrow/JSON failure.
    #[error("`{path}`: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A column is missing, of the wrong type, or its content is inconsistent (reading).
    #[error("`{path}`: column `{column}`: expected {expected}")]
    Column {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What was expected.
        expected: String,
    },
}

/// Maps an I/O error on `path`.
pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DatasetError + '_ {
    move |source| DatasetError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A table under construction: named columns of equal length.
pub(super) struct Table {
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
    f64_columns: Vec<String>,
}

impl Table {
    pub(super) fn new() -> Self {
        Table {
            fields: Vec::new(),
            arrays: Vec::new(),
            f64_columns: Vec::new(),
        }
    }

    pub(super) fn f64(&mut self, name: &str, values: Vec<f64>) {
        self.fields.push(Field::new(name, DataType::Float64, false));
        self.arrays.push(Arc::new(Float64Array::from(values)));
        self.f64_columns.push(name.to_string());
    }

    pub(super) fn f64_nullable(&mut self, name: &str, values: Vec<Option<f64>>) {
        self.fields.push(Field::new(name, DataType::Float64, true));
        self.arrays.push(Arc::new(Float64Array::from(values)));
        self.f64_columns.push(name.to_string());
    }

    pub(super) fn u32(&mut self, name: &str, values: Vec<u32>) {
        self.fields.push(Field::new(name, DataType::UInt32, false));
        self.arrays.push(Arc::new(UInt32Array::from(values)));
    }

    pub(super) fn u8(&mut self, name: &str, values: Vec<u8>) {
        self.fields.push(Field::new(name, DataType::UInt8, false));
        self.arrays.push(Arc::new(UInt8Array::from(values)));
    }

    pub(super) fn utf8(&mut self, name: &str, values: Vec<String>) {
        self.fields.push(Field::new(name, DataType::Utf8, false));
        self.arrays.push(Arc::new(StringArray::from(values)));
    }

    pub(super) fn write(self, path: &Path, metadata: Vec<KeyValue>) -> Result<(), DatasetError> {
        let fmt = |e: &dyn std::fmt::Display| DatasetError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let schema = Arc::new(Schema::new(self.fields));
        let batch = RecordBatch::try_new(schema.clone(), self.arrays).map_err(|e| fmt(&e))?;
        let mut props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(3).map_err(|e| fmt(&e))?,
            ))
            .set_key_value_metadata(Some(metadata));
        for name in &self.f64_columns {
            let col = ColumnPath::from(name.as_str());
            props = props
                .set_column_dictionary_enabled(col.clone(), false)
                .set_column_encoding(col, Encoding::BYTE_STREAM_SPLIT);
        }
        let file = File::create(path).map_err(io(path))?;
        let mut writer =
            ArrowWriter::try_new(file, schema, Some(props.build())).map_err(|e| fmt(&e))?;
        writer.write(&batch).map_err(|e| fmt(&e))?;
        writer.close().map_err(|e| fmt(&e))?;
        Ok(())
    }
}

fn bodies_table(rec: &Recording) -> Table {
    let rows = rec.bodies.len();
    let mut t = Table::new();
    t.utf8("run_id", vec![rec.run_id.clone(); rows]);
    t.u32(
        "sample",
        (0..rows).map(|r| (r / rec.n_bodies) as u32).collect(),
    );
    t.f64("t", (0..rows).map(|r| rec.t[r / rec.n_bodies]).collect());
    t.u8(
        "body",
        (0..rows).map(|r| (r % rec.n_bodies + 1) as u8).collect(),
    );
    let values = |b: &crate::recording::BodyRecord| -> [f64; 37] {
        let q = b.quat.quaternion();
        [
            b.pos.x,
            b.pos.y,
            b.pos.z,
            q.w,
            q.i,
            q.j,
            q.k,
            b.euler.x,
            b.euler.y,
            b.euler.z,
            b.euler_d.x,
            b.euler_d.y,
            b.euler_d.z,
            b.euler_dd.x,
            b.euler_dd.y,
            b.euler_dd.z,
            b.vel.x,
            b.vel.y,
            b.vel.z,
            b.acc.x,
            b.acc.y,
            b.acc.z,
            b.omega.x,
            b.omega.y,
            b.omega.z,
            b.omega_dot.x,
            b.omega_dot.y,
            b.omega_dot.z,
            b.force.x,
            b.force.y,
            b.force.z,
            b.moment.x,
            b.moment.y,
            b.moment.z,
            b.joint_point.x,
            b.joint_point.y,
            b.joint_point.z,
        ]
    };
    let rows_values: Vec<[f64; 37]> = rec.bodies.iter().map(values).collect();
    for (c, name) in BODY_F64.iter().enumerate() {
        t.f64(name, rows_values.iter().map(|v| v[c]).collect());
    }
    for (name, values) in &rec.measured_bodies {
        t.f64(name, values.clone());
    }
    t
}

fn joints_table(rec: &Recording) -> Table {
    let nj = rec.joint_ids.len();
    let rows = rec.joints.len();
    let mut t = Table::new();
    t.utf8("run_id", vec![rec.run_id.clone(); rows]);
    t.u32("sample", (0..rows).map(|r| (r / nj) as u32).collect());
    t.f64("t", (0..rows).map(|r| rec.t[r / nj]).collect());
    t.u8("joint", (0..rows).map(|r| rec.joint_ids[r % nj]).collect());
    t.utf8(
        "kind",
        (0..rows)
            .map(|r| rec.joint_kinds[r % nj].as_str().to_string())
            .collect(),
    );
    let j = &rec.joints;
    t.f64("q", j.iter().map(|r| r.q).collect());
    t.f64("qd", j.iter().map(|r| r.qd).collect());
    t.f64("qdd", j.iter().map(|r| r.qdd).collect());
    t.f64("tau", j.iter().map(|r| r.tau).collect());
    t.f64("tau_friction", j.iter().map(|r| r.tau_friction).collect());
    t.f64("i", j.iter().map(|r| r.current).collect());
    for (name, values) in &rec.measured {
        t.f64(name, values.clone());
    }
    t
}

fn truth_table(chain: &Chain) -> Table {
    let links = &chain.links;
    let mut t = Table::new();
    t.u8("body", (1..=links.len() as u8).collect());
    t.utf8("name", links.iter().map(|l| l.name.clone()).collect());
    t.utf8(
        "joint_kind",
        links
            .iter()
            .map(|l| l.joint.kind.as_str().to_string())
            .collect(),
    );
    let col = |f: &dyn Fn(&crate::model::Link) -> f64| links.iter().map(f).collect::<Vec<f64>>();
    t.f64("mass", col(&|l| l.body.mass));
    t.f64("j11", col(&|l| l.body.inertia[0]));
    t.f64("j22", col(&|l| l.body.inertia[1]));
    t.f64("j33", col(&|l| l.body.inertia[2]));
    t.f64("length", col(&|l| l.body.shape.length()));
    t.f64_nullable(
        "radius",
        links.iter().map(|l| l.body.shape.radius()).collect(),
    );
    t.f64(
        "com_offset",
        col(&|l| (l.body.centroid() - l.joint.anchor()).norm()),
    );
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        t.f64(&format!("com_{axis}"), col(&|l| l.body.centroid[i]));
    }
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        t.f64(&format!("joint_axis_{axis}"), col(&|l| l.joint.axis[i]));
    }
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        t.f64(&format!("joint_{axis}"), col(&|l| l.joint.anchor[i]));
    }
    t.f64("joint_damping", col(&|l| l.joint.damping));
    full_inertia(&mut t, chain);
    t
}

/// The extension columns of `truth.parquet` for arms whose bodies are not along their links
/// (any URDF model): the body frame (`e1_x … e3_z`, its axes in the world frame at the zero
/// configuration), the centroid seen from the joint point in the body frame (`com_body_x..z`,
/// m), the central inertia tensor in the world frame at the zero configuration (`inertia_xx,
/// _xy, _xz, _yy, _yz, _zz`, kg·m²; in the body frame it is `diag(j11, j22, j33)`), and the ten
/// standard parameters of the link frame (body axes, origin at the joint point), what
/// regressor-based identification estimates: `pi_m, pi_mx, pi_my, pi_mz, pi_ixx, pi_ixy,
/// pi_ixz, pi_iyy, pi_iyz, pi_izz` ([`crate::dynamics::StandardParameters`]).
fn full_inertia(t: &mut Table, chain: &Chain) {
    let links = &chain.links;
    let col = |f: &dyn Fn(&crate::model::Link) -> f64| links.iter().map(f).collect::<Vec<f64>>();
    for (k, e) in ["e1", "e2", "e3"].iter().enumerate() {
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            t.f64(&format!("{e}_{axis}"), col(&|l| l.body.frame[k][i]));
        }
    }
    let body_offset = |l: &crate::model::Link| {
        l.body.rotation().inverse() * (l.body.centroid() - l.joint.anchor())
    };
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        t.f64(&format!("com_body_{axis}"), col(&|l| body_offset(l)[i]));
    }
    let world = |l: &crate::model::Link| {
        let r = l.body.rotation();
        r * l.body.inertia_body() * r.inverse()
    };
    for (name, (r, c)) in [
        ("xx", (0, 0)),
        ("xy", (0, 1)),
        ("xz", (0, 2)),
        ("yy", (1, 1)),
        ("yz", (1, 2)),
        ("zz", (2, 2)),
    ] {
        t.f64(&format!("inertia_{name}"), col(&|l| world(l)[(r, c)]));
    }
    let params: Vec<crate::dynamics::StandardParameters> = (0..links.len())
        .map(|k| crate::dynamics::StandardParameters::of_link(chain, k))
        .collect();
    for (i, name) in [
        "m", "mx", "my", "mz", "ixx", "ixy", "ixz", "iyy", "iyz", "izz",
    ]
    .iter()
    .enumerate()
    {
        t.f64(
            &format!("pi_{name}"),
            params.iter().map(|p| p.0[i]).collect(),
        );
    }
}

/// Writes the four files of a run (`bodies.parquet`, `joints.parquet`, `truth.parquet`,
/// `manifest.json`) and their checksum list (`SHA256SUMS`) into the existing directory `dir`,
/// not atomically (callers write into a temporary directory and move the files into place).
pub fn write_files(dir: &Path, rec: &Recording, manifest: &Manifest) -> Result<(), DatasetError> {
    let meta = vec![
        KeyValue::new("run_id".to_string(), rec.run_id.clone()),
        KeyValue::new(
            "dataset_format_version".to_string(),
            manifest.format_version.to_string(),
        ),
    ];
    bodies_table(rec).write(&dir.join(BODIES_FILE), meta.clone())?;
    joints_table(rec).write(&dir.join(JOINTS_FILE), meta.clone())?;
    truth_table(&manifest.model).write(&dir.join(TRUTH_FILE), meta)?;
    let json = serde_json::to_string_pretty(manifest).expect("manifest serializes");
    let path = dir.join(MANIFEST_FILE);
    std::fs::write(&path, json + "\n").map_err(io(&path))?;
    super::checksum::write(&dir.join(CHECKSUMS_FILE), dir, &RUN_FILES)
}

/// Writes the run directory `out` from a recording and its manifest. The files are written to
/// a temporary sibling directory that replaces `out` only when complete; on error nothing is
/// left behind. With `force`, an existing `out` is replaced.
pub fn write_run(
    out: &Path,
    rec: &Recording,
    manifest: &Manifest,
    force: bool,
) -> Result<(), DatasetError> {
    if let Some(invalid) = &manifest.invalid {
        return Err(DatasetError::Invalid(
            Box::new(invalid.clone()),
            out.to_owned(),
        ));
    }
    write_run_keeping_invalid(out, rec, manifest, force)
}

/// [`write_run`] also for a run that failed a validity gate: its manifest then says
/// `valid: false` beside the failure.
pub fn write_run_keeping_invalid(
    out: &Path,
    rec: &Recording,
    manifest: &Manifest,
    force: bool,
) -> Result<(), DatasetError> {
    let marked;
    let manifest = if manifest.invalid.is_some() {
        marked = Manifest {
            valid: false,
            ..manifest.clone()
        };
        &marked
    } else {
        manifest
    };
    write_dir(out, force, |tmp| write_files(tmp, rec, manifest))
}

/// Writes the directory `out` whole or not at all: `fill` writes its files into a temporary
/// sibling (`.<name>.partial-<host>-<pid>`), which replaces `out` only when `fill` succeeds; on
/// error nothing is left behind. With `force`, an existing `out` is replaced.
pub(super) fn write_dir(
    out: &Path,
    force: bool,
    fill: impl FnOnce(&Path) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    if out.exists() && !force {
        return Err(DatasetError::Exists(out.to_owned()));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into());
    let prefix = format!(".{name}.partial-");
    super::temporary::remove_stale(&parent, &prefix);
    let tmp = parent.join(super::temporary::name(&prefix));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir(&tmp).map_err(io(&tmp))?;
    let result = (|| {
        fill(&tmp)?;
        if out.exists() {
            std::fs::remove_dir_all(out).map_err(io(out))?;
        }
        std::fs::rename(&tmp, out).map_err(io(out))
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}
