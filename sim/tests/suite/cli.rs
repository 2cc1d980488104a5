//! The `sim` command line: clear errors that name the file and the field, and no output
//! directory unless a run completes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn good_scenario() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_rail.toml"),
    )
    .unwrap()
    .replace("end = 2.0", "end = 0.04")
}

/// Runs `sim run` on scenario text; returns (success, stderr, output dir).
fn run(name: &str, text: &str) -> (bool, String, PathBuf) {
    let d = dir(name);
    let file = d.join("scenario.toml");
    std::fs::write(&file, text).unwrap();
    let out = d.join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_sim"))
        .args([
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        out,
    )
}

fn assert_rejected(name: &str, text: &str, must_contain: &[&str]) {
    let (ok, stderr, out) = run(name, text);
    assert!(!ok, "{name}: expected failure");
    assert!(
        stderr.contains("scenario.toml"),
        "{name}: error should name the file: {stderr}"
    );
    for needle in must_contain {
        assert!(
            stderr.contains(needle),
            "{name}: error should mention {needle:?}: {stderr}"
        );
    }
    assert!(
        !stderr.contains("Error {") && !stderr.contains("Parse {"),
        "{name}: Debug dump: {stderr}"
    );
    assert!(!out.exists(), "{name}: no output directory may be left");
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "{name}: only the scenario file may remain: {leftovers:?}"
    );
}

#[test]
fn unknown_key_is_rejected_with_file_and_key() {
    let text = good_scenario().replace("sample_period = 0.02", "sample_period = 0.02\nstepz = 3");
    assert_rejected("unknown-key", &text, &["stepz"]);
}

#[test]
fn wrong_type_is_rejected() {
    let text = good_scenario().replace("end = 0.04", "end = \"two seconds\"");
    assert_rejected("wrong-type", &text, &["end"]);
}

#[test]
fn step_that_does_not_divide_the_sample_period_is_rejected() {
    let text = good_scenario().replace("step = 0.02", "step = 3e-3");
    assert_rejected("bad-step", &text, &["time.step", "divides"]);
}

#[test]
fn missing_joint_is_rejected() {
    let text = good_scenario().replace("[[joint]]\nid = 6\nmotion = { type = \"hold\" }", "");
    assert_rejected("missing-joint", &text, &["joint", "id = 6"]);
}

#[test]
fn unknown_model_and_profile_are_rejected() {
    assert_rejected(
        "model",
        &good_scenario().replace("model = \"arm6\"", "model = \"arm7\""),
        &["model", "arm6"],
    );
    assert_rejected(
        "profile",
        &good_scenario().replace("type = \"hold\"", "type = \"wobble\""),
        &["wobble"],
    );
}

/// A revolute joint without limits may turn past ±π: the multibody's joint coordinate is not
/// wrapped (the check that refused it cited Rapier's revolute motor, which is not used).
#[test]
fn revolute_profile_beyond_pi_runs_on_a_joint_without_limits() {
    let text = good_scenario().replace(
        "id = 3\nmotion = { type = \"hold\" }",
        "id = 3\nmotion = { type = \"polynomial\", coefficients = [3.0, 10.0] }",
    );
    let (ok, stderr, out) = run("beyond-pi", &text);
    assert!(ok, "{stderr}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn bad_noise_and_sensor_fields_are_rejected() {
    let with = |extra: &str| format!("{}\n{extra}\n", good_scenario());
    assert_rejected(
        "noise-group",
        &with("[[noise]]\ncolumn = \"torque\"\nmodel = []"),
        &["noise[0].column", "\"f\""],
    );
    assert_rejected(
        "noise-bodies",
        &with("[[noise]]\ncolumn = \"f\"\nbodies = [7]\nmodel = []"),
        &["noise[0].bodies", "got 7"],
    );
    assert_rejected(
        "sensor-sigma",
        &with("[[sensor]]\ntype = \"force_torque\"\nforce = { sigma = [0.1, -1.0, 0.1] }"),
        &["sensor[0].force.sigma[1]"],
    );
    assert_rejected(
        "sensor-twice",
        &with("[[sensor]]\ntype = \"imu\"\n[[sensor]]\ntype = \"imu\"\nbodies = [2]"),
        &["sensor[1]", "one sensor of a kind"],
    );
    assert_rejected(
        "clock",
        &with("[[sensor]]\ntype = \"clock\"\noffset = 0.05"),
        &["sensor[0].offset", "sample period"],
    );
}

#[test]
fn missing_file_is_reported() {
    let o = Command::new(env!("CARGO_BIN_EXE_sim"))
        .args(["run", "/nonexistent/x.toml", "--out", "/tmp/never"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.toml"));
}

#[test]
fn a_valid_run_writes_a_complete_directory_once() {
    let (ok, stderr, out) = run("valid", &good_scenario());
    assert!(ok, "{stderr}");
    for f in [
        "bodies.parquet",
        "joints.parquet",
        "truth.parquet",
        "manifest.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let entries: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries.len(),
        2,
        "no temporary directory may remain: {entries:?}"
    );
    // Without --force an existing run is not overwritten.
    let o = Command::new(env!("CARGO_BIN_EXE_sim"))
        .args([
            "run",
            out.parent()
                .unwrap()
                .join("scenario.toml")
                .to_str()
                .unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists"));
}

#[test]
fn help_documents_every_flag() {
    let o = Command::new(env!("CARGO_BIN_EXE_sim"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in ["--out", "--force", "--quiet"] {
        assert!(help.contains(flag), "{flag} undocumented: {help}");
    }
}
