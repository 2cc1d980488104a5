//! `sim replay`: a recorded run played back on a model. The recording here is made from a
//! simulated TX40 run whose torque is the links' torque plus drive terms computed in this file
//! (independently of `sim::replay::DriveTrain`): replayed on the same URDF with those terms the
//! residual is at rounding; without them it is the terms' share of the torque.

use std::path::{Path, PathBuf};

use sim::dataset::recorded::{RecordedJoint, RecordedTable, write_recorded};
use sim::replay::{Options, replay};
use sim::scenario::Scenario;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const URDF: &str = "models/tx40/tx40_mdh_modified.urdf";

/// The drive terms of this test's robot: per joint (Coulomb, viscous, offset), and drive 6
/// turning at `q̇6 + 0.5 q̇5` (a coupled wrist).
const TERMS: [[f64; 3]; 6] = [
    [8.0, 6.0, 0.5],
    [7.0, 5.0, -1.0],
    [4.0, 2.0, 0.2],
    [1.5, 0.8, 0.0],
    [1.0, 0.6, 0.1],
    [0.6, 0.3, -0.05],
];
const WRIST: f64 = 0.5;

fn drive_terms(qd: &[f64]) -> Vec<f64> {
    let sign = |v: f64| if v.abs() >= 0.05 { v.signum() } else { 0.0 };
    let mut tau: Vec<f64> = (0..6)
        .map(|j| {
            let v = if j == 5 { qd[5] + WRIST * qd[4] } else { qd[j] };
            TERMS[j][0] * sign(v) + TERMS[j][1] * v + TERMS[j][2]
        })
        .collect();
    // Drive 6's friction torque also loads joint 5 (τ = Rᵀ τ_m).
    let v6 = qd[5] + WRIST * qd[4];
    tau[4] += WRIST * (TERMS[5][0] * sign(v6) + TERMS[5][1] * v6);
    tau
}

