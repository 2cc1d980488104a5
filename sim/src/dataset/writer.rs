//! Writes a run directory: Parquet (ZSTD, `BYTE_STREAM_SPLIT` on f64 columns) and JSON, into a
//! temporary sibling directory that is renamed into place only once every file is complete.

use std::path::Path;

use parquet::file::metadata::KeyValue;

use super::manifest::Manifest;
use crate::dataset::atomic::write_dir;
use crate::dataset::checksum::CHECKSUMS_FILE;
use crate::dataset::columns::*;
use crate::dataset::table::Table;
use crate::dataset::{DatasetError, io};
use crate::model::Chain;
use crate::recording::Recording;

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
    if rec.elastic {
        t.f64("q_motor", j.iter().map(|r| r.q_motor).collect());
        t.f64("qd_motor", j.iter().map(|r| r.qd_motor).collect());
    }
    if rec.friction_state {
        t.f64("bristle_z", j.iter().map(|r| r.bristle_z).collect());
    }
    if rec.commanded {
        t.f64(Q_CMD, j.iter().map(|r| r.q_cmd).collect());
    }
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

/// A run's three tables in memory, as its Parquet files hold them (the dataset contract's
/// columns; `bodies.parquet`, `joints.parquet`, `truth.parquet`).
#[derive(Clone, Debug)]
pub struct RunTables {
    /// One row per (sample, body).
    pub bodies: arrow_array::RecordBatch,
    /// One row per (sample, joint).
    pub joints: arrow_array::RecordBatch,
    /// One row per body: its true inertial parameters.
    pub truth: arrow_array::RecordBatch,
}

/// The tables of a run from its recording and manifest, without writing them.
pub fn tables(rec: &Recording, manifest: &Manifest) -> RunTables {
    let [bodies, joints, truth] =
        run_tables(rec, manifest).map(|t| t.batch().expect("a table's columns have one length"));
    RunTables {
        bodies,
        joints,
        truth,
    }
}

/// A run's three tables under construction: `[bodies, joints, truth]`.
pub(crate) fn run_tables(rec: &Recording, manifest: &Manifest) -> [Table; 3] {
    [
        bodies_table(rec),
        joints_table(rec),
        truth_table(&manifest.model),
    ]
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
    for (table, file) in run_tables(rec, manifest).into_iter().zip(RUN_FILES) {
        table.write(&dir.join(file), meta.clone())?;
    }
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
