//! A LeRobot dataset (v3.0) read as the logs it holds: `models/so101/lerobot/dataset`, written
//! by pyarrow from three of the SO-101 logs (`make_dataset.py`), imports back to those logs'
//! radians; `identify` takes the whole dataset in one command; a dataset with missing columns,
//! stamps that go back, no stated unit or a motor the model lacks is refused by name, and nothing
//! is written.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeListArray, Float32Array, Int64Array, RecordBatch};
use validation::import::{Options, import};

use crate::import::{root, tmp};

const MOTIONS: [&str; 3] = ["single_joint_elbow", "wave_motion", "square_pattern"];
const ARM: [&str; 5] = [
    "shoulder_pan",
    "shoulder_lift",
    "elbow_flex",
    "wrist_flex",
    "wrist_roll",
];

fn dataset() -> PathBuf {
    root().join("models/so101/lerobot/dataset")
}

fn options(recording: &Path, out: &Path, episode: Option<i64>) -> Options {
    Options {
        recording: recording.to_owned(),
        urdf: root().join("models/menagerie/robotstudio_so101/so101.nomesh.xml"),
        reading: validation::import::Reading {
            config: Some(root().join("models/so101/lerobot/so101_lerobot.toml")),
            rate: None,
            lowpass: sim::dataset::recorded::Lowpass::None,
            topics: Vec::new(),
        },
        episode,
        run_id: None,
        out: out.to_owned(),
        force: false,
    }
}

/// A column of a Parquet file, as numbers.
fn column(path: &Path, name: &str) -> Vec<f64> {
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let c = arrow_cast::cast(
            batch.column_by_name(name).unwrap(),
            &arrow_schema::DataType::Float64,
        )
        .unwrap();
        let c = c
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .unwrap();
        out.extend(c.values().iter().copied());
    }
    out
}

