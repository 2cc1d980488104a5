//! Reads a run directory (`shared/spec/dataset.md`) into measurement series and ground truth.
//!
//! [`Measurements`] holds only what a sensor could give (kinematics, joint wrenches, joint
//! coordinates and forces); [`Truth`] holds the inertial parameters. Estimators receive only the
//! former ([`crate::estimator::Estimator`]); the truth is read by the scorer.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt8Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sim::dataset::Manifest;
use sim::dataset::columns::{BODIES_FILE, JOINTS_FILE, MANIFEST_FILE, TRUTH_FILE};

/// A run directory that cannot be read, naming the file and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// File-system failure.
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid Parquet/JSON.
    #[error("`{path}`: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A column is missing or of the wrong type.
    #[error("`{path}`: column `{column}`: expected {expected}")]
    Column {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// The expected type or content.
        expected: String,
    },
}

/// All columns of one Parquet file, concatenated over its row groups.
struct Table {
    path: PathBuf,
    columns: HashMap<String, Vec<ArrayRef>>,
}

impl Table {
    fn read(path: &Path) -> Result<Table, ReadError> {
        let fmt = |e: &dyn std::fmt::Display| ReadError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(|source| ReadError::Io {
            path: path.to_owned(),
            source,
        })?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
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
        Ok(Table {
            path: path.to_owned(),
            columns,
        })
    }

