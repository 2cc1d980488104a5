//! `validation import`: a real robot's recording into a recorded run directory
//! ([`sim::dataset::recorded`]) that the estimators read like a simulated one, without truth.
//!
//! **The recording** is a wide table, CSV with a header row or Parquet ([`table`]), or a ROS 2
//! bag (MCAP or sqlite3 `.db3`) whose `sensor_msgs/msg/JointState` messages become that table
//! ([`bag`]), or one episode of a LeRobot dataset (v3.0, v2.x; [`lerobot`]), one row per sample: `t` (s, strictly increasing, may be irregular; or no time
//! column and `--rate`), and per joint `q_<j>` (rad or m) and any of `qd_<j>`, `qdd_<j>`,
//! `tau_<j>` (N·m or N), `i_<j>` (A, with the joint's drive gain in the configuration: `τ = K·i`), or motor-side `qm_<j>`
//! (rad) and `taum_<j>` (N·m) through the configuration's transmission (`q = R⁻¹ θm`,
//! `τ = Rᵀ τm`), and `qcmd_<j>` (rad or m), the position commanded to a servo, which may stand
//! for the torque (a servo arm logs no torque); `<j>` is the URDF joint name or its 1-based index ([`columns`], [`sim::dataset::recorded::Config`]).
//! Offsets are added to `q` after the transmission, and to the commands. A command is resampled
//! by holding the last one given (a command holds until the next), never filtered.
//!
//! **Checked** ([`checks`]), each failure naming the file, column and row: unknown columns and
//! joints, missing coordinates or torques, stamps that do not increase (a step back, a
//! duplicate), gaps (empty cells, `NaN`), coordinates outside the joints' URDF limits (saying so
//! when they read as degrees).
//!
//! **Processed** by the one signal chain ([`crate::signal`]): resampled onto a uniform grid, the
//! kinematics low-pass filtered as asked (`--lowpass`), rates formed where not recorded; the
//! torque resampled, never filtered. The run's manifest ([`sim::dataset::recorded::RecordedManifest`]) names the recording and
//! URDF with their SHA-256, the configuration, the column mapping and the chain's choices.

pub mod bag;
pub mod checks;
pub mod columns;
mod error;
pub mod lerobot;
mod options;
mod source;
pub mod table;

use std::path::{Path, PathBuf};

pub use error::ImportError;
pub use options::{Options, Reading};

use sim::dataset::recorded::{Config, JointNames, JointSource, RecordedManifest, SourceFile};
use sim::dataset::recorded::{RECORDED_KIND, RecordedJoint, RecordedTable, write_recorded};
use table::Table;

use crate::signal;

/// The joint-side series of a recording, before the signal chain.
struct JointSide {
    t: Vec<f64>,
    readings: Vec<signal::chain::Readings>,
    tau: Vec<Vec<f64>>,
    /// Per joint, its commanded position where the recording has one (offset applied).
    commands: Vec<Option<Vec<f64>>>,
    sources: Vec<JointSource>,
}

