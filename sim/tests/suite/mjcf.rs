//! MJCF in (`sim::mjcf`), checked against MuJoCo itself: the Menagerie arms of `models/menagerie/`
//! read by the project give MuJoCo's `mj_inverse` forces (`sim/tests/fixtures/mujoco.json`,
//! written by `mujoco_fixture.py` beside it: constraints off, so rigid body, armature and
//! damping) at 20 random states each, to 1e-9 relative to the largest force; MJCF out
//! (`sim export-mjcf`) is the same robot to MuJoCo and reads back to the same chain; and a file
//! with an element the project cannot read is refused naming the element and its line.

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use serde::Deserialize;
use sim::urdf::Locks;

#[derive(Deserialize)]
struct Fixture {
    mujoco: String,
    arms: Vec<Arm>,
    built_in: Vec<BuiltIn>,
}

/// A built-in model exported by `sim export-mjcf` and MuJoCo's forces on it.
#[derive(Deserialize)]
struct BuiltIn {
    model: String,
    gravity: [f64; 3],
    states: Vec<State>,
}

#[derive(Deserialize)]
struct Arm {
    file: String,
    locked: Vec<String>,
    joints: Vec<String>,
    gravity: [f64; 3],
    armature: Vec<f64>,
    damping: Vec<f64>,
    states: Vec<State>,
}

/// A state and MuJoCo's `mj_inverse` forces at it.
#[derive(Deserialize)]
pub(crate) struct State {
    pub(crate) q: Vec<f64>,
    pub(crate) qd: Vec<f64>,
    pub(crate) qdd: Vec<f64>,
    pub(crate) tau: Vec<f64>,
    /// MuJoCo's forces on the file `sim export-mjcf` wrote of the arm (arms only).
    #[serde(default)]
    exported_tau: Vec<f64>,
}