    fn column(&self, name: &str, ty: DataType) -> Result<&[ArrayRef], ReadError> {
        let err = || ReadError::Column {
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

    fn f64(&self, name: &str) -> Result<Vec<f64>, ReadError> {
        let arrays = self.column(name, DataType::Float64)?;
        Ok(arrays
            .iter()
            .flat_map(|a| {
                let a = a.as_primitive::<Float64Type>();
                (0..a.len()).map(move |i| if a.is_null(i) { f64::NAN } else { a.value(i) })
            })
            .collect())
    }

    fn u32(&self, name: &str) -> Result<Vec<u32>, ReadError> {
        Ok(self
            .column(name, DataType::UInt32)?
            .iter()
            .flat_map(|a| a.as_primitive::<UInt32Type>().values().to_vec())
            .collect())
    }

    fn u8(&self, name: &str) -> Result<Vec<u8>, ReadError> {
        Ok(self
            .column(name, DataType::UInt8)?
            .iter()
            .flat_map(|a| a.as_primitive::<UInt8Type>().values().to_vec())
            .collect())
    }

    fn utf8(&self, name: &str) -> Result<Vec<String>, ReadError> {
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

    fn vec3(&self, prefix: &str, suffixes: [&str; 3]) -> Result<Vec<Vector3<f64>>, ReadError> {
        let [x, y, z] = suffixes.map(|s| self.f64(&format!("{prefix}{s}")));
        let (x, y, z) = (x?, y?, z?);
        Ok((0..x.len())
            .map(|i| Vector3::new(x[i], y[i], z[i]))
            .collect())
    }
}

/// Measured time series of one body (sample-indexed). Frames as in the dataset contract.
#[derive(Clone, Debug, Default)]
pub struct BodySeries {
    /// Centroid position, world (m).
    pub pos: Vec<Vector3<f64>>,
    /// Body → world rotation.
    pub quat: Vec<UnitQuaternion<f64>>,
    /// Cardan angles (α, β, γ) (rad).
    pub euler: Vec<Vector3<f64>>,
    /// Their first derivatives (rad/s).
    pub euler_d: Vec<Vector3<f64>>,
    /// Their second derivatives (rad/s²).
    pub euler_dd: Vec<Vector3<f64>>,
    /// Centroid velocity, world (m/s).
    pub vel: Vec<Vector3<f64>>,
    /// Centroid acceleration, world (m/s²).
    pub acc: Vec<Vector3<f64>>,
    /// Angular velocity, body frame (rad/s).
    pub omega: Vec<Vector3<f64>>,
    /// Angular acceleration, body frame (rad/s²).
    pub omega_dot: Vec<Vector3<f64>>,
    /// Force of the parent on the body through `O_i`, world (N).
    pub force: Vec<Vector3<f64>>,
    /// Moment of the parent on the body about `O_i`, world (N·m).
    pub moment: Vec<Vector3<f64>>,
    /// Position of `O_i`, world (m).
    pub joint_point: Vec<Vector3<f64>>,
}

/// Measured time series of one joint.
#[derive(Clone, Debug, Default)]
pub struct JointSeries {
    /// Dataset joint id (0 = rail, `i` = `O_i`).
    pub id: u8,
    /// `revolute` | `prismatic`.
    pub kind: String,
    /// Coordinate.
    pub q: Vec<f64>,
    /// Velocity.
    pub qd: Vec<f64>,
    /// Acceleration.
    pub qdd: Vec<f64>,
    /// Actuator generalized force.
    pub tau: Vec<f64>,
    /// Friction/damping generalized force.
    pub tau_friction: Vec<f64>,
    /// Rapier's motor impulse / step (NaN where no motor): for checks only.
    pub tau_motor: Vec<f64>,
}

/// Everything an estimator may read: the measurement columns of a run.
#[derive(Clone, Debug)]
pub struct Measurements {
    /// Run id.
    pub run_id: String,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Per body `1..n` (index `b − 1`).
    pub bodies: Vec<BodySeries>,
    /// Per joint, in dataset order.
    pub joints: Vec<JointSeries>,
}

/// Ground truth of one body.
#[derive(Clone, Debug)]
pub struct BodyTruth {
    /// Body number (1-based).
    pub body: u8,
    /// Name.
    pub name: String,
    /// Mass (kg).
    pub mass: f64,
    /// Central principal moments (kg·m²).
    pub j: [f64; 3],
    /// Length (m).
    pub length: f64,
    /// Radius (m), NaN where not applicable.
    pub radius: f64,
}

/// Ground truth of a run: only the scorer reads it.
#[derive(Clone, Debug)]
pub struct Truth {
    /// Per body.
    pub bodies: Vec<BodyTruth>,
}

/// A run directory, read.
#[derive(Clone, Debug)]
pub struct Run {
    /// Where it was read from.
    pub dir: PathBuf,
    /// Its manifest (holds the model: truth; not for estimators).
    pub manifest: Manifest,
    /// The measurement columns.
    pub measurements: Measurements,
    /// The truth table.
    pub truth: Truth,
}

impl Measurements {
    /// Number of samples.
    pub fn samples(&self) -> usize {
        self.t.len()
    }

    /// Index of the sample at time `t` (within 1e-9 s), if any.
    pub fn sample_at(&self, t: f64) -> Option<usize> {
        self.t.iter().position(|s| (s - t).abs() < 1e-9)
    }
}

/// Reads a run directory.
pub fn read_run(dir: &Path) -> Result<Run, ReadError> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&manifest_path).map_err(|source| ReadError::Io {
        path: manifest_path.clone(),
        source,
    })?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| ReadError::Format {
        path: manifest_path.clone(),
        message: e.to_string(),
    })?;