/// Imports a recording (module docs); returns the written run's manifest.
pub fn import(o: &Options) -> Result<RecordedManifest, ImportError> {
    let r = &o.reading;
    let config = match &r.config {
        Some(path) => Config::read(path)?,
        None => Config::default(),
    };
    let (chain, names) = sim::description::read_named(&o.urdf, &config.lock)?;
    if chain.joint_ids().len() != names.len() {
        return Err(ImportError::Field {
            file: o.urdf.clone(),
            field: "robot".into(),
            problem: "a massless prismatic first joint (a rail) is not a recorded arm's joint"
                .into(),
        });
    }
    let joints = JointNames { names };
    let held = sim::description::held(&o.urdf, &config.lock)?;
    let (table, topics, recording) = source::read(o, &config, &held)?;
    let side = joint_side(&table, (&joints, &held), &chain, &config, o)?;
    let processed = signal::chain::process(&side.t, &side.readings, &r.lowpass)
        .map_err(|problem| ImportError::command_line("--lowpass", problem.to_string()))?;
    let run_id = o.run_id.clone().unwrap_or_else(|| {
        (o.out.file_name()).map_or("recorded".into(), |n| n.to_string_lossy().into_owned())
    });
    let recorded = RecordedTable {
        run_id: run_id.clone(),
        t: processed.t.clone(),
        joints: (processed.kinematics.iter().enumerate())
            .map(|(k, [q, qd, qdd])| RecordedJoint {
                id: (k + 1) as u8,
                kind: chain.links[k].joint.kind.as_str().to_string(),
                q: q.clone(),
                qd: qd.clone(),
                qdd: qdd.clone(),
                tau: processed.grid.resample(&side.t, &side.tau[k]),
                q_recorded: processed.grid.resample(&side.t, &side.readings[k].q),
                q_cmd: side.commands[k]
                    .as_ref()
                    .map(|c| processed.grid.hold(&side.t, c)),
            })
            .collect(),
    };
    let manifest = RecordedManifest {
        kind: RECORDED_KIND.into(),
        run_id,
        recording,
        rows: table.rows(),
        samples: processed.t.len(),
        urdf: SourceFile::of(&o.urdf)?,
        config_file: r.config.as_deref().map(SourceFile::of).transpose()?,
        config,
        rate: r.rate,
        topics,
        model: chain,
        joints: side.sources,
        signal: processed.chain,
        engine: sim::dataset::manifest::engine_versions(),
    };
    let json = serde_json::to_string_pretty(&manifest).expect("the manifest serializes");
    write_recorded(&o.out, &recorded, &json, o.force)?;
    Ok(manifest)
}

