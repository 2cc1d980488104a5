//! `armid identify`: a log to a model in one command. On a UR10 log with drive friction and a
//! disturbance no model describes: every output is written; the model chosen is the one its
//! rule names, with the holdout NRMS `estimate --holdout` gives and the rollout drift `armid
//! rollout` gives on the files written; `model.xml` reads back to the
//! model `model.urdf` and `drives.toml` state; a run that fails leaves nothing behind.
//! (MuJoCo's own check of `model.xml` is `python/tests/test_identify_mujoco.py`.)

use std::path::Path;
use std::process::Command;

use super::import::{tmp, ur10, ur10_run, with_drives_csv};
use validation::estimate::engine::{Loaded, run_all};
use validation::estimate::{Estimator, Options, Role};

/// The UR10 log (`ur10_fourier`) with each drive's Coulomb, viscous and offset terms and a
/// disturbance added to its torque, written as a user's logger writes it.
fn log(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("ur10.csv");
    std::fs::write(&path, with_drives_csv(&ur10_run(dir).measurements)).unwrap();
    path
}

fn identify(log: &Path, out: &Path, only: &str) -> Result<String, String> {
    let done = Command::new(env!("CARGO_BIN_EXE_armid"))
        .args(["identify", &log.display().to_string(), "--model"])
        .arg(ur10())
        .args(["--lowpass", "none", "--only", only, "--out"])
        .arg(out)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if done.status.success() {
        Ok(text(&done.stdout))
    } else {
        Err(text(&done.stderr))
    }
}

#[test]
fn identify_writes_the_chosen_model_and_says_why() {
    let dir = tmp("identify");
    let out = dir.join("model");
    let printed = identify(&log(&dir), &out, "idim_ols,idim_prior,idim_consistent").unwrap();
    for file in [
        "model.urdf",
        "model.xml",
        "drives.toml",
        "estimates.csv",
        "identification.json",
        "report.html",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    assert!(!dir.join("model.partial").exists());
    let found: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("identification.json")).unwrap())
            .unwrap();
    let choice = &found["choice"];
    assert_eq!(choice["method"], "idim_consistent", "{printed}");
    assert!(printed.contains("← chosen") && printed.contains("rule: "));

    // The holdout NRMS is what `estimate --holdout 0.3` computes on the imported run.
    let run = Loaded::read(&out.join("run")).unwrap();
    let (identify, validate) = run.split(0.3).unwrap();
    let options = Options {
        prior: Some(ur10()),
        nim_models: None,
    };
    let consistent = validation::estimate::by_name(&options, "idim_consistent").unwrap();
    let e: [&dyn Estimator; 1] = [consistent.as_ref()];
    let outcome = run_all(
        &e,
        &[(Role::Excitation, &identify), (Role::Validation, &validate)],
    );
    let nrms = (outcome.rows.iter())
        .find(|r| r.parameter == "torque_nrms")
        .and_then(|r| r.estimate)
        .unwrap();
    assert_eq!(choice["holdout_nrms"].as_f64().unwrap(), nrms);
    assert!(nrms > 1e-2, "the disturbance is no model's: {nrms}");

    // Every link is compared with the file's, and what moved far is named on the terminal.
    let links = found["links"].as_array().unwrap();
    assert_eq!(links.len(), 6);
    for l in links {
        for far in l["moved_far"].as_array().unwrap() {
            let line = format!("{}: ", l["name"].as_str().unwrap());
            assert!(printed.contains(&line) && printed.contains(far.as_str().unwrap()));
        }
    }

    // The chosen model's rollout drift is `armid rollout`'s on the files written, over the
    // held-out windows: the same model through its files.
    let chosen = (choice["candidates"].as_array().unwrap().iter())
        .find(|c| c["method"] == "idim_consistent")
        .unwrap();
    let drift = &chosen["drift"];
    assert_eq!(drift["blown_up"], 0, "{drift}");
    let json = dir.join("rollout.json");
    let done = Command::new(env!("CARGO_BIN_EXE_armid"))
        .arg("rollout")
        .arg(out.join("run"))
        .args(["--holdout", "0.3", "--model"])
        .arg(out.join("model.urdf"))
        .arg("--drives")
        .arg(out.join("drives.toml"))
        .arg("--out")
        .arg(&json)
        .status()
        .unwrap();
    assert!(done.success());
    let rolled: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let fidelity = &rolled["fidelity"];
    assert_eq!(
        fidelity["per_window"].as_array().unwrap().len(),
        drift["windows"]
    );
    let (a, b) = (
        fidelity["mean_horizon"].as_f64().unwrap(),
        drift["mean_horizon"].as_f64().unwrap(),
    );
    assert!(a > 0.0 && (a - b).abs() <= 1e-6 * a, "{a} against {b}");

    // model.xml states the bodies model.urdf does, and each drive's terms on its joint.
    let xml = sim::mjcf::read(&out.join("model.xml"), &Default::default()).unwrap();
    let urdf = sim::urdf::read(&out.join("model.urdf")).unwrap();
    let drives = sim::replay::DriveTrain::read(&out.join("drives.toml"), 6).unwrap();
    assert_eq!(xml.joints, super::import::UR10.map(String::from).to_vec());
    for (k, (a, b)) in xml.chain.links.iter().zip(&urdf.links).enumerate() {
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + y.abs());
        assert!(close(a.body.mass, b.body.mass), "link {k}");
        for i in 0..3 {
            assert!(close(a.body.centroid[i], b.body.centroid[i]), "link {k}");
        }
        let d = &drives.drive[k];
        assert!(d.coulomb > 0.0 && d.viscous > 0.0, "{d:?}");
        assert_eq!(a.joint.armature, d.armature);
        assert_eq!(a.joint.damping, d.viscous);
        // URDF states the same viscous and Coulomb terms (`<dynamics damping friction>`).
        assert_eq!(b.joint.damping, d.viscous);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_identify_that_fails_leaves_nothing() {
    let dir = tmp("identify-fails");
    let out = dir.join("model");
    // idim_ols gives no whole model: nothing the rule can choose.
    let why = identify(&log(&dir), &out, "idim_ols").unwrap_err();
    assert!(why.contains("physically consistent"), "{why}");
    assert!(!out.exists() && !dir.join("model.partial").exists());
    // An existing directory is not replaced without --force.
    std::fs::create_dir_all(&out).unwrap();
    let why = identify(&dir.join("ur10.csv"), &out, "idim_consistent").unwrap_err();
    assert!(why.contains("--force"), "{why}");
    std::fs::remove_dir_all(&dir).unwrap();
}
