//! `truth.parquet`'s full-inertia columns: the standard parameters it states for each link,
//! read back from the file, predict the torques recorded in `joints.parquet` through the
//! standard-parameter inverse dynamics, on the URDF test arm (skewed axes, full tensors, centroid
//! offsets); and the world tensor and body-frame centroid agree with the body frame and moments.

use std::path::Path;

use arrow_array::{Array, Float64Array, UInt8Array};
use nalgebra::{Matrix3, Vector3};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use sim::dynamics::{StandardParameters, rnea_standard};
use sim::scenario::Scenario;

/// Column `name` of a Parquet file, as f64 (u8 columns converted).
fn column(path: &Path, name: &str) -> Vec<f64> {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let c = batch
            .column_by_name(name)
            .unwrap_or_else(|| panic!("no column {name}"));
        if let Some(f) = c.as_any().downcast_ref::<Float64Array>() {
            out.extend(f.values().iter().copied());
        } else {
            let u = c.as_any().downcast_ref::<UInt8Array>().unwrap();
            out.extend(u.values().iter().map(|v| f64::from(*v)));
        }
    }
    out
}

#[test]
fn the_truth_files_standard_parameters_predict_the_recorded_torques() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario = Scenario::from_path(&root.join("scenarios/urdf_tilted3.toml")).unwrap();
    let run = sim::simulate(&scenario, None);
    let dir = std::env::temp_dir().join(format!("sim-truth-test-{}", std::process::id()));
    sim::dataset::write_run(&dir, &run.recording, &run.manifest, true).unwrap();
    let truth = dir.join("truth.parquet");
    let names = [
        "m", "mx", "my", "mz", "ixx", "ixy", "ixz", "iyy", "iyz", "izz",
    ];
    let pi: Vec<Vec<f64>> = names
        .iter()
        .map(|n| column(&truth, &format!("pi_{n}")))
        .collect();
    let links = pi[0].len();
    let params: Vec<StandardParameters> = (0..links)
        .map(|k| StandardParameters(std::array::from_fn(|i| pi[i][k])))
        .collect();
    // Body frame, moments, world tensor, body-frame centroid: one body, three descriptions.
    let c = |n: &str| column(&truth, n);
    for (k, p) in params.iter().enumerate() {
        let e = |a: &str| {
            Vector3::new(
                c(&format!("{a}_x"))[k],
                c(&format!("{a}_y"))[k],
                c(&format!("{a}_z"))[k],
            )
        };
        let r = Matrix3::from_columns(&[e("e1"), e("e2"), e("e3")]);
        let j = Matrix3::from_diagonal(&Vector3::new(c("j11")[k], c("j22")[k], c("j33")[k]));
        let world = r * j * r.transpose();
        let stated = |n: &str| c(&format!("inertia_{n}"))[k];
        for (n, (a, b)) in [
            ("xx", (0, 0)),
            ("xy", (0, 1)),
            ("xz", (0, 2)),
            ("yy", (1, 1)),
            ("yz", (1, 2)),
            ("zz", (2, 2)),
        ] {
            assert!(
                (world[(a, b)] - stated(n)).abs() <= 1e-15 * j.max(),
                "inertia_{n}"
            );
        }
        let com_world = Vector3::new(c("com_x")[k], c("com_y")[k], c("com_z")[k]);
        let anchor = Vector3::new(c("joint_x")[k], c("joint_y")[k], c("joint_z")[k]);
        let com_body = Vector3::new(c("com_body_x")[k], c("com_body_y")[k], c("com_body_z")[k]);
        assert!((r * com_body - (com_world - anchor)).norm() <= 1e-15);
        assert!((p.first_moment() - p.mass() * com_body).norm() <= 1e-14);
    }
    // The stated π predicts every recorded τ + τ_friction.
    let joints = dir.join("joints.parquet");
    let (q, qd, qdd) = (
        column(&joints, "q"),
        column(&joints, "qd"),
        column(&joints, "qdd"),
    );
    let (tau, fr) = (column(&joints, "tau"), column(&joints, "tau_friction"));
    let nj = scenario.chain.joint_ids().len();
    let geometry = scenario.chain.kinematics_only();
    let scale = tau.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    for s in 0..q.len() / nj {
        let at = |v: &[f64]| v[s * nj..(s + 1) * nj].to_vec();
        let predicted = rnea_standard(
            &geometry,
            &params,
            &at(&q),
            &at(&qd),
            &at(&qdd),
            &sim::gravity_vector(),
        );
        for j in 0..nj {
            let recorded = tau[s * nj + j] + fr[s * nj + j];
            assert!(
                (predicted[j] - recorded).abs() <= 1e-12 * scale,
                "sample {s} joint {j}"
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