/// The stamps, and every joint's coordinate, rates where recorded and torque, on the joint
/// side, checked.
fn joint_side(
    table: &Table,
    (joints, held): (&JointNames, &[String]),
    chain: &sim::model::Chain,
    config: &Config,
    o: &Options,
) -> Result<JointSide, ImportError> {
    let file = &table.file;
    let mapping = columns::map(table, joints, held)?;
    let t = time(table, mapping.time.as_deref(), o.reading.rate)?;
    let column = |name: &str| -> Result<Vec<f64>, ImportError> {
        let x = table.column(name).expect("mapped").to_vec();
        checks::no_gaps(file, name, &x)?;
        Ok(x)
    };
    let cfg = (o.reading.config)
        .clone()
        .unwrap_or_else(|| PathBuf::from("(no --config)"));
    let n = joints.names.len();
    let gains = per_joint(&config.gain, joints, &cfg, "gain")?;
    let offsets = per_joint(&config.offset, joints, &cfg, "offset")?;
    let positions = (mapping.joints.iter())
        .map(|j| column(&j.position))
        .collect::<Result<Vec<_>, _>>()?;
    // A servo joint that logs its commands only has no torque: NaN, which no torque-based
    // estimator accepts (`sim::dataset::recorded`).
    let torques = (mapping.joints.iter())
        .map(|j| match &j.torque {
            Some(c) => column(c),
            None => Ok(vec![f64::NAN; t.len()]),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut commands = (mapping.joints.iter())
        .map(|j| j.command.as_deref().map(column).transpose())
        .collect::<Result<Vec<_>, _>>()?;
    let transmission = transmission(config, &mapping, joints, &cfg, file)?;
    let mut q = match &transmission {
        Some(r) if mapping.motor_angles => {
            through(&r.clone().try_inverse().expect("checked"), &positions)
        }
        _ => positions,
    };
    let mut tau = match &transmission {
        Some(r) if mapping.motor_torques => through(&r.transpose(), &torques),
        _ => torques,
    };
    let mut sources = Vec::with_capacity(n);
    for k in 0..n {
        let offset = offsets[k].unwrap_or(0.0);
        q[k].iter_mut().for_each(|v| *v += offset);
        if let Some(c) = &mut commands[k] {
            c.iter_mut().for_each(|v| *v += offset);
        }
        let gain = if mapping.currents[k] {
            let g = gains[k].ok_or_else(|| ImportError::Field {
                file: cfg.clone(),
                field: format!("gain.{}", joints.names[k]),
                problem: format!(
                    "missing: column `{}` is a current, which needs the joint's drive gain \
                     K (N·m/A or N/A)",
                    mapping.joints[k].torque.as_deref().unwrap_or_default()
                ),
            })?;
            tau[k].iter_mut().for_each(|v| *v *= g);
            Some(g)
        } else {
            None
        };
        checks::within_limits(file, &mapping.joints[k].position, chain, k, &q[k])?;
        sources.push(JointSource {
            id: (k + 1) as u8,
            name: joints.names[k].clone(),
            columns: mapping.joints[k].clone(),
            gain,
            offset,
        });
    }
    let readings = (q.into_iter().zip(&mapping.joints))
        .map(|(q, j)| {
            Ok(signal::chain::Readings {
                q,
                qd: j.rate.as_deref().map(column).transpose()?,
                qdd: j.acceleration.as_deref().map(column).transpose()?,
            })
        })
        .collect::<Result<Vec<_>, ImportError>>()?;
    Ok(JointSide {
        t,
        readings,
        tau,
        commands,
        sources,
    })
}

/// The stamps: the `t` column (checked), or `k / rate`.
fn time(table: &Table, column: Option<&str>, rate: Option<f64>) -> Result<Vec<f64>, ImportError> {
    let file = &table.file;
    match (column, rate) {
        (Some(_), Some(_)) => Err(ImportError::command_line(
            "--rate",
            format!(
                "the recording `{}` has a `t` column: give one or the other",
                file.display()
            ),
        )),
        (Some(c), None) => {
            let t = table.column(c).expect("mapped").to_vec();
            checks::no_gaps(file, c, &t)?;
            checks::increasing(file, c, &t)?;
            if t.len() < 5 {
                return Err(ImportError::Format {
                    file: file.clone(),
                    message: format!("{} rows (expected at least 5 samples)", t.len()),
                });
            }
            Ok(t)
        }
        (None, Some(r)) if r.is_finite() && r > 0.0 => {
            Ok((0..table.rows()).map(|k| k as f64 / r).collect())
        }
        (None, Some(r)) => Err(ImportError::command_line(
            "--rate",
            format!("expected a positive rate in Hz, got {r}"),
        )),
        (None, None) => Err(ImportError::Column {
            file: file.clone(),
            column: "t".into(),
            problem: "missing: expected the sample times in s (or give the rate with --rate HZ)"
                .into(),
        }),
    }
}

/// A configuration table keyed by joint, as one optional value per joint.
fn per_joint(
    values: &std::collections::BTreeMap<String, f64>,
    joints: &JointNames,
    file: &Path,
    section: &str,
) -> Result<Vec<Option<f64>>, ImportError> {
    let mut out = vec![None; joints.names.len()];
    for (name, v) in values {
        let field = format!("{section}.{name}");
        let k = joints.field(name, file, &field)?;
        if !v.is_finite() {
            return Err(ImportError::Field {
                file: file.to_owned(),
                field,
                problem: format!("expected a finite number, got {v}"),
            });
        }
        out[k] = Some(*v);
    }
    Ok(out)
}

/// The transmission matrix where motor-side columns need one; `Err` where they need one and
/// the configuration has none, or it has one and nothing uses it.
fn transmission(
    config: &Config,
    mapping: &columns::Mapping,
    joints: &JointNames,
    cfg: &Path,
    file: &Path,
) -> Result<Option<nalgebra::DMatrix<f64>>, ImportError> {
    let motor = mapping.motor_angles || mapping.motor_torques;
    match (&config.transmission, motor) {
        (Some(t), true) => Ok(Some(sim::dataset::recorded::matrix(t, joints, cfg)?)),
        (None, false) => Ok(None),
        (None, true) => Err(ImportError::Field {
            file: cfg.to_owned(),
            field: "transmission".into(),
            problem: format!(
                "missing: the recording `{}` has motor-side columns (qm_, taum_), which need \
                 the gear ratios",
                file.display()
            ),
        }),
        (Some(_), false) => Err(ImportError::Field {
            file: cfg.to_owned(),
            field: "transmission".into(),
            problem: format!(
                "given, but the recording `{}` has no motor-side column (qm_, taum_)",
                file.display()
            ),
        }),
    }
}

/// `m · x` at every sample of the joint series `xs`.
fn through(m: &nalgebra::DMatrix<f64>, xs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = xs.len();
    let samples = xs.first().map_or(0, Vec::len);
    let mut out = vec![vec![0.0; samples]; n];
    for s in 0..samples {
        let x = nalgebra::DVector::from_fn(n, |k, _| xs[k][s]);
        let y = m * x;
        for k in 0..n {
            out[k][s] = y[k];
        }
    }
    out
}
