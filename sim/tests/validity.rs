//! Validity gates: a run that fails its physics checks is refused by the writers and by
//! `sim run` (non-zero exit, no directory), kept marked invalid on request; a scenario asking
//! for more steps than the stated limit is rejected with the field named.

use std::path::PathBuf;

use sim::scenario::Scenario;
use sim::validity::Gate;

/// link2 under ±1e9 N·m: the explicit integration of the gyroscopic terms diverges.
const HUGE_TORQUES: &str = r#"
name = "huge_torques"
description = "link2 under 1e9 N m"
model = "link2"
seed = 0
[time]
end = 0.2
step = 5e-4
sample_period = 0.01
[[joint]]
id = 1
torque = { type = "constant", value = 1e9 }
[[joint]]
id = 2
torque = { type = "constant", value = -1e9 }
"#;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-validity-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn an_invalid_run_is_refused_unless_kept_and_then_marked() {
    let s = Scenario::from_toml(HUGE_TORQUES, "huge.toml").unwrap();
    let run = sim::simulate(&s, None);
    let invalid = run
        .manifest
        .invalid
        .clone()
        .expect("the run must fail a gate");
    assert!(
        matches!(invalid.gate, Gate::NonFinite | Gate::InverseDynamics),
        "{invalid}"
    );
    assert!(
        invalid.place.starts_with("joint") && invalid.sample > 0,
        "{invalid}"
    );
    assert_eq!(invalid.time, run.recording.t[invalid.sample]);
    let out = temp("refused");
    let e = sim::dataset::write_run(&out, &run.recording, &run.manifest, false).unwrap_err();
    assert!(
        e.to_string().contains("is invalid") && e.to_string().contains("--keep-invalid"),
        "{e}"
    );
    assert!(!out.exists());
    sim::dataset::write_run_keeping_invalid(&out, &run.recording, &run.manifest, false).unwrap();
    let m: sim::dataset::Manifest =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert!(!m.valid);
    assert_eq!(m.invalid.unwrap().place, invalid.place);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn sim_run_exits_non_zero_and_leaves_nothing_for_an_invalid_run() {
    let dir = temp("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("huge.toml");
    std::fs::write(&file, HUGE_TORQUES).unwrap();
    let out = dir.join("run");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sim"))
            .args([
                "run",
                file.to_str().unwrap(),
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && stderr.contains("is invalid") && stderr.contains("sample"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing may be written");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["huge.toml"], "no partial directory");
    let o = run(&["--keep-invalid"]);
    assert!(!o.status.success());
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("\"valid\": false") && manifest.contains("\"gate\""),
        "{manifest}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_valid_run_states_no_validity_fields_and_huge_spans_are_rejected() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenarios/paper_rail.toml")).unwrap();
    let run = sim::simulate(
        &Scenario::from_toml(&text.replace("end = 2.0", "end = 0.2"), "rail").unwrap(),
        None,
    );
    assert!(run.manifest.invalid.is_none() && run.manifest.valid);
    let json = serde_json::to_string(&run.manifest).unwrap();
    assert!(!json.contains("\"invalid\"") && !json.contains("\"valid\""));
    let e = Scenario::from_toml(&text.replace("end = 2.0", "end = 1e30"), "rail").unwrap_err();
    assert!(e.to_string().contains("time.end"), "{e}");
}
