//! Estimators from outside the crate: the measurement directory they are given and the
//! subprocess protocol in a sweep (a POSIX shell script as the command: the Rust tests need no
//! Python; python/tests/test_sweep.py runs a NumPy one through the same protocol).

use std::path::{Path, PathBuf};

use sim::reading::measurement_dir;
use sim::recording::BodyGroup;
use sim::recording::JointColumn;
use validation::study::file::Study;
use validation::study::sweep::SweepResult;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validation-ext-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `paper_rail` cut to 0.4 s, with a stated force/torque sensor at every joint.
fn rail(d: &Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join("scenarios/paper_rail.toml"))
        .unwrap()
        .replace("end = 2.0", "end = 0.4");
    let sensed = "\n[[sensor]]\ntype = \"force_torque\"\nforce = { sigma = 1.0 }\ntorque = { sigma = 0.1 }\n";
    let path = d.join("rail.toml");
    std::fs::write(&path, text + sensed).unwrap();
    path
}

#[test]
fn the_measurement_directory_holds_the_sensed_series_in_row_order_and_no_truth() {
    let d = dir("tables");
    let scenario = sim::scenario::Scenario::from_path(&rail(&d)).unwrap();
    let simulated = sim::simulate(&scenario, None);
    let run = sim::reading::from_simulated(&simulated, &d.join("run")).unwrap();
    let m = &run.measurements;
    let t = measurement_dir::tables(m);
    let column = |batch: &arrow_array::RecordBatch, name: &str| -> Vec<f64> {
        let c = batch
            .column_by_name(name)
            .unwrap_or_else(|| panic!("{name}"));
        let c = c
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .unwrap();
        c.values().to_vec()
    };
    let (n, s) = (m.bodies.len(), m.samples());
    assert_eq!(t.bodies.num_rows(), n * s);
    let fx = column(&t.bodies, "f_x");
    let mut noisy = 0;
    for k in 0..s {
        for b in 0..n {
            let sensed = m.bodies[b].measured_or_clean(BodyGroup::F)[k].x;
            assert_eq!(fx[k * n + b], sensed, "sample {k} body {b}");
            noisy += usize::from(sensed != run.clean.bodies[b].force[k].x);
        }
    }
    assert!(noisy > n * s / 2, "the force column is the measured one");
    let tau = column(&t.joints, "tau");
    let joints = m.joints.len();
    for (j, series) in m.joints.iter().enumerate() {
        assert_eq!(
            tau[3 * joints + j],
            series.measured_or_clean(JointColumn::Tau)[3]
        );
    }
    let json = serde_json::to_value(&t.description).unwrap();
    assert_eq!(json["measured"]["f"], serde_json::json!([1, 2, 3, 4, 5, 6]));
    assert!(json.get("truth").is_none() && json.get("model").is_none());
    for link in json["geometry"]["links"].as_array().unwrap() {
        assert_eq!(link["body"]["mass"], 0.0);
    }
    let names: Vec<String> = (t.joints.schema().fields().iter())
        .chain(t.bodies.schema().fields().iter())
        .map(|f| f.name().clone())
        .collect();
    assert!(
        !names
            .iter()
            .any(|c| c.ends_with("_meas") || c == "tau_friction")
    );
    let out = d.join("measurement");
    std::fs::create_dir_all(&out).unwrap();
    measurement_dir::write(&out, m).unwrap();
    for f in ["joints.parquet", "bodies.parquet", "measurement.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A sweep of `rail.toml` under force/torque noise with MIM-GLS and the command `script`
/// (a shell script, run as `sh answer.sh DIR ANSWER`).
fn sweep_with(d: &Path, script: &str) -> SweepResult {
    rail(d);
    std::fs::write(d.join("answer.sh"), script).unwrap();
    let text = "name = \"ext\"\nscenarios = [\"rail.toml\"]\nseeds = 2\nestimators = [\"mim_gls\", \"mine\"]\n\n[[sweep]]\nsensor = \"force_torque\"\nlevels = [1e-3, 3e-3, 1e-2, 3e-2, 1e-1]\n\n[[external]]\nname = \"mine\"\ncommand = [\"sh\", \"answer.sh\"]\n";
    let path = d.join("study.toml");
    std::fs::write(&path, text).unwrap();
    let study = Study::from_path(&path, &validation::estimate::registry_names()).unwrap();
    let none = |_: &SweepResult, _: &Path| Ok(());
    validation::study::run_into(&study, &d.join("out"), None, &none).unwrap()
}

#[test]
fn a_command_answers_in_a_sweep_beside_the_registry_with_the_bound() {
    let d = dir("answer");
    // It is given the measurement directory, never a truth file, and answers a fixed mass.
    let script = "set -e\ntest -f \"$1/joints.parquet\" && test -f \"$1/bodies.parquet\"\ngrep -q '\"geometry\"' \"$1/measurement.json\"\ntest ! -e \"$1/truth.parquet\"\nprintf 'parameter,estimate,std\\nB2.m_e1,1.25,0.5\\nB3.j11,,\\n' > \"$2\"\n";
    let result = sweep_with(&d, script);
    assert!(result.skipped.is_empty(), "{:?}", result.skipped);
    let row = |method: &str| {
        (result.rows.iter())
            .find(|r| r.method == method && r.parameter == "B2.m_e1" && r.level == 1e-2)
            .unwrap_or_else(|| panic!("{method}"))
            .clone()
    };
    let (mine, gls) = (row("mine"), row("mim_gls"));
    assert_eq!((mine.summary.mean, mine.summary.runs), (1.25, 2));
    assert_eq!(mine.summary.truth, gls.summary.truth);
    assert!(mine.crb.is_some() && mine.crb == gls.crb);
    // An unidentified answer (empty estimate) is not scored.
    assert!(
        !result
            .rows
            .iter()
            .any(|r| r.method == "mine" && r.parameter == "B3.j11")
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_failing_command_or_a_bad_answer_is_reported_with_its_cause() {
    for (name, script, cause) in [
        ("exit", "echo 'no luck here' >&2\nexit 3\n", "no luck here"),
        (
            "name",
            "printf 'parameter,estimate\\nB2.m_e9,1\\n' > \"$2\"\n",
            "row 1: parameter `B2.m_e9`",
        ),
        (
            "number",
            "printf 'parameter,estimate\\nB2.m_e1,heavy\\n' > \"$2\"\n",
            "column `estimate`: expected a number",
        ),
        ("silent", "true\n", "wrote no answer"),
    ] {
        let d = dir(name);
        let result = sweep_with(&d, script);
        let reason = (result.skipped.iter())
            .find(|(_, m, _)| m == "mine")
            .map(|(_, _, r)| r.clone())
            .unwrap_or_else(|| panic!("{name}: not reported"));
        assert!(reason.starts_with("failed at level"), "{reason}");
        assert!(reason.contains(cause), "{name}: {reason}");
        assert!(!result.rows.iter().any(|r| r.method == "mine"));
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn an_external_section_must_name_a_new_estimator_and_a_command() {
    let d = dir("bad");
    rail(&d);
    for (section, field) in [
        ("name = \"mim_gls\"\ncommand = [\"sh\"]", "external[0].name"),
        ("name = \"Mine!\"\ncommand = [\"sh\"]", "external[0].name"),
        ("name = \"mine\"\ncommand = []", "external[0].command"),
    ] {
        let text = format!(
            "name = \"ext\"\nscenarios = [\"rail.toml\"]\nseeds = 2\nestimators = [\"mim_gls\"]\n\n[[sweep]]\nsensor = \"force_torque\"\nlevels = [1e-3, 3e-3, 1e-2, 3e-2, 1e-1]\n\n[[external]]\n{section}\n"
        );
        let path = d.join("study.toml");
        std::fs::write(&path, text).unwrap();
        let err = Study::from_path(&path, &validation::estimate::registry_names())
            .unwrap_err()
            .to_string();
        assert!(err.contains("study.toml") && err.contains(field), "{err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
