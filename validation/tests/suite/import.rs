//! `validation import`: a recording as a user has it, read into a recorded run that the
//! estimators use without truth; every kind of bad recording refused with its file, column and
//! row named.

use std::path::{Path, PathBuf};

use sim::dataset::recorded::Lowpass;
use validation::estimate::{Estimator, Experiment, Role};
use validation::import::{ImportError, Options, import};

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub(crate) fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validation-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn ur10() -> PathBuf {
    root().join("models/example-robot-data/ur10_robot.urdf")
}

pub(crate) const UR10: [&str; 6] = [
    "shoulder_pan_joint",
    "shoulder_lift_joint",
    "elbow_joint",
    "wrist_1_joint",
    "wrist_2_joint",
    "wrist_3_joint",
];

pub(crate) fn options(recording: &Path, out: &Path) -> Options {
    Options {
        recording: recording.to_owned(),
        urdf: ur10(),
        reading: validation::import::Reading {
            config: None,
            rate: None,
            lowpass: Lowpass::None,
            topics: Vec::new(),
        },
        episode: None,
        run_id: None,
        out: out.to_owned(),
        force: true,
    }
}

/// The `ur10_fourier` scenario simulated, written under `dir` and read back.
pub(crate) fn ur10_run(dir: &Path) -> sim::reading::Run {
    let scenario =
        sim::scenario::Scenario::from_path(&root().join("scenarios/ur10_fourier.toml")).unwrap();
    sim::reading::write_and_read(&sim::simulate(&scenario, None), &dir.join("sim")).unwrap()
}