/// The workspace's root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `sim/tests/fixtures/mujoco.json`, read as `T` (each test module its own keys of it).
pub(crate) fn mujoco_fixture<T: serde::de::DeserializeOwned>() -> T {
    let text = std::fs::read_to_string(root().join("sim/tests/fixtures/mujoco.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn fixture() -> Fixture {
    mujoco_fixture()
}

/// The first `joints` joints' `q`, `q̇`, `q̈` at sample `k` of a recording.
pub(crate) fn recorded_state(
    rec: &sim::recording::Recording,
    k: usize,
    joints: usize,
) -> [Vec<f64>; 3] {
    let at = |f: &dyn Fn(&sim::recording::JointRecord) -> f64| -> Vec<f64> {
        (0..joints).map(|j| f(rec.joint(k, j))).collect()
    };
    [at(&|r| r.q), at(&|r| r.qd), at(&|r| r.qdd)]
}

/// `RNEA(q, q̇, q̈) + armature · q̈ + damping · q̇` on the chain read from the file equals
/// MuJoCo's `mj_inverse` at every stored state.
#[test]
fn menagerie_arms_agree_with_mujoco_inverse_dynamics() {
    let fixture = fixture();
    assert_eq!(fixture.arms.len(), 7);
    for arm in &fixture.arms {
        let locks: Locks = arm.locked.iter().map(|j| (j.clone(), 0.0)).collect();
        let read = sim::mjcf::read(&root().join(&arm.file), &locks)
            .unwrap_or_else(|e| panic!("{}: {e}", arm.file));
        assert_eq!(read.joints, arm.joints, "{}", arm.file);
        assert_eq!(read.chain.gravity, arm.gravity, "{}", arm.file);
        let chain = &read.chain;
        let armature: Vec<f64> = chain.links.iter().map(|l| l.joint.armature).collect();
        let damping: Vec<f64> = chain.links.iter().map(|l| l.joint.damping).collect();
        assert_eq!(armature, arm.armature, "{}", arm.file);
        assert_eq!(damping, arm.damping, "{}", arm.file);
        let g = Vector3::from(read.chain.gravity);
        let mut worst = 0.0f64;
        let mut peak = 0.0f64;
        for s in &arm.states {
            let id = sim::dynamics::rnea(chain, &s.q, &s.qd, &s.qdd, &g);
            for j in 0..s.q.len() {
                let ours = id.tau[j] + armature[j] * s.qdd[j] + damping[j] * s.qd[j];
                worst = worst.max((ours - s.tau[j]).abs());
                peak = peak.max(s.tau[j].abs());
            }
        }
        eprintln!(
            "{} (MuJoCo {}): largest difference {worst:.2e} N·m of {peak:.1} N·m",
            arm.file, fixture.mujoco
        );
        assert!(worst <= 1e-9 * peak, "{}: {worst} of {peak}", arm.file);
    }
}

/// A joint's `ref`, `pos` and a `<default>` class reach the chain as MuJoCo reads them: the
/// chain's coordinate is MuJoCo's `qpos`.
#[test]
fn ref_pos_and_classes_are_read_as_mujoco_reads_them() {
    let text = r#"<mujoco model="two">
  <compiler angle="degree"/>
  <default><default class="arm"><joint axis="0 1 0" damping="0.5" armature="0.02"/></default></default>
  <worldbody>
    <body name="a" pos="0 0 1" childclass="arm">
      <inertial pos="0.1 0 0" mass="2" diaginertia="0.01 0.02 0.03"/>
      <joint name="j1" ref="30"/>
      <body name="b" pos="0.5 0 0" euler="0 0 90">
        <inertial pos="0.2 0 0" mass="1" diaginertia="0.001 0.002 0.003" quat="1 0 0 1"/>
        <joint name="j2" pos="0.1 0 0" axis="0 0 1" class="arm" range="-90 90"/>
      </body>
    </body>
  </worldbody>
</mujoco>"#;
    let read = sim::mjcf::from_str(text, "two.xml", &Locks::new()).unwrap();
    let chain = &read.chain;
    assert_eq!(read.joints, ["j1", "j2"]);
    assert_eq!(chain.links[0].joint.damping, 0.5);
    assert_eq!(chain.links[1].joint.armature, 0.02);
    let l = chain.links[1].joint.limits.unwrap();
    assert!((l.upper - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    // At q1 = ref (30°) the arm sits as the file places it: body a's centroid at (0.1, 0, 1),
    // joint 2's point 0.1 along body b's x (the world's y after its 90° yaw) from b's origin,
    // its axis b's z (the world's z), body b's centroid 0.2 along its x.
    let zero = [0.0; 2];
    let at = sim::dynamics::kinematics(chain, &[30f64.to_radians(), 0.0], &zero, &zero);
    let close = |a: Vector3<f64>, b: Vector3<f64>| (a - b).norm() < 1e-12;
    assert!(
        close(at[0].centroid, Vector3::new(0.1, 0.0, 1.0)),
        "{}",
        at[0].centroid
    );
    assert!(
        close(at[1].joint_point, Vector3::new(0.5, 0.1, 1.0)),
        "{}",
        at[1].joint_point
    );
    assert!(
        close(at[1].joint_axis, Vector3::z()),
        "{}",
        at[1].joint_axis
    );
    assert!(
        close(at[1].centroid, Vector3::new(0.5, 0.2, 1.0)),
        "{}",
        at[1].centroid
    );
}

/// Elements the project cannot read are refused with the element and its line.
#[test]
fn unsupported_elements_name_the_element_and_line() {
    let body = |inside: &str| {
        format!(
            "<mujoco>\n<worldbody>\n<body name=\"a\">\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n{inside}\n</body>\n</worldbody>\n</mujoco>"
        )
    };
    for (text, expected) in [
        (body("<freejoint/>"), "<freejoint> (line 5)"),
        (body("<joint type=\"ball\"/>"), "type=\"ball\""),
        (body("<joint/><joint/>"), "link \"a.joint2\": a moving link without mass"),
        (body("<joint stiffness=\"-2\"/>"), "stiffness=-2"),
        (body("<frame/>"), "<frame> (line 5)"),
        ("<mujoco><include file=\"arm.xml\"/></mujoco>".into(), "<include> (line 1)"),
        (
            "<mujoco><worldbody><body name=\"g\"><joint/><geom type=\"mesh\" mesh=\"m\"/></body></worldbody></mujoco>".into(),
            "from mesh \"m\"",
        ),
        (body("<joint class=\"nope\"/>"), "class \"nope\""),
        ("<robot name=\"r\"/>".into(), "<mujoco>"),
    ] {
        let e = sim::mjcf::from_str(&text, "bad.xml", &Locks::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.xml") && e.contains(expected), "{expected}: {e}");
    }
}

/// A scenario whose `model` is an MJCF file runs like a URDF one: the xArm7 from Menagerie, its
/// gripper's six joints locked at 0 (`lock`), every arm joint on a Fourier motion. The run
/// passes its physics gates, and the drive's recorded torque (`i`, gain 1) is MuJoCo's
/// `mj_inverse` at the recorded states, `RNEA + armature · q̈ + damping · q̇` (the chain's RNEA
/// is MuJoCo's, the test above), plus the friction loss as the project's smoothed Coulomb
/// friction; the armature enters as a rigid rotor's inertia. The gravity is the file's: the
/// xArm7 states none, so MuJoCo's default `0 0 −9.81` (not the project's 9.80665 for URDF).
#[test]
fn an_mjcf_model_runs_with_its_armature_and_damping() {
    let joints: String = (1..=7)
        .map(|id| {
            format!(
                "[[joint]]\nid = {id}\nmotion = {{ type = \"fourier\", base_frequency = 1.0, a = [0.3], b = [0.2] }}\n"
            )
        })
        .collect();
    let fixture = fixture();
    let xarm = fixture
        .arms
        .iter()
        .find(|a| a.file.contains("xarm7"))
        .unwrap();
    let locks = (xarm.locked.iter())
        .map(|j| format!("{j} = 0.0"))
        .collect::<Vec<_>>()
        .join(", ");
    assert_eq!(xarm.locked.len(), 6, "the gripper's six joints");
    let text = format!(
        "name = \"xarm7_mjcf\"\nmodel = \"{}\"\nlock = {{ {locks} }}\n\
         [time]\nend = 0.3\nstep = 1e-3\nsample_period = 0.01\n{joints}",
        xarm.file
    );
    let s = sim::scenario::Scenario::from_toml_in(&text, "xarm7_mjcf", &root()).unwrap();
    assert!(
        s.drives
            .iter()
            .all(|d| d.transmission == sim::scenario::Transmission::Rigid { armature: 0.1 })
    );
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    assert_eq!(s.chain.gravity, [0.0, 0.0, -9.81]);
    assert_eq!(run.manifest.model.gravity, [0.0, 0.0, -9.81]);
    let g = s.chain.gravity_vector();
    for k in 0..rec.t.len() {
        let [q, qd, qdd] = recorded_state(rec, k, 7);
        let id = sim::dynamics::rnea(&s.chain, &q, &qd, &qdd, &g);
        for j in 0..7 {
            let link = &s.chain.links[j].joint;
            let coulomb = match link.friction {
                Some(sim::friction::Friction::CoulombViscous {
                    coulomb, smoothing, ..
                }) => coulomb * (qd[j] / smoothing).tanh(),
                ref other => panic!("frictionloss as Coulomb friction, got {other:?}"),
            };
            let mujoco = id.tau[j] + link.armature * qdd[j] + link.damping * qd[j];
            let i = rec.joint(k, j).current;
            assert!(
                (i - mujoco - coulomb).abs() <= 1e-9 * (1.0 + mujoco.abs()),
                "sample {k}, joint {j}: i = {i}, mj_inverse {mujoco} + friction loss {coulomb}"
            );
        }
    }
}

/// Largest `|a − b|` and largest `|b|` over paired force lists.
fn worst(pairs: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    pairs.fold((0.0f64, 0.0f64), |(w, p), (a, b)| {
        (w.max((a - b).abs()), p.max(b.abs()))
    })
}

/// MuJoCo's forces on each arm as `sim export-mjcf` wrote it (the xArm7 with its gripper locked)
/// are its forces on the Menagerie file, to 1e-9 of the largest.
#[test]
fn exported_arms_are_the_same_robot_to_mujoco() {
    for arm in &fixture().arms {
        let (w, peak) = worst(arm.states.iter().flat_map(|s| {
            assert_eq!(s.exported_tau.len(), s.tau.len(), "{}", arm.file);
            s.exported_tau.iter().copied().zip(s.tau.iter().copied())
        }));
        eprintln!(
            "{}: exported, largest difference {w:.2e} of {peak:.1} N·m",
            arm.file
        );
        assert!(w <= 1e-9 * peak, "{}: {w} of {peak}", arm.file);
    }
}

/// The built-in models written as MJCF (`arm6` on its rail: a slide before the first hinge)
/// give MuJoCo the forces of the project's inverse dynamics.
#[test]
fn built_in_models_exported_are_the_projects_dynamics_to_mujoco() {
    let fixture = fixture();
    assert_eq!(fixture.built_in.len(), 3);
    for b in &fixture.built_in {
        let chain = sim::model::reference::by_name(&b.model).unwrap();
        assert_eq!(b.gravity, [0.0, 0.0, -sim::GRAVITY]);
        let g = Vector3::from(b.gravity);
        let (w, peak) = worst(b.states.iter().flat_map(|s| {
            let id = sim::dynamics::rnea(&chain, &s.q, &s.qd, &s.qdd, &g);
            id.tau
                .into_iter()
                .zip(s.tau.iter().copied())
                .collect::<Vec<_>>()
        }));
        eprintln!("{}: largest difference {w:.2e} of {peak:.1}", b.model);
        assert!(w <= 1e-9 * peak, "{}: {w} of {peak}", b.model);
    }
}

/// Every number of a chain survives MJCF out and in: joints (kind, axis, point, limits,
/// armature, damping, friction loss), bodies (mass, centroid, inertia tensor), the rail.
#[test]
fn mjcf_out_reads_back_to_the_same_chain() {
    let mut chains: Vec<(String, sim::model::Chain)> = sim::model::reference::NAMES
        .iter()
        .map(|n| (n.to_string(), sim::model::reference::by_name(n).unwrap()))
        .collect();
    for arm in &fixture().arms {
        let locks: Locks = arm.locked.iter().map(|j| (j.clone(), 0.0)).collect();
        chains.push((
            arm.file.clone(),
            sim::mjcf::read(&root().join(&arm.file), &locks)
                .unwrap()
                .chain,
        ));
    }
    let springs = "sim/tests/fixtures/mjcf/geoms_aligned.xml";
    let read = sim::mjcf::read(&root().join(springs), &Locks::new()).unwrap();
    assert!(read.chain.links.iter().all(|l| l.joint.stiffness > 0.0));
    chains.push((springs.to_string(), read.chain));
    for (name, chain) in &chains {
        let text = sim::mjcf::to_string(chain, None);
        let back = sim::mjcf::from_str(&text, name, &Locks::new())
            .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"))
            .chain;
        assert_eq!(back.base, chain.base, "{name}");
        assert_eq!(back.links.len(), chain.links.len(), "{name}");
        let near = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-12 * (1.0 + y.abs()))
        };
        for (a, b) in back.links.iter().zip(&chain.links) {
            let (ja, jb) = (&a.joint, &b.joint);
            assert_eq!(ja.kind, jb.kind, "{name}");
            assert!(
                near(&ja.axis, &jb.axis) && near(&ja.anchor, &jb.anchor),
                "{name}: joint"
            );
            assert_eq!(
                (ja.armature, ja.damping, ja.limits),
                (jb.armature, jb.damping, jb.limits),
                "{name}"
            );
            assert_eq!(
                (ja.stiffness, ja.spring_rest),
                (jb.stiffness, jb.spring_rest),
                "{name}"
            );
            assert_eq!(ja.friction, jb.friction, "{name}");
            assert_eq!(a.body.mass, b.body.mass, "{name}");
            assert!(near(&a.body.centroid, &b.body.centroid), "{name}: centroid");
            let world = |l: &sim::model::Link| {
                let r = l.body.rotation();
                r * l.body.inertia_body() * r.transpose()
            };
            let (ia, ib) = (world(a), world(b));
            assert!(
                (ia - ib).abs().max() <= 1e-12 * ib.abs().max(),
                "{name}: inertia"
            );
        }
    }
}

/// `export-mjcf --drives`: an identified drive-train file's terms become the joints'
/// `armature`, `damping` and `frictionloss` in place of the model's own, and read back so.
#[test]
fn export_mjcf_with_drives_writes_their_terms_on_the_joints() {
    let dir = std::env::temp_dir().join(format!("sim-mjcf-drives-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let drives = dir.join("drives.toml");
    std::fs::write(
        &drives,
        "min_speed = 0.01\n\
         [[drive]]\njoint = 1\ncoulomb = 0.3\nviscous = 0.2\narmature = 0.01\n\
         [[drive]]\njoint = 2\nviscous = 0.05\noffset = 0.1\n",
    )
    .unwrap();
    let out = dir.join("link2.xml");
    sim::cli::run(sim::cli::Command::ExportMjcf {
        model: "link2".into(),
        out: out.clone(),
        lock: Vec::new(),
        drives: Some(drives.clone()),
    })
    .unwrap();
    let back = sim::mjcf::read(&out, &Locks::new()).unwrap().chain;
    let terms = |k: usize| {
        let j = &back.links[k].joint;
        let coulomb = match j.friction {
            Some(sim::friction::Friction::CoulombViscous { coulomb, .. }) => coulomb,
            None => 0.0,
            ref other => panic!("{other:?}"),
        };
        (j.armature, j.damping, coulomb)
    };
    assert_eq!(terms(0), (0.01, 0.2, 0.3));
    assert_eq!(terms(1), (0.0, 0.05, 0.0));
    // A file for another arm is refused, naming it.
    std::fs::write(
        &drives,
        "min_speed = 0.01\n[[drive]]\njoint = 3\nviscous = 1.0\n",
    )
    .unwrap();
    let e = sim::cli::run(sim::cli::Command::ExportMjcf {
        model: "link2".into(),
        out: dir.join("x.xml"),
        lock: Vec::new(),
        drives: Some(drives),
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("drives.toml"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// MJCF → project → MJCF keeps every number of an identified arm's drives: the UR5e with a
/// coupled wrist (the last drive turns with joints 5 and 6, as the TX40's does) and a motor per
/// drive, written as `identify` writes `model.xml`, reads back to the same drive train and
/// transmission and writes the same joints, tendon and motors again (`sim export-mjcf`, no
/// drives file); a scenario refuses the coupled drive, and tendons that are not drives are
/// refused by name.
#[test]
fn a_coupled_drive_and_its_motors_round_trip_through_mjcf() {
    use sim::drive_train::{DriveTerms, DriveTrain};
    let file = root().join("models/menagerie/universal_robots_ur5e/ur5e.nomesh.xml");
    let ur5e = sim::mjcf::read(&file, &Locks::new()).unwrap();
    let mut coupling: Vec<Vec<f64>> = (0..6)
        .map(|m| (0..6).map(|j| if m == j { 1.0 } else { 0.0 }).collect())
        .collect();
    coupling[5][4] = -0.4375;
    let terms = |joint: u8| DriveTerms {
        joint,
        coulomb: 0.125 * f64::from(joint),
        viscous: 0.5 + f64::from(joint),
        offset: 0.0,
        armature: 0.01 * f64::from(joint),
    };
    let train = DriveTrain {
        min_speed: 0.0,
        coupling: Some(coupling.clone()),
        drive: (1..=6).map(terms).collect(),
        servo: Vec::new(),
    };
    let gears = [101.0, 101.0, 101.0, 80.0, 80.0, -50.0];
    let r: Vec<Vec<f64>> = (0..6)
        .map(|m| coupling[m].iter().map(|c| gears[m] * c).collect())
        .collect();
    let actuation = sim::mjcf::Actuation {
        drives: &train,
        transmission: Some(&r),
    };
    let written = sim::mjcf::with_drives(&ur5e.chain, Some(&ur5e.joints), Some(&actuation));
    assert!(
        written.contains("<fixed name=\"drive_wrist_3_joint\""),
        "{written}"
    );
    let back = sim::mjcf::from_str(&written, "model.xml", &Locks::new()).unwrap();
    assert_eq!(back.drives.as_ref(), Some(&train));
    assert_eq!(back.transmission.as_ref(), Some(&r));
    let again = sim::mjcf::with_drives(&back.chain, Some(&back.joints), back.actuation().as_ref());
    let drive_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                ["<joint", "<fixed", "<motor", "</"]
                    .iter()
                    .any(|t| l.trim_start().starts_with(t))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(drive_lines(&again), drive_lines(&written));
    // The command line writes an MJCF model's own drives back.
    let dir = std::env::temp_dir().join(format!("sim-mjcf-coupled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.xml"), &written).unwrap();
    sim::cli::run(sim::cli::Command::ExportMjcf {
        model: dir.join("model.xml").display().to_string(),
        out: dir.join("back.xml"),
        lock: Vec::new(),
        drives: None,
    })
    .unwrap();
    let exported = std::fs::read_to_string(dir.join("back.xml")).unwrap();
    assert_eq!(drive_lines(&exported), drive_lines(&written));
    // A simulation cannot apply the coupled drive.
    let mut scenario =
        "name = \"coupled\"\nmodel = \"model.xml\"\n[time]\nend = 0.1\nstep = 1e-3\n\
                        sample_period = 0.01\n"
            .to_string();
    for id in 1..=6 {
        scenario += &format!("[[joint]]\nid = {id}\nmotion = {{ type = \"hold\" }}\n");
    }
    std::fs::write(dir.join("s.toml"), scenario).unwrap();
    let e = sim::scenario::Scenario::from_path(&dir.join("s.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("wrist_3_joint") && e.contains("coupling several joints"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // Tendons that are not drives.
    let arm = |tendon: &str| {
        format!(
            "<mujoco><worldbody><body name=\"a\"><joint name=\"j1\"/><geom size=\"0.1\"/>\
             <body name=\"b\" pos=\"0 0 0.3\"><joint name=\"j2\" damping=\"0.1\"/><geom size=\"0.1\"/>\
             </body></body></worldbody><tendon>{tendon}</tendon></mujoco>"
        )
    };
    for (tendon, expected) in [
        (
            "<fixed stiffness=\"3\"><joint joint=\"j1\"/></fixed>",
            "stiffness=3",
        ),
        (
            "<fixed damping=\"1\"><joint joint=\"j1\" coef=\"2\"/></fixed>",
            "found 0 such joints",
        ),
        (
            "<fixed damping=\"1\"><joint joint=\"j1\"/><joint joint=\"j2\"/></fixed>",
            "found 2 such joints",
        ),
        (
            "<fixed damping=\"1\"><joint joint=\"j2\"/><joint joint=\"j1\" coef=\"0.5\"/></fixed>",
            "joint \"j2\" has its own",
        ),
        (
            "<fixed damping=\"1\"><joint joint=\"j3\"/></fixed>",
            "joint \"j3\" is not a joint",
        ),
        (
            "<spatial damping=\"1\"><site site=\"s\"/></spatial>",
            "spatial tendon",
        ),
        (
            "<fixed name=\"x\" damping=\"1\"><joint joint=\"j1\"/></fixed><fixed armature=\"1\"><joint joint=\"j1\"/></fixed>",
            "a second drive of joint \"j1\" (tendon \"x\"",
        ),
    ] {
        let e = sim::mjcf::from_str(&arm(tendon), "t.xml", &Locks::new())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.xml") && e.contains(expected),
            "{expected}: {e}"
        );
    }
    // A tendon over held joints only is not a drive, and without tendons or motors there is none.
    let held: Locks = [("j1".to_string(), 0.0)].into();
    let read = sim::mjcf::from_str(
        &arm("<fixed damping=\"1\"><joint joint=\"j1\"/></fixed>"),
        "t.xml",
        &held,
    )
    .unwrap();
    assert!(read.drives.is_none() && ur5e.drives.is_none());
}

/// A scenario's `gravity` replaces the model's: the Moon's on `link2`, simulated by Rapier, is
/// the gravity in the recorded torque (drive plus friction torque is the project's inverse
/// dynamics under it, and not under Earth's); MJCF out writes it and reads it back; a gravity
/// that is not three finite numbers is refused, naming the field.
#[test]
fn a_scenario_states_its_gravity() {
    let text = "name = \"moon\"\nmodel = \"link2\"\ngravity = [0.0, 0.0, -1.62]\n\
                [time]\nend = 0.5\nstep = 1e-3\nsample_period = 0.01\n\
                [[joint]]\nid = 1\nmotion = { type = \"fourier\", base_frequency = 1.0, a = [0.3], b = [0.2] }\n\
                [[joint]]\nid = 2\nmotion = { type = \"fourier\", base_frequency = 1.0, a = [0.2], b = [0.1] }\n";
    let s = sim::scenario::Scenario::from_toml_in(text, "moon", &root()).unwrap();
    assert_eq!(s.chain.gravity, [0.0, 0.0, -1.62]);
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    assert_eq!(run.manifest.model.gravity, [0.0, 0.0, -1.62]);
    let rec = &run.recording;
    let earth = sim::gravity_vector();
    let (mut moon_gap, mut earth_gap, mut scale) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..rec.t.len() {
        let at = |f: &dyn Fn(&sim::recording::JointRecord) -> f64| -> Vec<f64> {
            (0..2).map(|j| f(rec.joint(k, j))).collect()
        };
        let (q, qd, qdd) = (at(&|r| r.q), at(&|r| r.qd), at(&|r| r.qdd));
        // The drive's torque and the joint's friction torque together move the links.
        let tau = at(&|r| r.tau + r.tau_friction);
        let moon = sim::dynamics::rnea(&s.chain, &q, &qd, &qdd, &s.chain.gravity_vector()).tau;
        let on_earth = sim::dynamics::rnea(&s.chain, &q, &qd, &qdd, &earth).tau;
        for j in 0..2 {
            moon_gap = moon_gap.max((moon[j] - tau[j]).abs());
            earth_gap = earth_gap.max((on_earth[j] - tau[j]).abs());
            scale = scale.max(tau[j].abs());
        }
    }
    assert!(
        moon_gap < 1e-9 * scale,
        "{moon_gap} of {scale} (earth {earth_gap})"
    );
    assert!(earth_gap > 1e-2 * scale, "{earth_gap} of {scale}");
    let text = sim::mjcf::to_string(&s.chain, None);
    assert!(
        text.contains("<option gravity=\"0.0 0.0 -1.62\"/>"),
        "{text}"
    );
    let back = sim::mjcf::from_str(&text, "moon.xml", &Locks::new()).unwrap();
    assert_eq!(back.chain.gravity, [0.0, 0.0, -1.62]);
    let e = sim::scenario::Scenario::from_toml_in(
        "name = \"x\"\nmodel = \"link2\"\ngravity = [0.0, 0.0, nan]\n[time]\nend = 0.1\nstep = 1e-3\nsample_period = 0.01\n[[joint]]\nid = 1\n[[joint]]\nid = 2\n",
        "bad",
        &root(),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("gravity") && e.contains("finite"), "{e}");
}

/// `<include>` as MuJoCo Menagerie's `scene.xml` uses it: a scene that includes the UR5e's file
/// (relative to the scene's directory), then adds its own light, floor and assets, reads to the
/// same chain as the arm's file; an include of itself and a missing file are refused by name.
#[test]
fn a_scene_that_includes_its_arm_reads_as_the_arm() {
    let dir = std::env::temp_dir().join(format!("sim-mjcf-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("arm")).unwrap();
    let arm = root().join("models/menagerie/universal_robots_ur5e/ur5e.nomesh.xml");
    std::fs::copy(&arm, dir.join("arm/ur5e.xml")).unwrap();
    let scene = dir.join("scene.xml");
    std::fs::write(
        &scene,
        "<mujoco model=\"ur5e scene\">\n  <include file=\"arm/ur5e.xml\"/>\n\
         <statistic center=\"0.3 0 0.4\" extent=\"0.8\"/>\n\
         <asset><texture type=\"skybox\" builtin=\"gradient\" rgb1=\"0.3 0.5 0.7\" rgb2=\"0 0 0\" width=\"512\" height=\"3072\"/></asset>\n\
         <worldbody>\n    <light pos=\"0 0 1.5\" dir=\"0 0 -1\" directional=\"true\"/>\n\
         <geom name=\"floor\" size=\"0 0 0.05\" type=\"plane\"/>\n  </worldbody>\n</mujoco>\n",
    )
    .unwrap();
    let direct = sim::mjcf::read(&arm, &Locks::new()).unwrap();
    let included = sim::mjcf::read(&scene, &Locks::new()).unwrap();
    assert_eq!(included.chain.links, direct.chain.links);
    assert_eq!(included.joints, direct.joints);
    assert_eq!(included.chain.gravity, direct.chain.gravity);
    // A cycle, and a file that is not there.
    for (file, included, expected) in [
        (
            "loop.xml",
            "loop.xml",
            &["includes itself", "<include> (line 1)"][..],
        ),
        ("gone.xml", "nope.xml", &["nope.xml"][..]),
    ] {
        let text = format!("<mujoco><include file=\"{included}\"/></mujoco>");
        std::fs::write(dir.join(file), text).unwrap();
        let e = sim::mjcf::read(&dir.join(file), &Locks::new())
            .unwrap_err()
            .to_string();
        assert!(expected.iter().all(|x| e.contains(x)), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