/// Every episode imports as its log does (the same grid, positions and commands in radians):
/// LeRobot's degrees turned back exactly, to float32's rounding; a dataset of several episodes
/// needs `--episode`.
#[test]
fn a_lerobot_datasets_episodes_import_as_the_logs_they_were_written_from() {
    let dir = tmp("lerobot-import");
    for (e, motion) in MOTIONS.iter().enumerate() {
        let out = dir.join(motion);
        let manifest = import(&options(&dataset(), &out, Some(e as i64))).unwrap();
        assert_eq!(manifest.joints.len(), 5);
        let read = |run: &Path| {
            sim::reading::recorded::read_recorded(run)
                .unwrap()
                .measurements
        };
        let m = read(&out);
        // The log's first 20 s (the episode), imported as it is, on the dataset's stamps.
        let log = root().join(format!("models/so101/recording/{motion}.parquet"));
        let table = dir.join(format!("{motion}.csv"));
        let t = column(&log, "t");
        let mut csv = String::from("t");
        for name in ARM.iter().chain(["gripper"].iter()) {
            csv += &format!(",q_{name},qcmd_{name}");
        }
        let columns: Vec<Vec<f64>> = (ARM.iter().chain(["gripper"].iter()))
            .flat_map(|n| {
                [
                    column(&log, &format!("q_{n}")),
                    column(&log, &format!("qcmd_{n}")),
                ]
            })
            .collect();
        for k in (0..t.len()).filter(|&k| t[k] - t[0] < 20.0) {
            // The stamps as the dataset stores them (float32).
            csv += &format!("\n{:?}", (t[k] - t[0]) as f32 as f64);
            for c in &columns {
                csv += &format!(",{:?}", c[k]);
            }
        }
        std::fs::write(&table, csv + "\n").unwrap();
        let mut o = options(&table, &dir.join(format!("{motion}_log")), None);
        o.reading.config = Some(root().join("models/so101/so101.toml"));
        import(&o).unwrap();
        let reference = read(&dir.join(format!("{motion}_log")));
        assert_eq!(m.t.len(), reference.t.len(), "{motion}");
        assert!(m.t.len() > 900, "{motion}: {} samples", m.t.len());
        for (j, name) in ARM.iter().enumerate() {
            let (a, b) = (&m.joints[j], &reference.joints[j]);
            for k in 0..m.t.len() {
                assert_eq!(m.t[k], reference.t[k], "{motion} t[{k}]");
                assert!(
                    (a.q[k] - b.q[k]).abs() < 1e-6,
                    "{motion} {name}[{k}]: {} vs {}",
                    a.q[k],
                    b.q[k]
                );
                let (ca, cb) = (a.q_cmd.as_ref().unwrap()[k], b.q_cmd.as_ref().unwrap()[k]);
                assert!(
                    (ca - cb).abs() < 1e-6,
                    "{motion} qcmd_{name}[{k}]: {ca} vs {cb}"
                );
            }
        }
    }
    let out = dir.join("any");
    let e = import(&options(&dataset(), &out, None))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--episode") && e.contains("3 episodes"), "{e}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `armid identify DATASET`: every episode a log, the servos fitted (here without iterating, the
/// start's rollouts: the fit is `servo_logs`'s) and judged on each episode's last 30 %.
#[test]
fn identify_takes_a_lerobot_dataset_in_one_command() {
    let dir = tmp("lerobot-identify");
    let out = dir.join("identified");
    let o = identify_options(&dataset(), &out);
    let found = validation::study::identify::identify(&o, &|_, _| Ok(())).unwrap();
    let validation::study::identify::Found::Servo(f) = found else {
        panic!("a torque identification of a LeRobot dataset")
    };
    assert_eq!(
        f.runs,
        [
            "dataset_episode_0",
            "dataset_episode_1",
            "dataset_episode_2"
        ]
    );
    assert_eq!(f.joints, ARM);
    assert!(f.judged.iter().all(|j| j.windows >= 9), "{:?}", f.judged);
    let xml = std::fs::read_to_string(out.join("model.xml")).unwrap();
    assert_eq!(xml.matches("<position ").count(), 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn identify_options(dataset: &Path, out: &Path) -> validation::study::identify::Options {
    validation::study::identify::Options {
        logs: vec![dataset.to_owned()],
        model: root().join("models/menagerie/robotstudio_so101/so101.nomesh.xml"),
        reading: options(dataset, out, None).reading,
        holdout: 0.3,
        only: None,
        start: None,
        terms: vec![validation::estimate::simulation_fit::TermKind::Kp],
        spacing: 4.0,
        iterations: 0,
        out: out.to_owned(),
        force: false,
    }
}

/// A v3.0 dataset in `dir` of one episode: `t` its stamps, every motor of `names` at 10 degrees
/// and commanded to 12; `without` a frame column left out.
fn write_dataset(dir: &Path, names: &[&str], t: &[f32], without: Option<&str>) {
    let meta = dir.join("meta");
    let data = dir.join("data/chunk-000");
    std::fs::create_dir_all(&meta).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let list: Vec<String> = names.iter().map(|n| format!("\"{n}.pos\"")).collect();
    let vector = format!(
        "{{\"dtype\": \"float32\", \"shape\": [{}], \"names\": [{}]}}",
        names.len(),
        list.join(", ")
    );
    std::fs::write(
        meta.join("info.json"),
        format!(
            "{{\"codebase_version\": \"v3.0\", \"fps\": 50, \"features\": {{\"action\": \
             {vector}, \"observation.state\": {vector}}}}}"
        ),
    )
    .unwrap();
    let n = t.len();
    let vectors = |value: f32| -> ArrayRef {
        let item = Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Float32,
            true,
        ));
        let values = Float32Array::from(vec![value; n * names.len()]);
        Arc::new(
            FixedSizeListArray::try_new(item, names.len() as i32, Arc::new(values), None).unwrap(),
        )
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("timestamp", Arc::new(Float32Array::from(t.to_vec()))),
        (
            "frame_index",
            Arc::new(Int64Array::from_iter_values(0..n as i64)),
        ),
        ("episode_index", Arc::new(Int64Array::from(vec![0i64; n]))),
        ("observation.state", vectors(10.0)),
        ("action", vectors(12.0)),
    ];
    let columns: Vec<(&str, ArrayRef)> = (columns.into_iter())
        .filter(|(name, _)| Some(*name) != without)
        .collect();
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(data.join("file-000.parquet")).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Refused by name, nothing written: a frame column missing, stamps that go back, a motor the
/// model lacks, no unit stated, a unit the reader does not know.
#[test]
fn a_bad_lerobot_dataset_is_refused_by_name_and_nothing_is_written() {
    let dir = tmp("lerobot-bad");
    let stamps: Vec<f32> = (0..200).map(|k| k as f32 * 0.02).collect();
    let out = dir.join("identified");
    let refused = |name: &str, o: &validation::study::identify::Options| -> String {
        let e = validation::study::identify::identify(o, &|_, _| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(!out.exists(), "{name}: {e}");
        e
    };
    let missing = dir.join("missing");
    write_dataset(&missing, &ARM, &stamps, Some("action"));
    let e = refused("missing", &identify_options(&missing, &out));
    assert!(
        e.contains("file-000.parquet") && e.contains("`action`"),
        "{e}"
    );
    let back = dir.join("back");
    let mut t = stamps.clone();
    t[50] = t[48];
    write_dataset(&back, &ARM, &t, None);
    let e = refused("back", &identify_options(&back, &out));
    assert!(e.contains("episode 0") && e.contains("row 51"), "{e}");
    let unknown = dir.join("unknown");
    let mut names = ARM.to_vec();
    names[2] = "elbow";
    write_dataset(&unknown, &names, &stamps, None);
    let e = refused("unknown", &identify_options(&unknown, &out));
    assert!(e.contains("q_elbow`"), "{e}");
    let good = dir.join("good");
    write_dataset(&good, &ARM, &stamps, None);
    let mut o = identify_options(&good, &out);
    let config = dir.join("no_units.toml");
    std::fs::write(&config, "[lock]\ngripper = 0.0\n").unwrap();
    o.reading.config = Some(config.clone());
    let e = refused("no units", &o);
    assert!(
        e.contains("no_units.toml") && e.contains("lerobot.units"),
        "{e}"
    );
    std::fs::write(&config, "[lerobot]\nunits = \"gradians\"\n").unwrap();
    let e = refused("gradians", &o);
    assert!(e.contains("no_units.toml") && e.contains("gradians"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
