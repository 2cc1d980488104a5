//! The measurement directory: what an estimator outside this crate is given, written as files
//! any language reads (the protocol of [`crate::estimate::external`]; the contract in
//! `book/src/dataset.md`, "Measurement directory").
//!
//! It holds a run as its sensors saw it ([`Measurements`]) and nothing of its truth:
//!
//! - `joints.parquet`: one row per (sample, joint): `sample` (u32), `t` (s), `joint` (u8, the
//!   dataset joint id), `kind` (`revolute` | `prismatic`), `q, qd, qdd, tau, i` — each the
//!   measured (`_meas`) series where the run has one, else the ideal sensor's (the clean column),
//!   units and signs of the run's `joints.parquet`;
//! - `bodies.parquet`: one row per (sample, body): `sample`, `t`, `body` (u8, 1..n), the body
//!   groups of the run's `bodies.parquet` under the same names and frames (`pos_*`, `quat_*`,
//!   `euler_*`, `vel_*`, `acc_*`, `omega_*`, `omega_dot_*`, `f_*`, `n_*`, `o_*`), measured where
//!   the run has a measured copy, and `imu_sf_1..3` where a body carries an IMU (NaN on the
//!   others);
//! - `measurement.json`: `run_id`, `gravity` (world, m/s²), `samples`, `geometry` (the arm's
//!   kinematics without its inertial parameters, the manifest's model schema with every mass,
//!   inertia and friction zeroed), `stated` (the sensors and noise laws the run states: a
//!   datasheet, not the noise drawn), `gains` (per joint id, the drive gain K, N·m/A or N/A),
//!   and `measured` (per column or body group, the joints or bodies whose series carry noise).
//!
//! No ground-truth column and no truth file: an estimator given this directory cannot read the
//! parameters it is scored on.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::recording::BodyGroup;
use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt8Array, UInt32Array};
use arrow_schema::{DataType, Field, Schema};
use nalgebra::Vector3;
use serde::Serialize;

use super::Measurements;
use crate::recording::JointColumn;

/// File names of a measurement directory.
pub(crate) const JOINTS: &str = "joints.parquet";
/// The bodies' table.
pub(crate) const BODIES: &str = "bodies.parquet";
/// The description (`measurement.json`).
pub(crate) const DESCRIPTION: &str = "measurement.json";

/// The body groups written, in column order (the joint point `o_*` follows them).
const GROUPS: [BodyGroup; 10] = BodyGroup::NOISY;

/// `measurement.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Description {
    /// The run's id.
    pub run_id: String,
    /// Gravity, world frame (m/s²).
    pub gravity: [f64; 3],
    /// Samples per joint and per body.
    pub samples: usize,
    /// The arm's kinematics without inertial parameters (the manifest's `model` schema).
    pub geometry: crate::model::Chain,
    /// The stated measurement model.
    pub stated: StatedSensors,
    /// Drive gain `K` per dataset joint id (N·m/A or N/A).
    pub gains: BTreeMap<u8, f64>,
    /// Per joint column or body group name, the joints or bodies whose series are noisy.
    pub measured: BTreeMap<String, Vec<u8>>,
}

/// The stated sensors and noise laws (the scenario's `[[sensor]]` and `[[noise]]`).
#[derive(Clone, Debug, Serialize)]
pub struct StatedSensors {
    /// Physical sensors.
    pub sensors: Vec<crate::sensor::Sensor>,
    /// Per-column noise laws.
    pub noise: Vec<crate::noise::ColumnNoise>,
}

/// The two tables and the description of a measurement directory.
#[derive(Clone, Debug)]
pub struct MeasurementTables {
    /// `joints.parquet`.
    pub joints: RecordBatch,
    /// `bodies.parquet`.
    pub bodies: RecordBatch,
    /// `measurement.json`.
    pub description: Description,
}

/// Named columns of equal length, in order.
#[derive(Default)]
struct Columns {
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
}

impl Columns {
    fn push(&mut self, name: &str, kind: DataType, array: ArrayRef) {
        self.fields.push(Field::new(name, kind, false));
        self.arrays.push(array);
    }

    fn f64(&mut self, name: &str, values: Vec<f64>) {
        self.push(
            name,
            DataType::Float64,
            Arc::new(Float64Array::from(values)),
        );
    }

    fn batch(self) -> RecordBatch {
        RecordBatch::try_new(Arc::new(Schema::new(self.fields)), self.arrays)
            .expect("columns of one length")
    }
}

/// The rows `(sample, entity)` of `entities` entities over `n` samples, sample-major.
fn keys(n: usize, entities: &[u8], t: &[f64]) -> (Columns, usize) {
    let mut c = Columns::default();
    let rows = n * entities.len();
    let sample: Vec<u32> = (0..rows).map(|r| (r / entities.len()) as u32).collect();
    let time: Vec<f64> = sample.iter().map(|&s| t[s as usize]).collect();
    c.push(
        "sample",
        DataType::UInt32,
        Arc::new(UInt32Array::from(sample)),
    );
    c.f64("t", time);
    (c, rows)
}

