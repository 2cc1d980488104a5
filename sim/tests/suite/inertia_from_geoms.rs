//! Bodies that take their mass and inertia from their geoms (MJCF's `inertiafromgeom`), read
//! by the project as MuJoCo compiles them: each body's mass, centroid and central inertia
//! tensor (world frame, zero configuration) and, on the arm whose tensors MuJoCo stores exactly,
//! `mj_inverse`'s forces, from `sim/tests/fixtures/mujoco.json` (written by `mujoco_fixture.py`
//! from the two models of `sim/tests/fixtures/mjcf/`); and the geoms whose inertia is not
//! computed here are refused by name.

use nalgebra::{Matrix3, Vector3};
use serde::Deserialize;
use sim::urdf::Locks;

use super::mjcf::{State, mujoco_fixture, recorded_state, root};

#[derive(Deserialize)]
struct Fixture {
    mujoco: String,
    geoms: Vec<Model>,
}

#[derive(Deserialize)]
struct Model {
    file: String,
    joints: Vec<String>,
    armature: Vec<f64>,
    damping: Vec<f64>,
    stiffness: Vec<f64>,
    springref: Vec<f64>,
    bodies: Vec<Body>,
    states: Vec<State>,
}

/// A body as MuJoCo compiled it.
#[derive(Deserialize)]
struct Body {
    name: String,
    mass: f64,
    centroid: [f64; 3],
    inertia: [[f64; 3]; 3],
}

fn fixture() -> Fixture {
    mujoco_fixture()
}

/// How far MuJoCo's stored tensor of a body may be from the one its geoms make, relative to the
/// body's largest moment: MuJoCo keeps principal moments and axes, found by an iterative
/// eigen-solver (`mju_eig3`) that leaves up to ~5e-7 of a tensor that is not diagonal in the
/// body's frame (the Panda's link 1 in `mjcf.rs`); a diagonal one it stores to rounding.
const EIG3: f64 = 1e-6;

/// Every body of both models has MuJoCo's mass and centroid to 1e-12, and its tensor to
/// rounding where MuJoCo stores it exactly, to [`EIG3`] where its eigen-solver turned it.
#[test]
fn bodies_weigh_what_mujoco_compiles_from_their_geoms() {
    let fixture = fixture();
    let expected: [&[&str]; 2] = [
        &["upper", "fore", "hand", "tool"],
        &["first", "second", "third"],
    ];
    assert_eq!(fixture.geoms.len(), expected.len());
    for (model, names) in fixture.geoms.iter().zip(expected) {
        let exact = !model.states.is_empty();
        let read = sim::mjcf::read(&root().join(&model.file), &Locks::new())
            .unwrap_or_else(|e| panic!("{}: {e}", model.file));
        assert_eq!(read.joints, model.joints, "{}", model.file);
        let links: Vec<&str> = read.chain.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(links, names, "{}", model.file);
        for link in &read.chain.links {
            let mujoco = (model.bodies.iter())
                .find(|b| b.name == link.name)
                .unwrap_or_else(|| panic!("{}: no body {}", model.file, link.name));
            let b = &link.body;
            let axes = Matrix3::from_fn(|r, c| b.frame[c][r]);
            let ours = axes * Matrix3::from_diagonal(&Vector3::from(b.inertia)) * axes.transpose();
            let theirs = Matrix3::from_fn(|r, c| mujoco.inertia[r][c]);
            let scale = theirs.diagonal().max();
            let tensor = (ours - theirs).abs().max() / scale;
            let centroid = (Vector3::from(b.centroid) - Vector3::from(mujoco.centroid)).norm();
            eprintln!(
                "{} {} (MuJoCo {}): mass {} against {}, centroid off {centroid:.1e} m, tensor \
                 off {tensor:.1e} of its largest moment",
                model.file, link.name, fixture.mujoco, b.mass, mujoco.mass
            );
            assert!(
                (b.mass - mujoco.mass).abs() <= 1e-12 * mujoco.mass,
                "{}",
                link.name
            );
            assert!(centroid <= 1e-12, "{}: centroid {centroid}", link.name);
            let allowed = if exact { 1e-12 } else { EIG3 };
            assert!(tensor <= allowed, "{}: tensor {tensor}", link.name);
        }
    }
}