    let bodies_path = dir.join(BODIES_FILE);
    let bt = Table::read(&bodies_path)?;
    let sample = bt.u32("sample")?;
    let body = bt.u8("body")?;
    let t_rows = bt.f64("t")?;
    let run_id = bt.utf8("run_id")?.into_iter().next().unwrap_or_default();
    let samples = sample.iter().map(|s| *s as usize + 1).max().unwrap_or(0);
    let n_bodies = body.iter().copied().max().unwrap_or(0) as usize;
    if sample.len() != samples * n_bodies || body.contains(&0) {
        return Err(ReadError::Column {
            path: bodies_path,
            column: "sample/body".into(),
            expected: "one row per (sample 0..S, body 1..n)".into(),
        });
    }
    let xyz = ["_x", "_y", "_z"];
    let e123 = ["_1", "_2", "_3"];
    let cols = [
        bt.vec3("pos", xyz)?,
        bt.vec3("euler_", ["a", "b", "g"])?,
        bt.vec3("euler_", ["a_d", "b_d", "g_d"])?,
        bt.vec3("euler_", ["a_dd", "b_dd", "g_dd"])?,
        bt.vec3("vel", xyz)?,
        bt.vec3("acc", xyz)?,
        bt.vec3("omega", e123)?,
        bt.vec3("omega_dot", e123)?,
        bt.vec3("f", xyz)?,
        bt.vec3("n", xyz)?,
        bt.vec3("o", xyz)?,
    ];
    let qw = bt.f64("quat_w")?;
    let qv = bt.vec3("quat", xyz)?;
    let mut t = vec![0.0; samples];
    let mut series = vec![BodySeries::default(); n_bodies];
    for s in &mut series {
        for v in [
            &mut s.pos,
            &mut s.euler,
            &mut s.euler_d,
            &mut s.euler_dd,
            &mut s.vel,
            &mut s.acc,
            &mut s.omega,
            &mut s.omega_dot,
            &mut s.force,
            &mut s.moment,
            &mut s.joint_point,
        ] {
            *v = vec![Vector3::zeros(); samples];
        }
        s.quat = vec![UnitQuaternion::identity(); samples];
    }
    for r in 0..sample.len() {
        let (k, b) = (sample[r] as usize, body[r] as usize - 1);
        t[k] = t_rows[r];
        let s = &mut series[b];
        let targets = [
            &mut s.pos,
            &mut s.euler,
            &mut s.euler_d,
            &mut s.euler_dd,
            &mut s.vel,
            &mut s.acc,
            &mut s.omega,
            &mut s.omega_dot,
            &mut s.force,
            &mut s.moment,
            &mut s.joint_point,
        ];
        for (target, col) in targets.into_iter().zip(&cols) {
            target[k] = col[r];
        }
        s.quat[k] =
            UnitQuaternion::new_normalize(Quaternion::new(qw[r], qv[r].x, qv[r].y, qv[r].z));
    }

    let joints_path = dir.join(JOINTS_FILE);
    let jt = Table::read(&joints_path)?;
    let (jsample, jid, kind) = (jt.u32("sample")?, jt.u8("joint")?, jt.utf8("kind")?);
    let values = ["q", "qd", "qdd", "tau", "tau_friction", "tau_motor"].map(|c| jt.f64(c));
    let mut ids: Vec<u8> = jid.clone();
    ids.sort_unstable();
    ids.dedup();
    let mut joints: Vec<JointSeries> = ids
        .iter()
        .map(|&id| JointSeries {
            id,
            ..Default::default()
        })
        .collect();
    for j in &mut joints {
        for v in [
            &mut j.q,
            &mut j.qd,
            &mut j.qdd,
            &mut j.tau,
            &mut j.tau_friction,
            &mut j.tau_motor,
        ] {
            *v = vec![f64::NAN; samples];
        }
    }
    let values: Vec<Vec<f64>> = values.into_iter().collect::<Result<_, _>>()?;
    for r in 0..jsample.len() {
        let k = jsample[r] as usize;
        let j = ids.binary_search(&jid[r]).expect("id listed");
        if k >= samples {
            return Err(ReadError::Column {
                path: joints_path,
                column: "sample".into(),
                expected: format!("samples 0..{samples}"),
            });
        }
        let js = &mut joints[j];
        js.kind = kind[r].clone();
        for (target, col) in [
            &mut js.q,
            &mut js.qd,
            &mut js.qdd,
            &mut js.tau,
            &mut js.tau_friction,
            &mut js.tau_motor,
        ]
        .into_iter()
        .zip(&values)
        {
            target[k] = col[r];
        }
    }

    let truth_path = dir.join(TRUTH_FILE);
    let tt = Table::read(&truth_path)?;
    let (tb, names) = (tt.u8("body")?, tt.utf8("name")?);
    let [mass, j11, j22, j33, length, radius] =
        ["mass", "j11", "j22", "j33", "length", "radius"].map(|c| tt.f64(c));
    let (mass, j11, j22, j33, length, radius) = (mass?, j11?, j22?, j33?, length?, radius?);
    let truth = Truth {
        bodies: (0..tb.len())
            .map(|i| BodyTruth {
                body: tb[i],
                name: names[i].clone(),
                mass: mass[i],
                j: [j11[i], j22[i], j33[i]],
                length: length[i],
                radius: radius[i],
            })
            .collect(),
    };

    Ok(Run {
        dir: dir.to_owned(),
        manifest,
        measurements: Measurements {
            run_id,
            t,
            bodies: series,
            joints,
        },
        truth,
    })
}
