//! ROS 2 bags in both of rosbag2's storage formats (`tests/fixtures/ros2/`, written by
//! Ternaris' `rosbags` from `tests/fixtures/ros2_bags.py`): one motion of a Panda, its arm and
//! its gripper on two JointState topics, reads to the same columns from MCAP, from sqlite3 in
//! today's layout and in Humble's, from a bag's directory or its storage file; imports with the
//! gripper held; a bag without joint states is refused with its topics listed.

use std::path::PathBuf;

use validation::import::bag;

use crate::import::{options, root, tmp};

const ARM: &str = "/franka/joint_states";
const GRIPPER: &str = "/franka_gripper/joint_states";
const HOME: [f64; 7] = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];

fn bags() -> PathBuf {
    root().join("validation/tests/fixtures/ros2")
}

/// Every storage format and entry point reads the same table, bit for bit, and that table is
/// the motion the script wrote: the arm at its stamps, the gripper interpolated onto them.
#[test]
fn mcap_and_db3_bags_of_one_motion_read_to_identical_columns() {
    let read = |p: &str| bag::read(&bags().join(p), &[]).unwrap();
    let (table, topics) = read("panda_mcap");
    assert_eq!(topics, [ARM, GRIPPER]);
    for other in [
        "panda_db3",
        "panda_db3/panda_db3.db3",
        "panda_humble.db3",
        "panda_mcap/panda_mcap.mcap",
    ] {
        let (t, tp) = read(other);
        assert_eq!(tp, topics, "{other}");
        assert_eq!(t.names, table.names, "{other}");
        assert_eq!(t.columns, table.columns, "{other}");
    }
    // Arm stamps every 4 ms from 0; gripper stamps every 40 ms from 1 ms to 961 ms: the rows are
    // the arm's stamps within the gripper's, 4 ms … 960 ms, counted from the first.
    assert_eq!(table.rows(), 240);
    let w = std::f64::consts::PI;
    let t = table.column("t").unwrap();
    for r in [0, 1, 100, 239] {
        let since_start = (r + 1) as f64 * 0.004;
        assert!((t[r] - r as f64 * 0.004).abs() < 1e-12, "t at {r}");
        for (j, home) in HOME.iter().enumerate() {
            let name = format!("panda_joint{}", j + 1);
            let phase = w * since_start + j as f64;
            let q = table.column(&format!("q_{name}")).unwrap()[r];
            let qd = table.column(&format!("qd_{name}")).unwrap()[r];
            let tau = table.column(&format!("tau_{name}")).unwrap()[r];
            assert!(
                (q - (home + 0.2 * phase.sin())).abs() < 1e-12,
                "q {name} at {r}"
            );
            assert!(
                (qd - 0.2 * w * phase.cos()).abs() < 1e-12,
                "q̇ {name} at {r}"
            );
            let effort = 10.0 * (j + 1) as f64 * (w * since_start).cos();
            assert!((tau - effort).abs() < 1e-12, "τ {name} at {r}");
        }
        for finger in ["panda_finger_joint1", "panda_finger_joint2"] {
            let q = table.column(&format!("q_{finger}")).unwrap()[r];
            assert!(
                (q - (0.01 + 0.02 * since_start)).abs() < 1e-15,
                "{finger} at {r}"
            );
        }
    }
    // One topic asked for: the arm's 250 messages, no gripper columns.
    let (arm, topics) = bag::read(&bags().join("panda_humble.db3"), &[ARM.into()]).unwrap();
    assert_eq!(topics, [ARM]);
    assert_eq!(arm.rows(), 250);
    assert!(arm.column("q_panda_finger_joint1").is_none());
}

/// A `.db3` bag imports as a run, the gripper's columns left out where the configuration holds
/// the fingers; the manifest names both topics and the bag directory with its digest.
#[test]
fn a_db3_bag_of_arm_and_gripper_imports_with_the_gripper_held() {
    let dir = tmp("db3");
    let config = dir.join("panda.toml");
    std::fs::write(&config, "[lock]\npanda_finger_joint1 = 0.02\n").unwrap();
    let mut o = options(&bags().join("panda_db3"), &dir.join("run"));
    o.urdf = root().join("models/example-robot-data/panda.urdf");
    o.reading.config = Some(config);
    let manifest = validation::import::import(&o).unwrap();
    assert_eq!(manifest.rows, 240);
    assert_eq!(manifest.topics, [ARM, GRIPPER]);
    assert_eq!(manifest.joints.len(), 7);
    assert!(manifest.recording.path.ends_with("panda_db3"));
    assert_eq!(manifest.recording.sha256.len(), 64);
    let run = sim::reading::recorded::read_recorded(&dir.join("run")).unwrap();
    let q4 = &run.measurements.joints[3].q;
    assert!((q4[0] - (HOME[3] + 0.2 * (std::f64::consts::PI * 0.004 + 3.0).sin())).abs() < 1e-12);
    // Without the lock the fingers are joints the chain lacks: their columns are named.
    let mut o = o.clone();
    o.reading.config = None;
    o.out = dir.join("unlocked");
    let e = validation::import::import(&o).unwrap_err().to_string();
    assert!(e.contains("panda_finger_joint1"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bag without JointState messages, a topic that is not one, a file that is no bag and a
/// compressed storage file are refused, naming the file and listing what the bag has.
#[test]
fn bags_without_joint_states_are_refused_with_their_topics_listed() {
    let none = bags().join("no_joint_states.db3");
    let e = bag::read(&none, &[]).unwrap_err().to_string();
    for part in [
        "no_joint_states.db3",
        "no sensor_msgs/msg/JointState messages",
        "`/diagnostics_text` (std_msgs/msg/String, 3 messages)",
        "`/ft_sensor/wrench` (geometry_msgs/msg/WrenchStamped, 3 messages)",
    ] {
        assert!(e.contains(part), "{part:?} in {e}");
    }
    let e = bag::read(&bags().join("panda_mcap"), &["/diagnostics_text".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no sensor_msgs/msg/JointState messages on topic `/diagnostics_text`")
            && e.contains("`/franka/joint_states` (sensor_msgs/msg/JointState, 250 messages)"),
        "{e}"
    );
    let dir = tmp("not-a-bag");
    let fake = dir.join("fake.db3");
    std::fs::write(
        &fake,
        b"not a database, but long enough to have a header of sorts....",
    )
    .unwrap();
    let e = bag::read(&fake, &[]).unwrap_err().to_string();
    assert!(
        e.contains("fake.db3") && e.contains("not a rosbag2 sqlite3 bag"),
        "{e}"
    );
    let zstd = dir.join("rec_0.db3.zstd");
    std::fs::write(&zstd, b"x").unwrap();
    let e = bag::read(&zstd, &[]).unwrap_err().to_string();
    assert!(
        e.contains("rec_0.db3.zstd") && e.contains("ros2 bag decompress"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
