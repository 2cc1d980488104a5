//! URDF out and back in: every reference model and the URDF test arms round-trip through
//! `sim::urdf::to_string` and `from_str` to the same chain (the reference models bit for
//! bit, the others to the rounding of body frames through `rpy` text), and the shipped scenarios
//! of the reference models write byte-identical datasets on the built-in models and on their
//! files.

use std::path::Path;

use sim::model::{Chain, reference};
use sim::urdf;

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
        .chain([file("tilted3"), file("panda"), file("ur5")])
    {
        let text = urdf::to_string(&chain).unwrap();
        let back = urdf::from_str(&text, &format!("{}.urdf", chain.name)).unwrap();
        assert_same(&back, &chain);
    }
}

#[test]
fn scenarios_on_the_model_files_write_byte_identical_datasets() {
    // Every shipped scenario of a reference model, shortened, on the built-in model and on
    // models/<name>.urdf: bodies.parquet, joints.parquet and truth.parquet identical byte for
    // byte (the manifests differ only in the scenario text, which names the model).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::env::temp_dir().join(format!("sim-urdf-bytes-{}", std::process::id()));
    for (file, model, end) in [
        ("paper_rail", "arm6", ("end = 2.0", "end = 0.4")),
        ("mim_cyl2", "cyl2", ("end = 4.0", "end = 0.4")),
        ("paper_multisine", "link2", ("end = 300.0", "end = 0.5")),
    ] {
        let text = std::fs::read_to_string(root.join(format!("scenarios/{file}.toml"))).unwrap();
        assert!(
            text.contains(end.0) && text.contains(&format!("model = \"{model}\"")),
            "{file}"
        );
        // A shortened record holds no steady state: its requirement goes with it.
        let text = text
            .replace(end.0, end.1)
            .replace("steady_state = true", "");
        let urdf_text = text.replace(
            &format!("model = \"{model}\""),
            &format!("model = \"../models/{model}.urdf\""),
        );
        let write = |t: &str, tag: &str| {
            let s =
                sim::scenario::Scenario::from_toml_in(t, file, &root.join("scenarios")).unwrap();
            let run = sim::simulate(&s, None);
            let dir = tmp.join(format!("{file}-{tag}"));
            sim::dataset::write_run(&dir, &run.recording, &run.manifest, true).unwrap();
            dir
        };
        let (a, b) = (write(&text, "built-in"), write(&urdf_text, "urdf"));
        for f in ["bodies.parquet", "joints.parquet", "truth.parquet"] {
            assert!(
                std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
                "{file}: {f} differs between the built-in {model} and models/{model}.urdf"
            );
        }
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn shipped_model_files_are_the_built_in_models() {
    for name in reference::NAMES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../models/{name}.urdf"));
        let chain = urdf::read(&path).unwrap();
        // Bit for bit: the export writes offsets the import's sums land on exactly.
        assert_eq!(chain, reference::by_name(name).unwrap(), "{name}");
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

#[test]
fn the_ur5_file_has_the_published_kinematics_and_masses() {
    let ur5 =
        urdf::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/ur5.urdf")).unwrap();
    assert_eq!(ur5.len(), 6);
    let total: f64 = ur5.links.iter().map(|l| l.body.mass).sum();
    assert!((total - 17.0489).abs() < 1e-12, "{total}");
    // Zero configuration of the DH table: shoulder-lift axis at d1 along -y, the wrist-2 axis
    // pointing down, the last joint at (a2 + a3, -d4, d1 - d5).
    let (d1, a2, a3, d4, d5) = (0.089159, -0.425, -0.39225, 0.10915, 0.09465);
    let expected = [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, d1], [0.0, -1.0, 0.0]),
        ([a2, 0.0, d1], [0.0, -1.0, 0.0]),
        ([a2 + a3, 0.0, d1], [0.0, -1.0, 0.0]),
        ([a2 + a3, -d4, d1], [0.0, 0.0, -1.0]),
        ([a2 + a3, -d4, d1 - d5], [0.0, -1.0, 0.0]),
    ];
    for (l, (anchor, axis)) in ur5.links.iter().zip(expected) {
        close(&l.joint.anchor, &anchor, &format!("{} anchor", l.name));
        close(&l.joint.axis, &axis, &format!("{} axis", l.name));
    }
    // The upper arm's centroid: halfway along it, 0.11336 m off its axis plane (UR's value).
    close(
        &ur5.links[1].body.centroid,
        &[a2 / 2.0, -0.11336, d1],
        "upper arm centroid",
    );
    assert_eq!(
        ur5.links[2].joint.limits.map(|l| l.upper),
        Some(std::f64::consts::PI)
    );
}

/// What URDF cannot state is said, not dropped silently: `sim export-urdf` of an MJCF arm whose
/// joints have armature and springs, under MuJoCo's gravity, and of a scenario whose friction is
/// the teaching paper's, names each of them on stderr (`sim::urdf::export::unstated`), and says
/// nothing for a model the URDF states whole.
#[test]
fn export_urdf_names_what_urdf_cannot_state() {
    let out = std::env::temp_dir().join(format!("sim-urdf-unstated-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let export = |model: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_sim"))
            .args(["export-urdf", model, "--out"])
            .arg(out.join("model.urdf"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert_eq!(export("arm6"), "");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mjcf/geoms_aligned.xml");
    let notes = export(file.to_str().unwrap());
    let expected = [
        "joint O1: armature 0.01 kg·m²",
        "joint O1: spring of stiffness 3 N·m/rad at rest position 0.2 rad",
        "joint O2: armature 0.01 kg·m²",
        "joint O3: spring of stiffness 3 N·m/rad at rest position 0.2 rad",
        "joint O4: spring of stiffness 0.25 N·m/rad at rest position -0.5 rad",
        "gravity [0.0, 0.0, -9.81] m/s²",
    ];
    for line in expected {
        assert!(
            notes.contains(&format!("note: URDF cannot state {line}: not in ")),
            "{line} missing from: {notes}"
        );
    }
    assert_eq!(notes.lines().count(), 9, "{notes}");
    // A scenario's friction model other than Coulomb's (the teaching paper's eq. 15).
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/teaching_sweep_j1.toml");
    let notes = export(scenario.to_str().unwrap());
    for joint in ["O1", "O2"] {
        let line = format!("note: URDF cannot state joint {joint}: friction model Paper {{");
        assert!(notes.contains(&line), "{line} missing from: {notes}");
    }
    assert_eq!(notes.lines().count(), 2, "{notes}");
    std::fs::remove_dir_all(&out).unwrap();
}