fn drives_file(dir: &Path) -> PathBuf {
    let mut text = String::from("min_speed = 0.05\ncoupling = [");
    for m in 0..6 {
        let row: Vec<String> = (0..6)
            .map(|j| {
                let v = match (m, j) {
                    _ if m == j => 1.0,
                    (5, 4) => WRIST,
                    _ => 0.0,
                };
                format!("{v:?}")
            })
            .collect();
        text += &format!("[{}],", row.join(", "));
    }
    text += "]\n";
    for (j, [c, v, o]) in TERMS.iter().enumerate() {
        text += &format!(
            "[[drive]]\njoint = {}\ncoulomb = {c:?}\nviscous = {v:?}\noffset = {o:?}\n",
            j + 1
        );
    }
    let path = dir.join("drives.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A recorded run made from the `tx40_fourier` scenario: its kinematics, and the links' torque
/// (`tau + tau_friction`) plus [`drive_terms`] as the torque measured.
fn recording(dir: &Path) -> PathBuf {
    let s = Scenario::from_path(&root().join("scenarios/tx40_fourier.toml")).unwrap();
    let run = sim::simulate(&s, None);
    let rec = &run.recording;
    let (n, nj) = (rec.samples(), rec.joint_ids.len());
    let at = |k: usize, j: usize| rec.joints[k * nj + j];
    let terms: Vec<Vec<f64>> = (0..n)
        .map(|k| drive_terms(&(0..nj).map(|j| at(k, j).qd).collect::<Vec<_>>()))
        .collect();
    let table = RecordedTable {
        run_id: "tx40_recorded".into(),
        t: rec.t.clone(),
        joints: (0..nj)
            .map(|j| RecordedJoint {
                id: rec.joint_ids[j],
                kind: "revolute".into(),
                q: (0..n).map(|k| at(k, j).q).collect(),
                qd: (0..n).map(|k| at(k, j).qd).collect(),
                qdd: (0..n).map(|k| at(k, j).qdd).collect(),
                tau: (0..n)
                    .map(|k| at(k, j).tau + at(k, j).tau_friction + terms[k][j])
                    .collect(),
                q_recorded: (0..n).map(|k| at(k, j).q).collect(),
                q_cmd: None,
            })
            .collect(),
    };
    let joints: Vec<String> = (0..nj)
        .map(|j| format!(r#"{{"id": {}, "name": "joint{}"}}"#, j + 1, j + 1))
        .collect();
    let manifest = format!(
        r#"{{"kind": "recorded", "run_id": "tx40_recorded", "samples": {n},
            "urdf": {{"path": "{}", "sha256": ""}}, "config": {{}},
            "joints": [{}], "signal": {{"period": {:?}, "settling": 10}}}}"#,
        root().join(URDF).display(),
        joints.join(", "),
        s.file.time.sample_period
    );
    let out = dir.join("recorded");
    write_recorded(&out, &table, &manifest, false).unwrap();
    out
}

fn options(run: &Path, drives: Option<PathBuf>, out: PathBuf) -> Options {
    Options {
        run: run.to_owned(),
        urdf: None,
        drives,
        holdout: None,
        out,
        force: false,
    }
}

#[test]
fn the_same_model_with_the_same_drive_terms_replays_the_recording_to_rounding() {
    let dir = temp_dir("same");
    let run = recording(&dir);
    let with = replay(
        &options(&run, Some(drives_file(&dir)), dir.join("with")),
        None,
    )
    .unwrap();
    assert!(with.torque_nrms < 1e-9, "{with:?}");
    assert_eq!(with.window, [10, 191]);
    for (name, v) in &with.torque_nrms_joints {
        assert!(*v < 1e-9, "{name}: {v:e}");
    }
    // Without the drive terms the residual is theirs: far above rounding.
    let without = replay(&options(&run, None, dir.join("without")), None).unwrap();
    assert!(without.torque_nrms > 1e-2, "{without:?}");

    // The replay is an ordinary run directory: its manifest holds the residual, and its scenario
    // text makes the same run again.
    let text = std::fs::read_to_string(dir.join("with/manifest.json")).unwrap();
    let manifest: sim::dataset::Manifest = serde_json::from_str(&text).unwrap();
    assert_eq!(manifest.replay.as_ref(), Some(&with));
    let again = Scenario::from_toml(&manifest.scenario, "manifest").unwrap();
    assert_eq!(again.samples, 201);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_held_out_window_is_cut_like_the_estimator_and_bad_inputs_are_named() {
    let dir = temp_dir("bad");
    let run = recording(&dir);
    let mut o = options(&run, None, dir.join("held"));
    o.holdout = Some(0.3);
    // Settled span 0.10 .. 1.90 s: the last 30 % from 1.36 s (sample 136, or 137 if the cut
    // time rounds above 1.36).
    let w = replay(&o, None).unwrap().window;
    assert!((136..=137).contains(&w[0]) && w[1] == 191, "{w:?}");

    // A scenario asking for more than the recording holds.
    let text = format!(
        "name = \"x\"\nmodel = \"{}\"\n[time]\nend = 2.5\nstep = 0.01\nsample_period = 0.01\n{}",
        root().join(URDF).display(),
        (1..=6)
            .map(|j| format!(
                "[[joint]]\nid = {j}\nmotion = {{ type = \"recorded\", run = \"{}\", joint = {j} }}\n",
                run.display()
            ))
            .collect::<String>()
    );
    let e = Scenario::from_toml(&text, "long.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("joint[0].motion.run") && e.contains("2.5 s long"),
        "{e}"
    );
    let e = Scenario::from_toml(&text.replace("joint = 1 }", "joint = 9 }"), "j.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("joint[0].motion.joint"), "{e}");

    // A drive-train file for another arm, and a model with other joints.
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "min_speed = 0.05\n[[drive]]\njoint = 7\n").unwrap();
    let e = replay(&options(&run, Some(bad), dir.join("x")), None).unwrap_err();
    assert!(e.to_string().contains("`drive[0].joint`"), "{e}");
    let mut o = options(&run, None, dir.join("y"));
    o.urdf = Some(root().join("models/example-robot-data/kinova.urdf"));
    assert!(replay(&o, None).is_err());
    assert!(!dir.join("x").exists() && !dir.join("y").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_recorded_run_with_a_non_finite_reading_is_refused_naming_the_column_and_row() {
    let dir = temp_dir("nan");
    let good = recording(&dir);
    let (_, mut table) = sim::dataset::recorded::read(&good).unwrap();
    table.joints[2].qd[7] = f64::NAN;
    let manifest = std::fs::read_to_string(good.join("manifest.json")).unwrap();
    let bad = dir.join("bad");
    write_recorded(&bad, &table, &manifest, false).unwrap();
    let Err(err) = sim::dataset::recorded::read(&bad).map(|_| ()) else {
        panic!("a recorded run with a NaN reading was read");
    };
    let err = err.to_string();
    let joints = table.joints.len();
    assert!(err.contains("joints.parquet"), "{err}");
    assert!(err.contains("column `qd`"), "{err}");
    assert!(err.contains(&format!("row {}", 7 * joints + 2)), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
