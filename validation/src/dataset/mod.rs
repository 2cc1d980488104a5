//! Reads a run directory (`shared/spec/dataset.md`) into measurement series and ground truth.
//!
//! [`Measurements`] holds only what a sensor could give (kinematics, joint wrenches, joint
//! coordinates and forces); [`Truth`] holds the inertial parameters. Estimators receive only the
//! former, and only as the sensors saw it: [`Run::measurements`] holds the measured (`_meas`)
//! copy of every column that has one in place of the clean column ([`Measurements::sensed`]);
//! the clean columns are in [`Run::clean`], for physics checks. The truth is read by the scorer.

mod memory;
mod sensed;

pub use memory::from_simulated;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Float64Type, UInt8Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sim::dataset::Manifest;
use sim::dataset::columns::{BODIES_FILE, JOINTS_FILE, MANIFEST_FILE, TRUTH_FILE};
use sim::recording::BodyGroup;

pub use sim::dataset::DatasetError as ReadError;

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
        let file = File::open(path).map_err(sim::dataset::io(path))?;
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
    /// Measured copies of the groups that have them (`f` for `f_x_meas, f_y_meas, f_z_meas`),
    /// including the IMU's specific force [`BodyGroup::ImuSf`].
    pub measured: BTreeMap<BodyGroup, Vec<Vector3<f64>>>,
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
    /// Motor current `i = tau / K` (A).
    pub current: Vec<f64>,
    /// Drive gain `K` (N·m/A or N/A), from the manifest: a catalogue value of the drive.
    pub gain: f64,
    /// The commanded reference of a prescribed or servo joint (the experiment's design), from
    /// the manifest's scenario.
    pub reference: Option<sim::profile::Profile>,
    /// The commanded torque signal of a torque-driven joint (the experiment's design, scaled
    /// by the scenario's `torque_scale`), from the manifest's scenario.
    pub excitation: Option<sim::drive::Signal>,
    /// Noisy measured copies by column name (`q` for `q_meas`, …), where the run has them.
    pub measured: BTreeMap<String, Vec<f64>>,
}

impl JointSeries {
    /// The measured series of a column: its noisy `_meas` copy where there is one, else the
    /// clean column.
    pub fn measured_or_clean(&self, column: &str) -> &[f64] {
        if let Some(m) = self.measured.get(column) {
            return m;
        }
        match column {
            "q" => &self.q,
            "qd" => &self.qd,
            "qdd" => &self.qdd,
            "tau" => &self.tau,
            "i" => &self.current,
            other => panic!("no joint column {other}"),
        }
    }

    /// The torque as the drive measures it, `K · i` (the teaching paper's eq. 1), from the
    /// measured current.
    pub fn motor_torque(&self) -> Vec<f64> {
        self.measured_or_clean("i")
            .iter()
            .map(|i| self.gain * i)
            .collect()
    }
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
    /// The arm's kinematics without its inertial parameters ([`sim::model::Chain::kinematics_only`]).
    pub geometry: sim::model::Chain,
    /// The stated measurement model (a datasheet: the sensors' and noise laws' parameters, not
    /// the noise drawn), from the manifest's scenario.
    pub stated: Stated,
}

/// The measurement model a run states (`[[sensor]]` and `[[noise]]` of its scenario).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stated {
    /// Physical sensors.
    pub sensors: Vec<sim::sensor::Sensor>,
    /// Per-column noise laws.
    pub noise: Vec<sim::noise::ColumnNoise>,
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
    /// Viscous damping of the inner joint (N·m·s/rad or N·s/m).
    pub joint_damping: f64,
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
    /// What the sensors give: every column replaced by its measured copy where it has one
    /// ([`Measurements::sensed`]). The only view estimators get.
    pub measurements: Measurements,
    /// The clean columns (ideal sensors), for physics checks.
    pub clean: Measurements,
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

/// Reads a run directory.
pub fn read_run(dir: &Path) -> Result<Run, ReadError> {
    let files = [BODIES_FILE, JOINTS_FILE, TRUTH_FILE, MANIFEST_FILE].map(|f| dir.join(f));
    read_files(dir, &files)
}

/// Reads arm `index` of a population dataset ([`sim::dataset::population`]).
pub fn read_population_arm(out: &Path, index: usize) -> Result<Run, ReadError> {
    read_files(out, &sim::dataset::population::arm_files(out, index))
}

/// The arms complete in a population dataset (those with a manifest), in order.
pub fn population_arms(out: &Path) -> Result<Vec<usize>, ReadError> {
    let dir = out.join("manifests");
    let mut arms: Vec<usize> = std::fs::read_dir(&dir)
        .map_err(sim::dataset::io(&dir))?
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_prefix("arm=")?
                .strip_suffix(".json")?
                .parse()
                .ok()
        })
        .collect();
    arms.sort_unstable();
    Ok(arms)
}