/// On the arm whose bodies MuJoCo stores exactly, `RNEA + armature · q̈ + damping · q̇ +
/// k (q − springref)` equals `mj_inverse` at every stored state to 1e-9 of the largest force.
#[test]
fn an_arm_of_geoms_moves_as_mujoco_moves_it() {
    let fixture = fixture();
    let model = &fixture.geoms[0];
    assert_eq!(model.states.len(), 20);
    let read = sim::mjcf::read(&root().join(&model.file), &Locks::new()).unwrap();
    let chain = &read.chain;
    let of = |f: &dyn Fn(&sim::model::Joint) -> f64| -> Vec<f64> {
        chain.links.iter().map(|l| f(&l.joint)).collect()
    };
    let (armature, damping) = (of(&|j| j.armature), of(&|j| j.damping));
    let (stiffness, rest) = (of(&|j| j.stiffness), of(&|j| j.spring_rest));
    assert_eq!((&armature, &damping), (&model.armature, &model.damping));
    assert_eq!((&stiffness, &rest), (&model.stiffness, &model.springref));
    let g = Vector3::from(chain.gravity);
    let (mut worst, mut peak) = (0.0f64, 0.0f64);
    for s in &model.states {
        let id = sim::dynamics::rnea(chain, &s.q, &s.qd, &s.qdd, &g);
        for j in 0..s.q.len() {
            let spring = stiffness[j] * (s.q[j] - rest[j]);
            let ours = id.tau[j] + armature[j] * s.qdd[j] + damping[j] * s.qd[j] + spring;
            worst = worst.max((ours - s.tau[j]).abs());
            peak = peak.max(s.tau[j].abs());
        }
    }
    eprintln!(
        "{}: largest difference {worst:.2e} N·m of {peak:.1} N·m",
        model.file
    );
    assert!(worst <= 1e-9 * peak, "{worst} of {peak}");
}

/// The arm of geoms simulated by Rapier on a Fourier motion: the drive's recorded torque (`i`,
/// gain 1) is the `mj_inverse` of the test above at every recorded state, springs included.
#[test]
fn the_arm_of_geoms_runs_with_its_springs() {
    let model = &fixture().geoms[0];
    let joints: String = (1..=4)
        .map(|id| {
            format!(
                "[[joint]]\nid = {id}\nmotion = {{ type = \"fourier\", base_frequency = 1.0, a = [0.3], b = [0.2] }}\n"
            )
        })
        .collect();
    let text = format!(
        "name = \"geoms\"\nmodel = \"{}\"\n[time]\nend = 0.3\nstep = 1e-3\nsample_period = 0.01\n{joints}",
        model.file
    );
    let s = sim::scenario::Scenario::from_toml_in(&text, "geoms", &root()).unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let (rec, g) = (&run.recording, s.chain.gravity_vector());
    let mut worst = 0.0f64;
    for k in 0..rec.t.len() {
        let [q, qd, qdd] = recorded_state(rec, k, 4);
        let id = sim::dynamics::rnea(&s.chain, &q, &qd, &qdd, &g);
        for j in 0..4 {
            let joint = &s.chain.links[j].joint;
            let mujoco = id.tau[j]
                + joint.armature * qdd[j]
                + joint.damping * qd[j]
                + joint.stiffness * (q[j] - joint.spring_rest);
            let i = rec.joint(k, j).current;
            worst = worst.max((i - mujoco).abs() / (1.0 + mujoco.abs()));
        }
    }
    assert!(worst <= 1e-9, "{worst}");
}

