//! The Parquet side of the reader: a file's columns as one table, and the bodies, joints and
//! truth tables of a run directory turned into series.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Float64Type, UInt8Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use sim::dataset::Manifest;
use sim::recording::BodyGroup;

use super::{BodySeries, BodyTruth, JointColumn, JointSeries, ReadError, Truth};

/// All columns of one Parquet file, concatenated over its row groups.
struct Table {
    path: PathBuf,
    columns: HashMap<String, Vec<ArrayRef>>,
}

impl Table {
    /// Reads every column of a Parquet file. The Arrow schema embedded in the file's metadata
    /// is not read (the Parquet schema gives the same types for these columns): arrow-ipc
    /// panics on some malformed ones instead of failing. A panic of the Parquet reader on a
    /// malformed file is still turned into an error naming the file.
    fn read(path: &Path) -> Result<Table, ReadError> {
        let read = std::panic::catch_unwind(|| Self::read_unguarded(path));
        read.unwrap_or_else(|_| {
            Err(ReadError::Format {
                path: path.to_owned(),
                message: "the Parquet reader failed on a malformed file".into(),
            })
        })
    }

    fn read_unguarded(path: &Path) -> Result<Table, ReadError> {
        let fmt = |e: &dyn std::fmt::Display| ReadError::Format {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(sim::dataset::io(path))?;
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

    fn integers<T: ArrowPrimitiveType>(&self, name: &str) -> Result<Vec<T::Native>, ReadError> {
        Ok(self
            .column(name, T::DATA_TYPE)?
            .iter()
            .flat_map(|a| a.as_primitive::<T>().values().to_vec())
            .collect())
    }

    fn u32(&self, name: &str) -> Result<Vec<u32>, ReadError> {
        self.integers::<UInt32Type>(name)
    }

    fn u8(&self, name: &str) -> Result<Vec<u8>, ReadError> {
        self.integers::<UInt8Type>(name)
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

/// For each entity (body or joint) and each sample, the row that holds it; an error unless every
/// (sample, entity) pair occurs exactly once.
fn row_index(
    path: &Path,
    sample: &[u32],
    entity: &[usize],
    entities: usize,
) -> Result<(usize, Vec<Vec<usize>>), ReadError> {
    let samples = sample.iter().map(|s| *s as usize + 1).max().unwrap_or(0);
    let mut rows = vec![vec![usize::MAX; samples]; entities];
    for (r, (&s, &e)) in sample.iter().zip(entity).enumerate() {
        rows[e][s as usize] = r;
    }
    if sample.len() != samples * entities || rows.iter().flatten().any(|r| *r == usize::MAX) {
        return Err(ReadError::Column {
            path: path.to_owned(),
            column: "sample".into(),
            expected: "exactly one row per (sample, body or joint)".into(),
        });
    }
    Ok((samples, rows))
}

fn pick<T: Clone>(column: &[T], rows: &[usize]) -> Vec<T> {
    rows.iter().map(|&r| column[r].clone()).collect()
}

pub(super) fn read_manifest(manifest_path: &Path) -> Result<Manifest, ReadError> {
    let text = std::fs::read_to_string(manifest_path).map_err(|source| ReadError::Io {
        path: manifest_path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| ReadError::Format {
        path: manifest_path.to_owned(),
        message: e.to_string(),
    })
}

/// `(run_id, t, bodies)` of `bodies.parquet`.
pub(super) fn read_bodies(
    bodies_path: &Path,
) -> Result<(String, Vec<f64>, Vec<BodySeries>), ReadError> {
    let bt = Table::read(bodies_path)?;
    let run_id = bt.utf8("run_id")?.into_iter().next().unwrap_or_default();
    let body = bt.u8("body")?;
    if body.contains(&0) {
        return Err(ReadError::Column {
            path: bodies_path.to_owned(),
            column: "body".into(),
            expected: "bodies numbered from 1".into(),
        });
    }
    let n_bodies = body.iter().copied().max().unwrap_or(0) as usize;
    let entity: Vec<usize> = body.iter().map(|b| *b as usize - 1).collect();
    let (_, rows) = row_index(bodies_path, &bt.u32("sample")?, &entity, n_bodies)?;
    let t_rows = bt.f64("t")?;
    let t = rows.first().map(|r| pick(&t_rows, r)).unwrap_or_default();
    let xyz = ["_x", "_y", "_z"];
    let e123 = ["_1", "_2", "_3"];
    let (pos, vel, acc) = (
        bt.vec3("pos", xyz)?,
        bt.vec3("vel", xyz)?,
        bt.vec3("acc", xyz)?,
    );
    let euler = bt.vec3("euler_", ["a", "b", "g"])?;
    let euler_d = bt.vec3("euler_", ["a_d", "b_d", "g_d"])?;
    let euler_dd = bt.vec3("euler_", ["a_dd", "b_dd", "g_dd"])?;
    let (omega, omega_dot) = (bt.vec3("omega", e123)?, bt.vec3("omega_dot", e123)?);
    let (force, moment, joint_point) = (bt.vec3("f", xyz)?, bt.vec3("n", xyz)?, bt.vec3("o", xyz)?);
    let mut measured = Vec::new();
    for g in BodyGroup::NOISY.into_iter().chain([BodyGroup::ImuSf]) {
        let names = g.columns().map(|c| format!("{c}_meas"));
        if names.iter().all(|n| bt.columns.contains_key(n)) {
            let [x, y, z] = names.map(|n| bt.f64(&n));
            let (x, y, z) = (x?, y?, z?);
            measured.push((
                g,
                (0..x.len())
                    .map(|i| Vector3::new(x[i], y[i], z[i]))
                    .collect::<Vec<_>>(),
            ));
        }
    }
    let (qw, qv) = (bt.f64("quat_w")?, bt.vec3("quat", xyz)?);
    let quat: Vec<UnitQuaternion<f64>> = qw
        .iter()
        .zip(&qv)
        .map(|(w, v)| UnitQuaternion::new_normalize(Quaternion::new(*w, v.x, v.y, v.z)))
        .collect();
    let bodies = rows
        .iter()
        .map(|r| BodySeries {
            pos: pick(&pos, r),
            quat: pick(&quat, r),
            euler: pick(&euler, r),
            euler_d: pick(&euler_d, r),
            euler_dd: pick(&euler_dd, r),
            vel: pick(&vel, r),
            acc: pick(&acc, r),
            omega: pick(&omega, r),
            omega_dot: pick(&omega_dot, r),
            force: pick(&force, r),
            moment: pick(&moment, r),
            joint_point: pick(&joint_point, r),
            measured: measured.iter().map(|(g, v)| (*g, pick(v, r))).collect(),
        })
        .collect();

    Ok((run_id, t, bodies))
}

/// A joints table's joint ids (ascending), its number of samples, and per joint the row of
/// each sample ([`row_index`]).
struct JointRows {
    ids: Vec<u8>,
    samples: usize,
    rows: Vec<Vec<usize>>,
}

fn joint_rows(jt: &Table) -> Result<JointRows, ReadError> {
    let jid = jt.u8("joint")?;
    let mut ids = jid.clone();
    ids.sort_unstable();
    ids.dedup();
    let entity: Vec<usize> = (jid.iter())
        .map(|j| ids.binary_search(j).expect("listed"))
        .collect();
    let (samples, rows) = row_index(&jt.path, &jt.u32("sample")?, &entity, ids.len())?;
    Ok(JointRows { ids, samples, rows })
}

pub(super) fn read_joints(
    joints_path: &Path,
    bodies_path: &Path,
    samples: usize,
) -> Result<Vec<JointSeries>, ReadError> {
    let jt = Table::read(joints_path)?;
    let kind = jt.utf8("kind")?;
    let JointRows {
        ids,
        samples: jsamples,
        rows: jrows,
    } = joint_rows(&jt)?;
    if jsamples != samples {
        return Err(ReadError::Column {
            path: joints_path.to_owned(),
            column: "sample".into(),
            expected: format!("{samples} samples, as in {}", bodies_path.display()),
        });
    }
    let [q, qd, qdd, tau, tau_friction, current] =
        ["q", "qd", "qdd", "tau", "tau_friction", "i"].map(|c| jt.f64(c));
    let (q, qd, qdd, tau, tau_friction, current) = (q?, qd?, qdd?, tau?, tau_friction?, current?);
    let meas_names: Vec<String> = jt
        .columns
        .keys()
        .filter(|c| c.ends_with("_meas"))
        .cloned()
        .collect();
    let meas: Vec<(JointColumn, Vec<f64>)> = meas_names
        .iter()
        .map(|c| {
            let column = c.strip_suffix("_meas").and_then(JointColumn::from_name);
            let column = column.ok_or_else(|| ReadError::Column {
                path: joints_path.to_owned(),
                column: c.clone(),
                expected: "a measured copy of a joint column: q_meas, qd_meas, qdd_meas, \
                           tau_meas or i_meas"
                    .into(),
            })?;
            Ok((column, jt.f64(c)?))
        })
        .collect::<Result<_, ReadError>>()?;
    let joints = ids
        .iter()
        .zip(&jrows)
        .map(|(&id, r)| JointSeries {
            measured: meas.iter().map(|(c, v)| (*c, pick(v, r))).collect(),
            id,
            kind: kind[r[0]].clone(),
            q: pick(&q, r),
            qd: pick(&qd, r),
            qdd: pick(&qdd, r),
            tau: pick(&tau, r),
            tau_friction: pick(&tau_friction, r),
            current: pick(&current, r),
            gain: 1.0,
            reference: None,
            excitation: None,
        })
        .collect();

    Ok(joints)
}

pub(super) fn read_truth(truth_path: &Path) -> Result<Truth, ReadError> {
    let tt = Table::read(truth_path)?;
    let (tb, names) = (tt.u8("body")?, tt.utf8("name")?);
    let [mass, j11, j22, j33, length, radius, damping] = [
        "mass",
        "j11",
        "j22",
        "j33",
        "length",
        "radius",
        "joint_damping",
    ]
    .map(|c| tt.f64(c));
    let (mass, j11, j22, j33, length, radius, damping) =
        (mass?, j11?, j22?, j33?, length?, radius?, damping?);
    Ok(Truth {
        bodies: (0..tb.len())
            .map(|i| BodyTruth {
                body: tb[i],
                name: names[i].clone(),
                mass: mass[i],
                j: [j11[i], j22[i], j33[i]],
                length: length[i],
                radius: radius[i],
                joint_damping: damping[i],
            })
            .collect(),
    })
}