/// Reads a run from its four files `[bodies, joints, truth, manifest]`; `dir` is recorded as
/// where it came from.
fn read_files(dir: &Path, files: &[PathBuf; 4]) -> Result<Run, ReadError> {
    let [bodies_path, joints_path, truth_path, manifest_path] = files;
    let manifest = read_manifest(manifest_path)?;
    let (run_id, t, bodies) = read_bodies(bodies_path)?;
    let mut joints = read_joints(joints_path, bodies_path, t.len())?;
    let truth = read_truth(truth_path)?;
    let stated = apply_design(&mut joints, &manifest, manifest_path)?;
    let clean = Measurements {
        run_id,
        t,
        bodies,
        joints,
        geometry: manifest.model.kinematics_only(),
        stated,
    };
    Ok(Run {
        dir: dir.to_owned(),
        measurements: clean.sensed(),
        clean,
        manifest,
        truth,
    })
}

/// Sets what each joint's drive was told (gain, reference, torque signal) from the manifest's
/// scenario: the experiment's design, known to the experimenter; returns the stated
/// measurement model.
fn apply_design(
    joints: &mut [JointSeries],
    manifest: &Manifest,
    manifest_path: &Path,
) -> Result<Stated, ReadError> {
    let scenario = sim::scenario::Scenario::from_toml(
        &manifest.scenario,
        &format!("{} (scenario)", manifest_path.display()),
    )
    .map_err(|e| ReadError::Format {
        path: manifest_path.to_owned(),
        message: e.to_string(),
    })?;
    for (j, d) in joints.iter_mut().zip(&scenario.drives) {
        j.gain = d.gain;
        j.reference = match &d.drive {
            sim::drive::Drive::Motion(p)
            | sim::drive::Drive::Servo(sim::drive::Servo { reference: p, .. }) => Some(p.clone()),
            _ => None,
        };
        j.excitation = match &d.drive {
            sim::drive::Drive::Torque(s) => Some(s.clone()),
            _ => None,
        };
    }
    Ok(Stated {
        sensors: scenario.file.sensor.clone(),
        noise: scenario.file.noise.clone(),
    })
}

/// Writes a simulated run to `dir` (replacing it) and reads it back, as every consumer of the
/// project's datasets sees it.
pub fn write_and_read(run: &sim::Run, dir: &Path) -> Result<Run, ReadError> {
    sim::dataset::write_run(dir, &run.recording, &run.manifest, true)?;
    read_run(dir)
}

fn read_manifest(manifest_path: &Path) -> Result<Manifest, ReadError> {
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
fn read_bodies(bodies_path: &Path) -> Result<(String, Vec<f64>, Vec<BodySeries>), ReadError> {
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

fn read_joints(
    joints_path: &Path,
    bodies_path: &Path,
    samples: usize,
) -> Result<Vec<JointSeries>, ReadError> {
    let jt = Table::read(joints_path)?;
    let (jid, kind) = (jt.u8("joint")?, jt.utf8("kind")?);
    let mut ids = jid.clone();
    ids.sort_unstable();
    ids.dedup();
    let entity: Vec<usize> = jid
        .iter()
        .map(|j| ids.binary_search(j).expect("listed"))
        .collect();
    let (jsamples, jrows) = row_index(joints_path, &jt.u32("sample")?, &entity, ids.len())?;
    if jsamples != samples {
        return Err(ReadError::Column {
            path: joints_path.to_owned(),
            column: "sample".into(),
            expected: format!("{samples} samples, as in {}", bodies_path.display()),
        });
    }
    let [q, qd, qdd, tau, tau_friction, tau_motor, current] =
        ["q", "qd", "qdd", "tau", "tau_friction", "tau_motor", "i"].map(|c| jt.f64(c));
    let (q, qd, qdd, tau, tau_friction, tau_motor, current) =
        (q?, qd?, qdd?, tau?, tau_friction?, tau_motor?, current?);
    let meas_names: Vec<String> = jt
        .columns
        .keys()
        .filter(|c| c.ends_with("_meas"))
        .cloned()
        .collect();
    let meas: Vec<(String, Vec<f64>)> = meas_names
        .iter()
        .map(|c| Ok((c.trim_end_matches("_meas").to_string(), jt.f64(c)?)))
        .collect::<Result<_, ReadError>>()?;
    let joints = ids
        .iter()
        .zip(&jrows)
        .map(|(&id, r)| JointSeries {
            measured: meas.iter().map(|(c, v)| (c.clone(), pick(v, r))).collect(),
            id,
            kind: kind[r[0]].clone(),
            q: pick(&q, r),
            qd: pick(&qd, r),
            qdd: pick(&qdd, r),
            tau: pick(&tau, r),
            tau_friction: pick(&tau_friction, r),
            tau_motor: pick(&tau_motor, r),
            current: pick(&current, r),
            gain: 1.0,
            reference: None,
            excitation: None,
        })
        .collect();

    Ok(joints)
}

fn read_truth(truth_path: &Path) -> Result<Truth, ReadError> {
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