/// A simulated run's joint columns written as the wide CSV a user's logger writes (`t`, then
/// per joint `q_`, `qd_`, `qdd_`, `tau_` by URDF name), imported back without a filter, give
/// the same columns and the same estimates as the run itself.
#[test]
fn a_simulated_run_written_as_a_recording_imports_back_to_the_same_estimates() {
    let dir = tmp("roundtrip");
    let run = ur10_run(&dir);
    let m = &run.measurements;
    let csv = wide_csv(m, |_, _, tau| tau);
    let recording = dir.join("ur10.csv");
    std::fs::write(&recording, csv).unwrap();
    let out = dir.join("recorded");
    let manifest = import(&options(&recording, &out)).unwrap();
    assert_eq!(
        (manifest.samples, manifest.signal.filter),
        (m.samples(), None)
    );
    let recorded = sim::reading::recorded::read_recorded(&out).unwrap();
    let r = &recorded.measurements;
    for (a, b) in m.joints.iter().zip(&r.joints) {
        assert_eq!((&a.q, &a.qd, &a.qdd, &a.tau), (&b.q, &b.qd, &b.qdd, &b.tau));
    }
    let estimate = |data: &sim::reading::Measurements| {
        validation::estimate::idim::single::IdimSingle
            .estimate(&Experiment::single(data))
            .unwrap()
            .values
    };
    // The recording study on it: identified on 70 %, predicted on the rest, exactly.
    let study = validation::study::recorded::study(&out, 0.3, &with_prior(ur10()), None).unwrap();
    let holdout = |p: &str| {
        validation::study::recorded::RecordedStudy::value(&study.holdout_rows, "idim_ols", p)
    };
    assert!(
        holdout("torque_nrms").unwrap() < 1e-9,
        "{:?}",
        holdout("torque_nrms")
    );
    assert!(holdout("torque_nrms.wrist_3_joint").unwrap() < 1e-8);
    let names: Vec<String> = UR10.iter().map(|n| n.to_string()).collect();
    let md = validation::report::recorded::render(&study, &names, "test", &[], None);
    let png = dir.join("torque.png");
    validation::report::recorded::plot(&study, &names, &png).unwrap();
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
    assert!(md.contains("| idim_ols | holdout | 0.0 % |"), "{md}");
    assert!(md.contains("every link consistent"), "{md}");
    // Every estimator of the registry on the recording alone applies or says why (MIM's
    // encoder view once indexed the missing body series and panicked).
    let registry = validation::estimate::registry(&Default::default());
    let chosen: Vec<&dyn Estimator> = registry.iter().map(|e| e.as_ref()).collect();
    let loaded: validation::estimate::engine::Loaded = recorded.clone().into();
    let all = validation::estimate::engine::run_all(&chosen, &[(Role::Single, &loaded)]);
    assert!(all.failed.is_empty(), "{:?}", all.failed);
    assert!((all.skipped.iter()).any(|(m, why)| m == "mim_encoders" && why.contains("wrenches")));
    let (ours, theirs) = (estimate(m), estimate(r));
    assert_eq!(ours.len(), theirs.len());
    for (id, e) in &ours {
        let (a, b) = (e.value, theirs[id].value);
        match (a, b) {
            (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{id}"),
            _ => assert_eq!(a, b, "{id}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `m`'s joint columns as the wide CSV a user's logger writes: `t`, then per joint `q_`, `qd_`,
/// `qdd_`, `tau_` by URDF name; the torque written is `torque(sample, joint, tau)`.
pub(crate) fn wide_csv(
    m: &sim::reading::Measurements,
    torque: impl Fn(usize, usize, f64) -> f64,
) -> String {
    let mut csv = String::from("t");
    for name in UR10 {
        for s in ["q", "qd", "qdd", "tau"] {
            csv += &format!(",{s}_{name}");
        }
    }
    csv += "\n";
    for k in 0..m.samples() {
        csv += &format!("{:?}", m.t[k]);
        for (i, j) in m.joints.iter().enumerate() {
            let tau = torque(k, i, j.tau[k]);
            csv += &format!(",{:?},{:?},{:?},{tau:?}", j.q[k], j.qd[k], j.qdd[k]);
        }
        csv += "\n";
    }
    csv
}

/// `m`'s torque with each drive's Coulomb, viscous and offset terms and a disturbance no model
/// describes added, written as a user's logger writes it ([`wide_csv`]).
pub(crate) fn with_drives_csv(m: &sim::reading::Measurements) -> String {
    wide_csv(m, |k, j, tau| {
        let qd = m.joints[j].qd[k];
        let friction = (3.0 - 0.4 * j as f64) * qd.signum() + 1.5 * qd + 0.3 - 0.1 * j as f64;
        tau + friction + 2.0 * (0.7 * k as f64 + j as f64).sin()
    })
}

/// The model `idim_consistent` identifies on the first 70 % of a recording, replayed by Rapier
/// (`sim replay`: the links' inverse dynamics at the simulated state plus the drive terms of
/// `sim::replay::DriveTrain`), gives the same held-out torque NRMS as the estimator's own
/// prediction (its regressor times its estimate): two implementations of one model. The
/// recording's torque has drive terms and a disturbance no model describes, so the NRMS is far
/// from zero.
#[test]
fn the_identified_model_replayed_in_rapier_predicts_what_the_estimator_predicts() {
    let dir = tmp("replay");
    let run = ur10_run(&dir);
    let m = &run.measurements;
    let csv = with_drives_csv(m);
    let recording = dir.join("ur10.csv");
    std::fs::write(&recording, csv).unwrap();
    let out = dir.join("recorded");
    import(&options(&recording, &out)).unwrap();
    let study = validation::study::recorded::study(
        &out,
        0.3,
        &with_prior(ur10()),
        Some(&dir.join("replay")),
    )
    .unwrap();
    assert_eq!(
        study.replays.len(),
        2,
        "the prior, then idim_consistent's model"
    );
    let r = &study.replays[1];
    let own = |p: &str| {
        validation::study::recorded::RecordedStudy::value(&study.holdout_rows, &r.method, p)
            .unwrap()
    };
    assert!(r.residual.torque_nrms > 1e-2, "{:?}", r.residual);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
    assert!(close(r.residual.torque_nrms, own("torque_nrms")), "{r:?}");
    assert!(close(
        r.residual.torque_nrms_moving,
        own("torque_nrms.moving")
    ));
    for (name, v) in &r.residual.torque_nrms_joints {
        assert!(close(*v, own(&format!("torque_nrms.{name}"))), "{name}");
    }
    assert!(r.files.iter().any(|f| f.ends_with(".drives.toml")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small recording of the UR10's six joints (by index), at rest near zero.
fn table(columns: &[&str], rows: usize, value: impl Fn(&str, usize) -> String) -> String {
    let mut s = columns.join(",") + "\n";
    for k in 0..rows {
        let row: Vec<String> = columns.iter().map(|c| value(c, k)).collect();
        s += &(row.join(",") + "\n");
    }
    s
}

fn columns(extra: &[&str]) -> Vec<String> {
    let mut c = vec!["t".to_string()];
    for k in 1..=6 {
        c.push(format!("q_{k}"));
        c.push(format!("tau_{k}"));
    }
    c.extend(extra.iter().map(|s| s.to_string()));
    c
}

fn plain(c: &str, k: usize) -> String {
    if c == "t" {
        format!("{}", k as f64 * 0.01)
    } else {
        format!("{}", 0.1 * (k as f64 * 0.1).sin())
    }
}

/// Imports `text` (with `edit` applied to the options) and returns the error's text.
fn refused(name: &str, text: &str, edit: impl Fn(&mut Options)) -> String {
    let dir = tmp(name);
    let recording = dir.join("rec.csv");
    std::fs::write(&recording, text).unwrap();
    let out = dir.join("run");
    let mut o = options(&recording, &out);
    edit(&mut o);
    let e: ImportError = import(&o).unwrap_err();
    assert!(!out.exists(), "{name}: nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
    e.to_string()
}

fn contains(e: &str, words: &[&str]) {
    for w in words {
        assert!(e.contains(w), "{w:?} in {e}");
    }
}

#[test]
fn every_bad_recording_is_refused_naming_the_file_column_and_row() {
    let cols = columns(&[]);
    let names: Vec<&str> = cols.iter().map(String::as_str).collect();
    let good = table(&names, 20, plain);
    let none = |_: &mut Options| {};
    // Unknown column, unknown joint, a missing coordinate and torque.
    let e = refused("unknown", &good.replacen("tau_6", "torque_6", 1), none);
    contains(
        &e,
        &[
            "rec.csv",
            "column `torque_6`",
            "expected `t` or `<signal>_<joint>`",
        ],
    );
    let e = refused("joint", &good.replacen("tau_6", "tau_7", 1), none);
    contains(&e, &["column `tau_7`", "no joint \"7\""]);
    let e = refused("no-q", &good.replacen("q_3", "qd_3", 1), none);
    contains(&e, &["column `q_elbow_joint`", "missing", "coordinate"]);
    let e = refused("no-tau", &good.replacen("tau_2", "qdd_2", 1), none);
    contains(
        &e,
        &["column `tau_shoulder_lift_joint`", "missing", "torque"],
    );
    let e = refused(
        "twice",
        &good.replacen("tau_2", "tau_shoulder_pan_joint", 1),
        none,
    );
    contains(&e, &["tau_shoulder_pan_joint", "second torque"]);
    // Time: a step back, a duplicated stamp, no time at all, both a time and a rate.
    let back = table(&names, 20, |c, k| {
        if c == "t" && k == 7 {
            "0.05".into()
        } else {
            plain(c, k)
        }
    });
    contains(
        &refused("back", &back, none),
        &["column `t`, row 8", "goes back"],
    );
    let dup = table(&names, 20, |c, k| {
        if c == "t" && k == 7 {
            "0.06".into()
        } else {
            plain(c, k)
        }
    });
    contains(
        &refused("dup", &dup, none),
        &["column `t`, row 8", "duplicated stamp"],
    );
    let no_t = good.replacen("t,", "x_t,", 1);
    contains(&refused("no-t", &no_t, none), &["x_t"]);
    let untimed = table(&names[1..], 20, plain);
    contains(
        &refused("untimed", &untimed, none),
        &["column `t`", "--rate"],
    );
    contains(
        &refused("both", &good, |o| o.reading.rate = Some(100.0)),
        &["--rate", "give one"],
    );
    // A gap, a non-number, degrees.
    let gap = table(&names, 20, |c, k| {
        if c == "q_4" && (5..8).contains(&k) {
            String::new()
        } else {
            plain(c, k)
        }
    });
    contains(
        &refused("gap", &gap, none),
        &["column `q_4`, row 6", "3 row(s)", "gap"],
    );
    let text = table(&names, 20, |c, k| {
        if c == "tau_1" && k == 3 {
            "n/a".into()
        } else {
            plain(c, k)
        }
    });
    contains(
        &refused("text", &text, none),
        &["column `tau_1`, row 4", "expected a number"],
    );
    let degrees = table(&names, 20, |c, k| {
        if c == "q_2" {
            format!("{}", 90.0 + k as f64)
        } else {
            plain(c, k)
        }
    });
    contains(
        &refused("degrees", &degrees, none),
        &["column `q_2`, row 1", "as degrees"],
    );
    // Currents without gains; motor-side columns without a transmission, or on some joints.
    let currents = good.replacen("tau_5", "i_5", 1);
    contains(
        &refused("current", &currents, none),
        &["field `gain.wrist_2_joint`", "missing"],
    );
    let motor: String = good.replace("q_", "qm_");
    contains(
        &refused("motor", &motor, none),
        &["field `transmission`", "missing"],
    );
    let partial = good.replacen("q_1", "qm_1", 1);
    contains(
        &refused("partial", &partial, none),
        &["motor angles are given for 1 of 6"],
    );
}

/// The TX40's coupled wrist through its configuration (`models/tx40/recording.toml`): motor
/// angles and torques made from known joint ones by `θm = R (q − offset)`, `τm = R⁻ᵀ τ` come
/// back as those joint values; joint-side currents become torques through their gains.
#[test]
fn motor_side_readings_come_back_through_the_stated_transmission() {
    let n = [32.0, 32.0, 45.0, -48.0, 45.0, 32.0];
    let offset = [
        0.0,
        -std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_2,
        0.0,
        0.0,
        0.0,
    ];
    let mut r = nalgebra::Matrix6::from_diagonal(&nalgebra::Vector6::from(n));
    r[(5, 4)] = 32.0;
    let rows = 40;
    let q = |k: usize, j: usize| 0.3 * ((k as f64) * 0.05 + j as f64).sin() + offset[j];
    let tau = |k: usize, j: usize| 10.0 * ((k as f64) * 0.03 + 2.0 * j as f64).cos();
    // `header` names six signals; `row(k)` gives their six values each.
    let write = |path: &Path, header: [&str; 2], row: &dyn Fn(usize) -> [[f64; 6]; 2]| {
        let mut s = String::from("t");
        for prefix in header {
            s += &(1..=6)
                .map(|j| format!(",{prefix}_joint_{j}"))
                .collect::<String>();
        }
        s += "\n";
        for k in 0..rows {
            s += &format!("{}", k as f64 * 0.002);
            for v in row(k).iter().flatten() {
                s += &format!(",{v:?}");
            }
            s += "\n";
        }
        std::fs::write(path, s).unwrap();
    };
    let dir = tmp("tx40");
    let recording = dir.join("tx40.csv");
    let rt_inv = r.transpose().try_inverse().unwrap();
    write(&recording, ["qm", "taum"], &|k| {
        let qv = nalgebra::Vector6::from_fn(|j, _| q(k, j) - offset[j]);
        let tv = nalgebra::Vector6::from_fn(|j, _| tau(k, j));
        [(r * qv).into(), (rt_inv * tv).into()]
    });
    let out = dir.join("run");
    let mut o = options(&recording, &out);
    o.urdf = root().join("models/tx40/tx40_mdh_modified.urdf");
    o.reading.config = Some(root().join("models/tx40/recording.toml"));
    import(&o).unwrap();
    let check = || {
        let run = sim::reading::recorded::read_recorded(&out).unwrap();
        for (j, series) in run.measurements.joints.iter().enumerate() {
            for k in 0..rows {
                assert!((series.q[k] - q(k, j)).abs() < 1e-12, "q{} at {k}", j + 1);
                assert!(
                    (series.tau[k] - tau(k, j)).abs() < 1e-11,
                    "tau{} at {k}",
                    j + 1
                );
            }
        }
    };
    check();
    // Joint-side angles and currents, gain K_j = j N·m/A.
    write(&recording, ["q", "i"], &|k| {
        [
            std::array::from_fn(|j| q(k, j)),
            std::array::from_fn(|j| tau(k, j) / (j + 1) as f64),
        ]
    });
    let config = dir.join("gains.toml");
    let gains: String = (1..=6).map(|j| format!("{j} = {j}.0\n")).collect();
    std::fs::write(&config, format!("[gain]\n{gains}")).unwrap();
    o.reading.config = Some(config);
    import(&o).unwrap();
    check();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A ROS 2 bag in MCAP (`validation/tests/fixtures/joint_states.mcap`, written by foxglove's
/// Python serializer: zstd chunks, CDR, the joints in reverse order, epoch stamps, a second
/// topic of another type) imports to the joint states it holds.
#[test]
fn a_ros2_bag_of_joint_states_imports_to_the_states_it_holds() {
    let dir = tmp("mcap");
    let bag = root().join("validation/tests/fixtures/joint_states.mcap");
    let out = dir.join("bag");
    let manifest = import(&options(&bag, &out)).unwrap();
    assert_eq!(manifest.samples, 500);
    let run = sim::reading::recorded::read_recorded(&out).unwrap();
    let m = &run.measurements;
    let w = 2.0 * std::f64::consts::PI * 0.5;
    for (j, joint) in m.joints.iter().enumerate() {
        for k in [0, 1, 250, 499] {
            let t = m.t[k];
            assert!((t - k as f64 * 0.002).abs() < 1e-12, "t at {k}: {t}");
            let phase = w * t + j as f64;
            assert!(
                (joint.q[k] - 0.3 * phase.sin()).abs() < 1e-12,
                "q{j} at {k}"
            );
            assert!(
                (joint.qd[k] - 0.3 * w * phase.cos()).abs() < 1e-12,
                "q̇{j} at {k}"
            );
            let effort = 10.0 * (j + 1) as f64 * (w * t).cos();
            assert!((joint.tau[k] - effort).abs() < 1e-12, "τ{j} at {k}");
        }
    }
    // Named topics: another type's, and none with `--topic` on a table.
    let mut o = options(&bag, &dir.join("x"));
    o.reading.topics = vec!["/rosout_like".into()];
    let e = import(&o).unwrap_err().to_string();
    assert!(
        e.contains("no sensor_msgs/msg/JointState messages on topic `/rosout_like`"),
        "{e}"
    );
    o.reading.topics = vec!["/joint_states".into()];
    assert!(import(&o).is_ok());
    let csv = dir.join("t.csv");
    std::fs::write(&csv, "t,q_1\n0,0\n").unwrap();
    let mut o = options(&csv, &dir.join("y"));
    o.reading.topics = vec!["/joint_states".into()];
    let e = import(&o).unwrap_err().to_string();
    assert!(e.contains("--topic") && e.contains("ROS 2 bag"), "{e}");
    // A bag cut short is refused, naming the file.
    let bytes = std::fs::read(&bag).unwrap();
    let cut = dir.join("cut.mcap");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = import(&options(&cut, &dir.join("z")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("cut.mcap"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Estimator options with `urdf` as the prior model.
fn with_prior(urdf: std::path::PathBuf) -> validation::estimate::Options {
    validation::estimate::Options {
        prior: Some(urdf),
        ..Default::default()
    }
}