/// A geom that adds no mass is skipped whatever its type (a mesh out of the inertia groups,
/// whose file need not exist; `mass="0"`), and so are the geoms of the fixed base;
/// `inertiafromgeom="false"` leaves a body without `<inertial>` massless; what is not computed here is refused, naming the geom and its line.
#[test]
fn geoms_whose_inertia_is_not_computed_here_are_named() {
    let arm = |compiler: &str, geoms: &str| {
        format!(
            "<mujoco>\n{compiler}\n<worldbody>\n<body name=\"a\">\n<joint/>\n\
             <geom type=\"sphere\" size=\"0.1\"/>\n{geoms}\n</body>\n</worldbody>\n</mujoco>"
        )
    };
    let read = |text: &str| sim::mjcf::from_str(text, "geoms.xml", &Locks::new());
    let sphere = read(&arm("", "")).unwrap().chain.links[0].body.mass;
    assert!((sphere - 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-3).abs() < 1e-12);
    for skipped in [
        "<geom type=\"mesh\" mesh=\"hull\" group=\"6\"/>",
        "<geom type=\"mesh\" mesh=\"hull\" mass=\"0\"/>",
        "<geom type=\"box\" size=\"1 1 1\" density=\"0\"/>",
        "<geom type=\"plane\" size=\"1 1 1\" group=\"3\"/>",
    ] {
        let text = arm("<compiler inertiagrouprange=\"0 2\"/>", skipped);
        let mass = read(&text).unwrap_or_else(|e| panic!("{skipped}: {e}"));
        assert_eq!(mass.chain.links[0].body.mass, sphere, "{skipped}");
    }
    // A body of the fixed base weighs nothing that moves: MuJoCo may take its mass from a mesh
    // (Menagerie's SO-ARM100 base), which need not be read; a moving body's mesh is refused.
    let on = |joint: &str| {
        format!(
            "<mujoco><worldbody><body name=\"base\">{joint}<geom type=\"mesh\" mesh=\"base\"/>\
             <body name=\"a\"><joint name=\"j\"/><geom size=\"0.1\"/></body></body></worldbody></mujoco>"
        )
    };
    let grounded = read(&on("")).unwrap();
    assert_eq!(grounded.joints, ["j"]);
    assert_eq!(grounded.chain.links[0].body.mass, sphere);
    let moving = read(&on("<joint/>")).unwrap_err().to_string();
    assert!(moving.contains("from mesh \"base\""), "{moving}");
    let massless = read(&arm("<compiler inertiafromgeom=\"false\"/>", "")).unwrap_err();
    assert!(massless.to_string().contains("without mass"), "{massless}");
    for (compiler, geom, expected) in [
        (
            "",
            "<geom type=\"mesh\" mesh=\"hull\"/>",
            "<geom> (line 7): MuJoCo would take this body's inertia from mesh \"hull\"",
        ),
        ("", "<geom type=\"hfield\"/>", "from a hfield"),
        (
            "",
            "<geom size=\"0.1\" shellinertia=\"true\"/>",
            "shellinertia",
        ),
        (
            "",
            "<geom type=\"sphere\" fromto=\"0 0 0 1 0 0\" size=\"0.1\"/>",
            "fromto on a sphere",
        ),
        (
            "",
            "<geom type=\"capsule\" fromto=\"0 0 0 0 0 0\" size=\"0.1\"/>",
            "the two points are the same",
        ),
        (
            "",
            "<geom type=\"box\" size=\"0.1 0.1\"/>",
            "a box needs 3 positive sizes",
        ),
        (
            "",
            "<geom type=\"cylinder\" size=\"0.1 0.1\" mass=\"-1\"/>",
            "mass: expected one non-negative",
        ),
        ("", "<geom group=\"two\"/>", "group=\"two\""),
        ("<compiler boundmass=\"0.01\"/>", "", "boundmass=\"0.01\""),
        ("<compiler settotalmass=\"3\"/>", "", "settotalmass=\"3\""),
        (
            "<compiler inertiafromgeom=\"yes\"/>",
            "",
            "inertiafromgeom=\"yes\"",
        ),
        (
            "<compiler inertiagrouprange=\"0\"/>",
            "",
            "inertiagrouprange=\"0\"",
        ),
    ] {
        let e = read(&arm(compiler, geom)).unwrap_err().to_string();
        assert!(
            e.contains("geoms.xml") && e.contains(expected),
            "{expected}: {e}"
        );
    }
}
