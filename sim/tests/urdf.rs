//! URDF out and back in: every reference model and the URDF test arm round-trip through
//! `sim::model::urdf::to_string` and `from_str` to the same chain (to rounding: body frames pass
//! through `rpy` text), and `paper_rail` on the exported arm6 records what it records on the
//! built-in one.

use std::path::Path;

use nalgebra::Vector3;
use sim::model::{Chain, reference, urdf};

fn close(a: &[f64], b: &[f64], what: &str) {
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            "{what}: {a:?} vs {b:?}"
        );
    }
}

fn assert_same(a: &Chain, b: &Chain) {
    assert_eq!((&a.name, &a.base, a.len()), (&b.name, &b.base, b.len()));
    for (x, y) in a.links.iter().zip(&b.links) {
        let (jx, jy) = (&x.joint, &y.joint);
        assert_eq!(
            (&x.name, jx.kind, jx.damping, jx.limits, &jx.friction),
            (&y.name, jy.kind, jy.damping, jy.limits, &jy.friction)
        );
        close(&jx.axis, &jy.axis, "axis");
        close(&jx.anchor, &jy.anchor, "anchor");
        let (bx, by) = (&x.body, &y.body);
        assert_eq!(bx.mass, by.mass, "{}: mass", x.name);
        close(&bx.centroid, &by.centroid, "centroid");
        close(&bx.inertia, &by.inertia, "principal moments");
        for k in 0..3 {
            close(&bx.frame[k], &by.frame[k], "body frame");
        }
    }
}

#[test]
fn every_model_round_trips_through_urdf() {
    let file = |name: &str| {
        urdf::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../models/{name}.urdf")))
            .unwrap()
    };
    for chain in reference::NAMES
        .iter()
        .map(|n| reference::by_name(n).unwrap())
        .chain([file("tilted3"), file("panda")])
    {
        let text = urdf::to_string(&chain).unwrap();
        let back = urdf::from_str(&text, &format!("{}.urdf", chain.name)).unwrap();
        assert_same(&back, &chain);
    }
}

#[test]
fn paper_rail_on_the_exported_arm6_records_what_the_built_in_arm_records() {
    let dir = std::env::temp_dir().join(format!("sim-urdf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("arm6.urdf"),
        urdf::to_string(&reference::arm6()).unwrap(),
    )
    .unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_rail.toml"),
    )
    .unwrap()
    .replace("end = 2.0", "end = 0.4");
    assert!(text.contains("model = \"arm6\""));
    let scenario = |t: &str| sim::scenario::Scenario::from_toml_in(t, "paper_rail", &dir).unwrap();
    let built_in = sim::simulate(&scenario(&text), None).recording;
    let exported = sim::simulate(
        &scenario(&text.replace("model = \"arm6\"", "model = \"arm6.urdf\"")),
        None,
    )
    .recording;
    let peak = built_in
        .joints
        .iter()
        .map(|j| j.tau.abs())
        .fold(0.0, f64::max);
    for (a, b) in built_in.joints.iter().zip(&exported.joints) {
        assert!(
            (a.tau - b.tau).abs() <= 1e-12 * peak,
            "tau {} vs {}",
            a.tau,
            b.tau
        );
        assert_eq!((a.q, a.qd, a.qdd), (b.q, b.qd, b.qdd));
    }
    for (a, b) in built_in.bodies.iter().zip(&exported.bodies) {
        let d: Vector3<f64> = a.force - b.force;
        assert!(
            d.norm() <= 1e-12 * a.force.norm().max(1.0),
            "f {} vs {}",
            a.force,
            b.force
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The reference models shipped as URDF files (`models/*.urdf`) are the built-in ones.
#[test]
fn shipped_model_files_are_the_built_in_models() {
    for name in reference::NAMES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../models/{name}.urdf"));
        let chain = urdf::read(&path).unwrap();
        assert_same(&chain, &reference::by_name(name).unwrap());
    }
}

#[test]
fn the_panda_file_reads_as_gaz_et_al_state_it() {
    let panda =
        urdf::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/panda.urdf")).unwrap();
    assert_eq!(panda.len(), 7);
    // Joint 4's range (Franka's datasheet) excludes the zero configuration.
    let j4 = panda.links[3].joint.limits.unwrap();
    assert_eq!(
        (j4.lower, j4.upper, j4.velocity, j4.effort),
        (-3.0718, -0.0698, 2.175, 87.0)
    );
    // Total mass of the seven links in Gaz et al.'s table (kg).
    let total: f64 = panda.links.iter().map(|l| l.body.mass).sum();
    assert!((total - 16.06213).abs() < 1e-5, "{total}");
    // Link 1's centroid: 0.333 m up, offset (3.875, 2.081) mm in its frame (= world at q = 0).
    close(
        &panda.links[0].body.centroid,
        &[3.875e-3, 2.081e-3, 0.333],
        "link 1 centroid",
    );
    // Joint 2's frame is link 1's turned by Rx(−π/2): its z axis is the world's y.
    close(&panda.links[1].joint.axis, &[0.0, 1.0, 0.0], "joint 2 axis");
    close(
        &panda.links[6].joint.anchor,
        &[0.088, 0.0, 0.333 + 0.316 + 0.384],
        "joint 7 point",
    );
}
