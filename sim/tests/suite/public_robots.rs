//! Robot descriptions as their makers write them (`models/example-robot-data/`,
//! `models/tx40/`): joints that work about π, a hand whose fingers are locked, a point-mass
//! link. Their dynamics are checked against Pinocchio in `validation/tests/suite/pinocchio.rs`
//! (scenarios `jaco2_fourier`, `panda_hand_fourier`, `tx40_fourier`); here, what is read and
//! what is refused.

use std::path::{Path, PathBuf};

use sim::scenario::Scenario;
use sim::urdf;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scenario(name: &str, edit: impl Fn(String) -> String) -> Result<Scenario, String> {
    let path = root().join(format!("scenarios/{name}.toml"));
    let text = edit(std::fs::read_to_string(&path).unwrap());
    Scenario::from_toml_in(&text, &format!("{name}.toml"), &root().join("scenarios"))
        .map_err(|e| e.to_string())
}

#[test]
fn the_jaco_works_about_pi_within_its_limits_and_not_outside_them() {
    let s = scenario("jaco2_fourier", |t| t).unwrap();
    let l = s.chain.links[1].joint.limits.unwrap();
    assert!((l.lower - 0.820304748437).abs() < 1e-15 && (l.upper - 5.46288055874).abs() < 1e-15);
    // Continuous joints have no limits.
    assert!(s.chain.links[0].joint.limits.is_none());
    // Joint 2 about 0 leaves its range [0.82, 5.46] at once.
    let e = scenario("jaco2_fourier", |t| {
        t.replace("offset = 3.141592653588", "offset = 0.0")
    })
    .unwrap_err();
    assert!(
        e.contains("joint[1].motion") && e.contains("limits [0.820304748437, 5.46288055874]"),
        "{e}"
    );
}

#[test]
fn the_panda_hand_is_a_serial_chain_once_its_fingers_are_locked() {
    let s = scenario("panda_hand_fourier", |t| t).unwrap();
    assert_eq!(s.chain.len(), 7);
    // Link 7, the hand and both fingers (0.735522 + 0.73 + 2 × 0.015 kg in the maker's file)
    // are the last body.
    let file = root().join("models/example-robot-data/panda.urdf");
    let arm = urdf::read_locked(&file, &[("panda_finger_joint1".to_string(), 0.0)].into()).unwrap();
    let unlocked = urdf::read(&file).unwrap_err().to_string();
    assert!(
        unlocked.contains("panda_finger_joint2") && unlocked.contains("lock"),
        "{unlocked}"
    );
    let m = |c: &sim::model::Chain| c.links[6].body.mass;
    assert!((m(&s.chain) - m(&arm)).abs() < 1e-15);
    assert!(
        (m(&s.chain) - 0.735522 - 0.73 - 2.0 * 0.015).abs() < 1e-12,
        "{}",
        m(&s.chain)
    );
    // Opening the fingers moves the hand's centroid only through them (symmetric: not at all).
    let c = |c: &sim::model::Chain| c.links[6].body.centroid().coords;
    assert!((c(&s.chain) - c(&arm)).norm() < 1e-15);
    // A lock on a model without that joint, or on a built-in model, is refused.
    let e = scenario("panda_hand_fourier", |t| {
        t.replace("panda_finger_joint1", "thumb")
    })
    .unwrap_err();
    assert!(e.contains("lock.thumb") && e.contains("no joint"), "{e}");
    let e = scenario("arm6_fourier", |t| {
        t.replace("seed = 0", "seed = 0\nlock = { j = 0.0 }")
    })
    .unwrap_err();
    assert!(e.contains("field `lock`"), "{e}");
}

#[test]
fn a_point_mass_link_is_read_and_an_ideal_rod_refused_with_its_link_named() {
    let s = scenario("tx40_fourier", |t| t).unwrap();
    let b = &s.chain.links[5].body;
    assert_eq!((b.mass, b.inertia), (0.2, [0.0; 3]));
    let rod = std::fs::read_to_string(root().join("models/tx40/tx40_mdh_modified.urdf"))
        .unwrap()
        .replace(
            r#"<inertia ixx="0.000" ixy="0.000" ixz="0.000" iyy="0.000" iyz="0.000" izz="0.000"/>"#,
            r#"<inertia ixx="0.001" ixy="0.000" ixz="0.000" iyy="0.001" iyz="0.000" izz="0.000"/>"#,
        );
    let dir = std::env::temp_dir().join(format!("public-robots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rod.urdf"), rod).unwrap();
    let text = std::fs::read_to_string(root().join("scenarios/tx40_fourier.toml"))
        .unwrap()
        .replace("../models/tx40/tx40_mdh_modified.urdf", "rod.urdf");
    let e = Scenario::from_toml_in(&text, "rod.toml", &dir)
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        e.contains("link \"link_6\"") && e.contains("ideal rod"),
        "{e}"
    );
}