fn joints_table(m: &Measurements) -> RecordBatch {
    let ids: Vec<u8> = m.joints.iter().map(|j| j.id).collect();
    let (mut c, rows) = keys(m.samples(), &ids, &m.t);
    let per_row = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        (0..rows).map(|r| f(r / ids.len(), r % ids.len())).collect()
    };
    let joint: Vec<u8> = (0..rows).map(|r| ids[r % ids.len()]).collect();
    c.push("joint", DataType::UInt8, Arc::new(UInt8Array::from(joint)));
    let kind: Vec<&str> = (0..rows)
        .map(|r| m.joints[r % ids.len()].kind.as_str())
        .collect();
    c.push("kind", DataType::Utf8, Arc::new(StringArray::from(kind)));
    for column in JointColumn::ALL {
        let values = per_row(&|s, k| m.joints[k].measured_or_clean(column)[s]);
        c.f64(column.name(), values);
    }
    if m.joints.iter().any(|j| j.q_cmd.is_some()) {
        let command = |s: usize, k: usize| m.joints[k].q_cmd.as_ref().map_or(f64::NAN, |c| c[s]);
        c.f64(crate::dataset::columns::Q_CMD, per_row(&command));
    }
    c.batch()
}

fn bodies_table(m: &Measurements) -> RecordBatch {
    let ids: Vec<u8> = (1..=m.bodies.len() as u8).collect();
    let (mut c, rows) = keys(m.samples(), &ids, &m.t);
    let per_row = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        (0..rows).map(|r| f(r / ids.len(), r % ids.len())).collect()
    };
    c.push(
        "body",
        DataType::UInt8,
        Arc::new(UInt8Array::from_iter_values(
            (0..rows).map(|r| ids[r % ids.len()]),
        )),
    );
    let vector = |c: &mut Columns, names: [&str; 3], get: &dyn Fn(usize, usize) -> Vector3<f64>| {
        for (axis, name) in names.into_iter().enumerate() {
            c.f64(name, per_row(&|s, b| get(s, b)[axis]));
        }
    };
    for group in GROUPS {
        vector(&mut c, group.columns(), &|s, b| {
            m.bodies[b].measured_or_clean(group)[s]
        });
        if group == BodyGroup::Pos {
            for (axis, name) in ["quat_w", "quat_x", "quat_y", "quat_z"].iter().enumerate() {
                let q = per_row(&|s, b| m.bodies[b].quat[s].coords[(axis + 3) % 4]);
                c.f64(name, q);
            }
        }
    }
    vector(&mut c, ["o_x", "o_y", "o_z"], &|s, b| {
        m.bodies[b].joint_point[s]
    });
    if m.bodies
        .iter()
        .any(|b| b.measured.contains_key(&BodyGroup::ImuSf))
    {
        vector(&mut c, BodyGroup::ImuSf.columns(), &|s, b| {
            let series = m.bodies[b].measured_or_clean(BodyGroup::ImuSf);
            series.get(s).copied().unwrap_or(Vector3::repeat(f64::NAN))
        });
    }
    c.batch()
}

fn description(m: &Measurements) -> Description {
    let mut measured: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for j in &m.joints {
        for column in j.measured.keys() {
            measured.entry(column.name().into()).or_default().push(j.id);
        }
    }
    for (b, body) in m.bodies.iter().enumerate() {
        for group in body.measured.keys() {
            measured
                .entry(group.name().into())
                .or_default()
                .push(b as u8 + 1);
        }
    }
    Description {
        run_id: m.run_id.clone(),
        gravity: m.geometry.gravity,
        samples: m.samples(),
        geometry: m.geometry.clone(),
        stated: StatedSensors {
            sensors: m.stated.sensors.clone(),
            noise: m.stated.noise.clone(),
        },
        gains: m.joints.iter().map(|j| (j.id, j.gain)).collect(),
        measured,
    }
}

/// The tables and description of `m`'s measurement directory.
pub fn tables(m: &Measurements) -> MeasurementTables {
    MeasurementTables {
        joints: joints_table(m),
        bodies: bodies_table(m),
        description: description(m),
    }
}

/// Writes `m`'s measurement directory into the existing, empty directory `dir`.
pub fn write(dir: &Path, m: &Measurements) -> Result<(), crate::dataset::DatasetError> {
    let t = tables(m);
    parquet(&dir.join(JOINTS), &t.joints)?;
    parquet(&dir.join(BODIES), &t.bodies)?;
    let path = dir.join(DESCRIPTION);
    let text = serde_json::to_string_pretty(&t.description).expect("serializes");
    std::fs::write(&path, text).map_err(|e| crate::dataset::DatasetError::Io { path, source: e })
}

fn parquet(path: &Path, batch: &RecordBatch) -> Result<(), crate::dataset::DatasetError> {
    let fail = |message: String| crate::dataset::DatasetError::Format {
        path: path.to_owned(),
        message,
    };
    let file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None)
        .map_err(|e| fail(e.to_string()))?;
    writer.write(batch).map_err(|e| fail(e.to_string()))?;
    writer.close().map_err(|e| fail(e.to_string()))?;
    Ok(())
}
