//! Validity gates: a run that fails its physics checks is refused by the writers and by
//! `sim run` (non-zero exit, no directory), kept marked invalid on request; a scenario asking
//! for more steps than the stated limit is rejected with the field named.

use std::path::PathBuf;

use sim::scenario::Scenario;
use sim::validity::Gate;

use crate::files;
use files::HUGE_TORQUES;

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

fn shipped(name: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(format!("scenarios/{name}.toml"))).unwrap()
}

/// The first failure of a scenario text, which must read.
fn failure(text: &str) -> sim::validity::Invalid {
    let s = Scenario::from_toml(text, "test.toml").unwrap();
    sim::simulate(&s, None)
        .manifest
        .invalid
        .expect("the run must fail a gate")
}

#[test]
fn a_rail_driven_out_of_float_resolution_fails_the_precision_gate() {
    // 1e12 m/s² on the rail: the readings stay exact (prescribed motion), but after one sample
    // the arm is 2e8 m out, where f64 resolves positions to 3e-8 m: 7e-8 of the model's size.
    let text = shipped("paper_rail")
        .replace("acceleration = 2.0", "acceleration = 1e12")
        .replace("end = 2.0", "end = 0.2");
    let invalid = failure(&text);
    assert_eq!(invalid.gate, Gate::Precision, "{invalid}");
    assert_eq!(
        (invalid.sample, invalid.place.starts_with("body 1 pos")),
        (1, true)
    );
    assert!(invalid.value > 1e-8 && invalid.value < 1e-7, "{invalid}");
    // A rail a thousand times faster than the paper's stays well inside.
    let fast = shipped("paper_rail").replace("acceleration = 2.0", "acceleration = 2e3");
    let run = sim::simulate(&Scenario::from_toml(&fast, "fast").unwrap(), None);
    assert!(run.manifest.invalid.is_none());
}

/// link2 spun up by 3000 N·m on O1 (370 rad/s after 1 s): at a 10 ms step it turns 3.7 rad per
/// step, and the engine's step no longer follows the equations of motion.
const SPIN: &str = r#"
name = "spin"
description = "link2 spun up by a large constant torque"
model = "link2"
seed = 0
[time]
end = 1.0
step = STEP
sample_period = 0.01
[[joint]]
id = 1
torque = { type = "constant", value = 3000.0 }
[[joint]]
id = 2
free = true
"#;

#[test]
fn a_step_too_coarse_for_the_motion_fails_the_integration_gate() {
    let invalid = failure(&SPIN.replace("STEP", "0.01"));
    assert_eq!(invalid.gate, Gate::Integration, "{invalid}");
    assert!(
        invalid.place.starts_with("joint") && invalid.sample > 10,
        "{invalid}"
    );
    assert!(invalid.value > sim::validity::INTEGRATION_TOLERANCE);
    // The same motion at a 1 ms step is resolved (no angular-speed cap binds: 370 rad/s is far
    // above Rapier's π/4-per-step rigid-body cap of 78.5 rad/s at this step).
    let s = Scenario::from_toml(&SPIN.replace("STEP", "0.001"), "spin").unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let qd_end = run.recording.joint(run.recording.samples() - 1, 0).qd;
    assert!(qd_end > 300.0, "{qd_end}");
}

#[test]
fn a_required_steady_state_is_checked_when_read_and_after_the_run() {
    let text = shipped("paper_multisine");
    assert!(text.contains("steady_state = true"));
    // Undamped, two periods: still ringing at the end.
    let undamped = text
        .replace("damping = 2.0", "damping = 0.0")
        .replace("end = 300.0", "end = 200.0")
        .replace("step = 5e-4", "step = 1e-3");
    let invalid = failure(&undamped);
    assert_eq!(invalid.gate, Gate::SteadyState, "{invalid}");
    assert_eq!(invalid.sample, 10_000, "the last period's first sample");
    // One period recorded: nothing to compare; rejected when read, naming the field.
    let short = text.replace("end = 300.0", "end = 100.0");
    let e = Scenario::from_toml(&short, "short.toml").unwrap_err();
    assert!(e.to_string().contains("time.steady_state"), "{e}");
}

#[test]
fn a_recording_too_large_for_memory_is_rejected_when_read() {
    // 5e6 samples of arm6 (~2.6 kB each): 5e6 steps is within MAX_STEPS, 12 GiB is not within
    // MAX_RECORDING_BYTES.
    let text = shipped("paper_rail").replace("end = 2.0", "end = 1e5");
    let e = Scenario::from_toml(&text, "long.toml").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("time.end") && msg.contains("GiB") && msg.contains("long.toml"),
        "{msg}"
    );
    let ok = Scenario::from_toml(&shipped("paper_rail"), "rail").unwrap();
    assert!(
        ok.estimated_recording_bytes() < 1e6,
        "{}",
        ok.estimated_recording_bytes()
    );
}

#[test]
fn body_columns_that_break_newton_euler_fail_the_closure_gate() {
    let text = shipped("paper_rail").replace("end = 2.0", "end = 0.2");
    let s = Scenario::from_toml(&text, "rail").unwrap();
    let mut rec = sim::simulate(&s, None).recording;
    let check = |rec: &sim::recording::Recording| {
        let residuals = sim::checks::recording_residuals(&s.chain, rec);
        let checks = sim::checks::checks(&s, rec, &residuals);
        let steps = sim::simulation::StepDifferences::default();
        let evidence = sim::validity::Evidence {
            residuals: &residuals,
            steps: &steps,
            checks: &checks,
        };
        sim::validity::validate(&s, rec, &evidence)
    };
    check(&rec).unwrap();
    // Body 3's force at sample 4 off by 1e-6 of itself: the joint columns still agree with
    // the inverse dynamics, the body columns no longer balance.
    let k = 4 * rec.n_bodies + 2;
    let f = rec.bodies[k].force;
    rec.bodies[k].force += f * 1e-6;
    let invalid = check(&rec).unwrap_err();
    assert_eq!(invalid.gate, Gate::NewtonEuler, "{invalid}");
    assert_eq!(invalid.sample, 4);
    assert!(invalid.place.starts_with("body"), "{invalid}");
}
