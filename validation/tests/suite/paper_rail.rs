//! The `paper_rail` dataset end to end: physical consistency from the files, MIM's accuracy and
//! identifiability flags, and the report's table layout. One full run (2 s) is shared.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sim::reading::{Run, read_run, write_and_read};
use validation::consistency;
use validation::estimate::mim::{SingleInstant, Stacked, WholeArm};
use validation::estimate::score::score;
use validation::estimate::{Estimator, Experiment, Values, engine};
use validation::study::mim::MimStudy;

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let scenario =
            sim::scenario::Scenario::from_path(&root.join("scenarios/paper_rail.toml")).unwrap();
        let result = sim::simulate(&scenario, None);
        let dir: PathBuf =
            std::env::temp_dir().join(format!("validation-test-{}-paper_rail", std::process::id()));
        let run = write_and_read(&result, &dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        run
    })
}

#[test]
fn every_body_obeys_newton_euler_exactly() {
    let (force, moment) = consistency::newton_euler(run());
    assert!(
        force <= 1e-12 && moment <= 1e-12,
        "force {force:e}, moment {moment:e}"
    );
}

#[test]
fn recorded_joint_forces_agree_with_independent_inverse_dynamics() {
    let rel = consistency::inverse_dynamics(run());
    let worst = rel.iter().copied().fold(0.0, f64::max);
    assert!(worst <= 1e-12, "per joint {rel:?}");
    // The manifest carries the same residual, computed when the run was written.
    let manifest = run().manifest.checks.rnea_max_rel_residual;
    assert!(
        (manifest - worst).abs() <= 1e-3 * worst.max(1e-12),
        "{manifest} vs {worst}"
    );
}

/// The estimates of `method` on `data`, through the engine.
fn values(method: &dyn Estimator, data: &sim::reading::Measurements) -> Values {
    engine::required(method, &Experiment::single(data))
        .unwrap()
        .values
}

fn unidentifiable(method: &dyn Estimator) -> Vec<String> {
    values(method, &run().measurements)
        .iter()
        .filter(|(_, e)| e.value.is_none())
        .map(|(id, _)| id.to_string())
        .collect()
}

#[test]
fn mim_recovers_every_identifiable_parameter() {
    let methods: [&dyn Estimator; 3] = [
        &SingleInstant::paper(),
        &Stacked::default(),
        &WholeArm::default(),
    ];
    for method in methods {
        let est = values(method, &run().measurements);
        let scored = score(method.name(), &est, &run().truth);
        assert_eq!(scored.len(), 36);
        for s in scored.iter().filter(|s| s.estimate.is_some()) {
            let rel = s.rel_error().unwrap().abs();
            assert!(rel <= 1e-8, "{}: {} off by {rel:e}", s.method, s.parameter);
        }
    }
}

#[test]
fn mim_flags_exactly_what_this_motion_cannot_determine() {
    let expected = ["B1.m_e2", "B1.j22", "B1.j33"];
    assert_eq!(unidentifiable(&SingleInstant::paper()), expected);
    assert_eq!(unidentifiable(&Stacked::default()), expected);
    assert_eq!(unidentifiable(&WholeArm::default()), expected);
}

#[test]
fn mim_uses_the_data_not_the_truth() {
    // Doubling every measured wrench doubles every estimate: the estimates come from the data.
    let mut m = run().measurements.clone();
    for b in &mut m.bodies {
        b.force.iter_mut().for_each(|f| *f *= 2.0);
        b.moment.iter_mut().for_each(|n| *n *= 2.0);
    }
    let (a, b) = (
        values(&Stacked::default(), &run().measurements),
        values(&Stacked::default(), &m),
    );
    for (x, y) in a.values().zip(b.values()) {
        if let (Some(x), Some(y)) = (x.value, y.value) {
            assert!((y - 2.0 * x).abs() <= 1e-9 * x.abs());
        }
    }
}

#[test]
fn report_has_the_contract_columns_and_the_paper_beside_ours() {
    let report = MimStudy::new(run()).unwrap();
    let csv = validation::report::mim::csv(&report);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "method,body,parameter,truth,estimate,abs_error,rel_error,paper_estimate,paper_abs_error,identifiable"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 72);
    let b2_j11 = rows
        .iter()
        .find(|r| r[0] == "mim_single" && r[1] == "2" && r[2] == "B2.j11")
        .unwrap();
    assert_eq!(b2_j11[7].parse::<f64>().unwrap(), 27.5966);
    assert_eq!(b2_j11[8].parse::<f64>().unwrap(), 0.005);
    let b1_m2 = rows
        .iter()
        .find(|r| r[0] == "mim_stacked" && r[1] == "1" && r[2] == "B1.m_e2")
        .unwrap();
    assert_eq!((b1_m2[4], b1_m2[9]), ("", "false"));
    assert!(report.whole_arm_difference <= 1e-9 * 1429.6);
    let md = validation::report::mim::markdown(&report);
    assert!(md.contains("| B1.m_e2 | 1429.5806 | – | – |"));
    // The guide's chapter is the report rendered from the serialized study: nothing is lost.
    let json = serde_json::to_string(&report).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let plan = validation::kind::Plan::from_path(&root.join("studies/mim.toml"), &[]).unwrap();
    let chapter = plan
        .markdown(&json, std::path::Path::new("mim.json"))
        .unwrap();
    assert_eq!(chapter, md, "the chapter differs from the report");
}

#[test]
fn reading_an_incomplete_directory_names_the_missing_file() {
    let dir = std::env::temp_dir().join(format!("validation-test-{}-empty", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = read_run(&dir).unwrap_err().to_string();
    assert!(err.contains("manifest.json"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
