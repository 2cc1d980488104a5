//! A simulated run as the reader would give it, without writing Parquet: the Monte-Carlo
//! studies re-noise one clean recording many times ([`crate::measurement::measure`]).

use std::collections::BTreeMap;
use std::path::Path;

use crate::recording::{BodyGroup, Recording};
use nalgebra::Vector3;

use super::{BodySeries, BodyTruth, JointSeries, Measurements, Run, Truth};
use crate::dataset::DatasetError;
use crate::recording::JointColumn;

/// The [`Run`] that writing `run` to a directory and reading it back gives (tested equal), with
/// `dir` as its recorded origin.
pub fn from_simulated(run: &crate::Run, dir: &Path) -> Result<Run, DatasetError> {
    super::read::refuse_invalid(&run.manifest, dir)?;
    let rec = &run.recording;
    let mut joints: Vec<JointSeries> = (0..rec.joint_ids.len()).map(|k| joint(rec, k)).collect();
    let stated = super::read::apply_design(&mut joints, &run.manifest, &dir.join("manifest.json"))?;
    let clean = Measurements {
        run_id: rec.run_id.clone(),
        t: rec.t.clone(),
        bodies: (1..=rec.n_bodies).map(|b| body(rec, b)).collect(),
        joints,
        geometry: run.manifest.model.kinematics_only(),
        stated,
    };
    Ok(Run {
        dir: dir.to_owned(),
        manifest: run.manifest.clone(),
        measurements: clean.sensed(),
        clean: clean.ideal(),
        truth: truth(&run.manifest.model),
    })
}

fn body(rec: &Recording, b: usize) -> BodySeries {
    let n = rec.n_bodies;
    let series = |f: &dyn Fn(&crate::recording::BodyRecord) -> Vector3<f64>| {
        (0..rec.samples()).map(|s| f(rec.body(s, b))).collect()
    };
    let mut measured = BTreeMap::new();
    for g in BodyGroup::NOISY.into_iter().chain([BodyGroup::ImuSf]) {
        let cols = g.columns().map(|c| {
            rec.measured_bodies
                .iter()
                .find(|(name, _)| *name == format!("{c}_meas"))
        });
        if let [Some(x), Some(y), Some(z)] = cols {
            let row = |s: usize| s * n + b - 1;
            let v = (0..rec.samples())
                .map(|s| Vector3::new(x.1[row(s)], y.1[row(s)], z.1[row(s)]))
                .collect();
            measured.insert(g, v);
        }
    }
    BodySeries {
        pos: series(&|r| r.pos),
        // Normalized again, as the reader does with the stored components.
        quat: (0..rec.samples())
            .map(|s| nalgebra::UnitQuaternion::new_normalize(*rec.body(s, b).quat.quaternion()))
            .collect(),
        euler: series(&|r| r.euler),
        euler_d: series(&|r| r.euler_d),
        euler_dd: series(&|r| r.euler_dd),
        vel: series(&|r| r.vel),
        acc: series(&|r| r.acc),
        omega: series(&|r| r.omega),
        omega_dot: series(&|r| r.omega_dot),
        force: series(&|r| r.force),
        moment: series(&|r| r.moment),
        joint_point: series(&|r| r.joint_point),
        measured,
    }
}

fn joint(rec: &Recording, k: usize) -> JointSeries {
    let nj = rec.joint_ids.len();
    let series = |f: &dyn Fn(&crate::recording::JointRecord) -> f64| {
        (0..rec.samples()).map(|s| f(rec.joint(s, k))).collect()
    };
    JointSeries {
        id: rec.joint_ids[k],
        kind: rec.joint_kinds[k].as_str().to_string(),
        q: series(&|j| j.q),
        qd: series(&|j| j.qd),
        qdd: series(&|j| j.qdd),
        tau: series(&|j| j.tau),
        tau_friction: series(&|j| j.tau_friction),
        current: series(&|j| j.current),
        q_cmd: (rec.commanded.then(|| series(&|j| j.q_cmd)))
            .filter(|c: &Vec<f64>| c.iter().all(|v| !v.is_nan())),
        gain: 1.0,
        reference: None,
        control: None,
        excitation: None,
        measured: rec
            .measured
            .iter()
            .map(|(name, v)| {
                let column = name.strip_suffix("_meas").and_then(JointColumn::from_name);
                let column = column.expect("the simulator measures joint columns only");
                (column, (0..rec.samples()).map(|s| v[s * nj + k]).collect())
            })
            .collect(),
    }
}

fn truth(model: &crate::model::Chain) -> Truth {
    Truth {
        bodies: model
            .links
            .iter()
            .zip(1u8..)
            .map(|(l, body)| BodyTruth {
                body,
                name: l.name.clone(),
                mass: l.body.mass,
                j: l.body.inertia,
                length: l.body.shape.length(),
                radius: l.body.shape.radius().unwrap_or(f64::NAN),
                joint_damping: l.joint.damping,
            })
            .collect(),
    }
}
