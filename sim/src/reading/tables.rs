//! The bodies, joints and truth tables of a run directory turned into series; the files are
//! read by `sim`'s reader beside its writer ([`crate::dataset::reader::ParquetColumns`]).

use std::path::Path;

use crate::dataset::Manifest;
use crate::dataset::columns::Q_CMD;
use crate::dataset::reader::ParquetColumns;
use crate::recording::BodyGroup;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

use super::{BodySeries, BodyTruth, JointSeries, Truth};
use crate::dataset::DatasetError;
use crate::recording::JointColumn;

/// For each entity (body or joint) and each sample, the row that holds it; an error unless every
/// (sample, entity) pair occurs exactly once.
fn row_index(
    path: &Path,
    sample: &[u32],
    entity: &[usize],
    entities: usize,
) -> Result<(usize, Vec<Vec<usize>>), DatasetError> {
    let samples = sample.iter().map(|s| *s as usize + 1).max().unwrap_or(0);
    let mut rows = vec![vec![usize::MAX; samples]; entities];
    for (r, (&s, &e)) in sample.iter().zip(entity).enumerate() {
        rows[e][s as usize] = r;
    }
    if sample.len() != samples * entities || rows.iter().flatten().any(|r| *r == usize::MAX) {
        return Err(DatasetError::Column {
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

pub(super) fn read_manifest(manifest_path: &Path) -> Result<Manifest, DatasetError> {
    let text = std::fs::read_to_string(manifest_path).map_err(|source| DatasetError::Io {
        path: manifest_path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| DatasetError::Format {
        path: manifest_path.to_owned(),
        message: e.to_string(),
    })
}

/// `(run_id, t, bodies)` of `bodies.parquet`.
pub(super) fn read_bodies(
    bt: &ParquetColumns,
) -> Result<(String, Vec<f64>, Vec<BodySeries>), DatasetError> {
    let bodies_path = bt.path.as_path();
    let run_id = bt.utf8("run_id")?.into_iter().next().unwrap_or_default();
    let body = bt.u8("body")?;
    if body.contains(&0) {
        return Err(DatasetError::Column {
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
        if names.iter().all(|n| bt.has(n)) {
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

fn joint_rows(jt: &ParquetColumns) -> Result<JointRows, DatasetError> {
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
    jt: &ParquetColumns,
    bodies_path: &Path,
    samples: usize,
) -> Result<Vec<JointSeries>, DatasetError> {
    let joints_path = jt.path.as_path();
    let kind = jt.utf8("kind")?;
    let JointRows {
        ids,
        samples: jsamples,
        rows: jrows,
    } = joint_rows(jt)?;
    if jsamples != samples {
        return Err(DatasetError::Column {
            path: joints_path.to_owned(),
            column: "sample".into(),
            expected: format!("{samples} samples, as in {}", bodies_path.display()),
        });
    }
    let [q, qd, qdd, tau, tau_friction, current] =
        ["q", "qd", "qdd", "tau", "tau_friction", "i"].map(|c| jt.f64(c));
    let (q, qd, qdd, tau, tau_friction, current) = (q?, qd?, qdd?, tau?, tau_friction?, current?);
    let q_cmd = match jt.has(Q_CMD) {
        true => Some(jt.f64(Q_CMD)?),
        false => None,
    };
    let meas_names: Vec<String> = jt
        .names()
        .filter(|c| c.ends_with("_meas"))
        .map(str::to_string)
        .collect();
    let meas: Vec<(JointColumn, Vec<f64>)> = meas_names
        .iter()
        .map(|c| {
            let column = c.strip_suffix("_meas").and_then(JointColumn::from_name);
            let column = column.ok_or_else(|| DatasetError::Column {
                path: joints_path.to_owned(),
                column: c.clone(),
                expected: "a measured copy of a joint column: q_meas, qd_meas, qdd_meas, \
                           tau_meas or i_meas"
                    .into(),
            })?;
            Ok((column, jt.f64(c)?))
        })
        .collect::<Result<_, DatasetError>>()?;
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
            q_cmd: (q_cmd.as_ref().map(|c| pick(c, r))).filter(|c| c.iter().all(|v| !v.is_nan())),
            gain: 1.0,
            reference: None,
            control: None,
            excitation: None,
        })
        .collect();

    Ok(joints)
}

pub(super) fn read_truth(tt: &ParquetColumns) -> Result<Truth, DatasetError> {
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
