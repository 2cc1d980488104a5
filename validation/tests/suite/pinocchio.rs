//! Every shipped scenario's data against an independent rigid-body library: the committed
//! fixture `fixtures/pinocchio.json` holds, for the first 11 samples of each scenario, the joint
//! states the project recorded and Pinocchio's generalized forces, joint wrenches, centroid
//! positions and accelerations and body angular velocities and accelerations at those states
//! (made by `fixtures/pinocchio_fixture.py`, which says how to rerun it). Here each scenario is
//! simulated again at its shipped step, written to Parquet and read back, and its columns must
//! agree with Pinocchio's to 1e-12 of each quantity's peak; its per-body Newton–Euler equations
//! must close to 1e-12 from the files.

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use serde::Deserialize;

use sim::reading::{Run, write_and_read};
use validation::consistency;

const TOLERANCE: f64 = 1e-12;
const REGENERATE: &str =
    "the fixture is stale: rerun validation/tests/fixtures/pinocchio_fixture.py";

#[derive(Deserialize)]
struct Fixture {
    samples: usize,
    runs: Vec<FixtureRun>,
    exported: Vec<Exported>,
}

/// A reference model written by `sim export-urdf`, read by Pinocchio's URDF parser, and its RNEA
/// at random states (joint order as the dataset's).
#[derive(Deserialize)]
struct Exported {
    model: String,
    q: Vec<Vec<f64>>,
    qd: Vec<Vec<f64>>,
    qdd: Vec<Vec<f64>>,
    tau: Vec<Vec<f64>>,
}

/// Per sample: per joint (`q`, …, `tau_total`) or per body (3-vectors).
#[derive(Deserialize)]
struct FixtureRun {
    scenario: String,
    q: Vec<Vec<f64>>,
    qd: Vec<Vec<f64>>,
    qdd: Vec<Vec<f64>>,
    tau_total: Vec<Vec<f64>>,
    f: Vec<Vec<[f64; 3]>>,
    n: Vec<Vec<[f64; 3]>>,
    pos: Vec<Vec<[f64; 3]>>,
    acc: Vec<Vec<[f64; 3]>>,
    omega: Vec<Vec<[f64; 3]>>,
    omega_dot: Vec<Vec<[f64; 3]>>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The scenario file with its first `end = …` line set to `(samples − 1)` sample periods and
/// without a steady-state requirement (a few samples hold none), as the fixture script does.
fn truncated(text: &str, samples: usize) -> String {
    let period: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("sample_period = "))
        .and_then(|v| v.split('#').next()?.trim().parse().ok())
        .expect("sample_period");
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.starts_with("end = ") {
                done = true;
                format!("end = {}\n", (samples - 1) as f64 * period)
            } else if l.starts_with("steady_state = ") {
                String::new()
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// The fixture's run `name`, re-simulated over `samples` samples: a shipped scenario, or arm `k`
/// of a population file (`<file>/arm=<k>`, its drawn chain and motion).
fn simulate(name: &str, samples: usize) -> Run {
    let (file, arm) = match name.split_once("/arm=") {
        Some((file, k)) => (file, Some(k.parse::<usize>().unwrap())),
        None => (name, None),
    };
    let text = std::fs::read_to_string(root().join(format!("scenarios/{file}.toml"))).unwrap();
    let scenario = sim::scenario::Scenario::from_toml_in(
        &truncated(&text, samples),
        file,
        &root().join("scenarios"),
    )
    .unwrap();
    let scenario = match arm {
        Some(k) => scenario.population_arm(k).unwrap(),
        None => scenario,
    };
    let tag = name.replace('/', "-");
    let dir = std::env::temp_dir().join(format!("pinocchio-test-{}-{tag}", std::process::id()));
    let run = write_and_read(&sim::simulate(&scenario, None), &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    run
}

/// Largest difference over `pairs` divided by the largest reference magnitude.
fn relative(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut diff, mut peak) = (0.0f64, 0.0f64);
    for (ours, theirs) in pairs {
        diff = diff.max((ours - theirs).abs());
        peak = peak.max(theirs.abs());
    }
    if peak > 0.0 { diff / peak } else { diff }
}

/// [`relative`] over the components of a per-sample, per-body 3-vector quantity.
fn relative_vectors(ours: impl Fn(usize, usize) -> Vector3<f64>, theirs: &[Vec<[f64; 3]>]) -> f64 {
    let mut pairs = Vec::new();
    for (k, bodies) in theirs.iter().enumerate() {
        for (b, v) in bodies.iter().enumerate() {
            let o = ours(k, b);
            pairs.extend((0..3).map(|i| (o[i], v[i])));
        }
    }
    relative(pairs.into_iter())
}

fn check(run: &Run, fx: &FixtureRun) {
    let name = &fx.scenario;
    let m = &run.clean;
    for (what, series, reference) in [("q", 0, &fx.q), ("qd", 1, &fx.qd), ("qdd", 2, &fx.qdd)] {
        let ours = |k: usize, j: usize| match series {
            0 => m.joints[j].q[k],
            1 => m.joints[j].qd[k],
            _ => m.joints[j].qdd[k],
        };
        for (k, row) in reference.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                let d = (ours(k, j) - v).abs();
                assert!(
                    d <= TOLERANCE * v.abs().max(1.0),
                    "{name} {what}[{k}][{j}]: {d:e}; {REGENERATE}"
                );
            }
        }
    }
    let tau = relative(fx.tau_total.iter().enumerate().flat_map(|(k, row)| {
        row.iter()
            .enumerate()
            .map(move |(j, v)| (m.joints[j].tau[k] + m.joints[j].tau_friction[k], *v))
    }));
    let b = &m.bodies;
    let checks = [
        ("tau + tau_friction", tau),
        ("f", relative_vectors(|k, i| b[i].force[k], &fx.f)),
        ("n", relative_vectors(|k, i| b[i].moment[k], &fx.n)),
        ("pos", relative_vectors(|k, i| b[i].pos[k], &fx.pos)),
        ("acc", relative_vectors(|k, i| b[i].acc[k], &fx.acc)),
        ("omega", relative_vectors(|k, i| b[i].omega[k], &fx.omega)),
        (
            "omega_dot",
            relative_vectors(|k, i| b[i].omega_dot[k], &fx.omega_dot),
        ),
    ];
    eprintln!(
        "{name} (dt = {:e} s): {checks:?}",
        run.manifest.integrator.dt
    );
    for (what, rel) in checks {
        assert!(
            rel <= TOLERANCE,
            "{name}: {what} differs from Pinocchio's by {rel:e} of its peak"
        );
    }
}

fn fixture() -> Fixture {
    let text = std::fs::read_to_string(root().join("validation/tests/fixtures/pinocchio.json"))
        .expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

/// The URDF that `sim export-urdf` writes means, to Pinocchio's parser, the model it was written
/// from: its RNEA equals the project's on the built-in model.
#[test]
fn exported_urdf_read_by_pinocchio_is_the_built_in_model() {
    for e in fixture().exported {
        let chain = sim::model::reference::by_name(&e.model).unwrap();
        for k in 0..e.q.len() {
            let ours =
                sim::dynamics::rnea(&chain, &e.q[k], &e.qd[k], &e.qdd[k], &sim::gravity_vector())
                    .tau;
            let rel = relative(ours.iter().copied().zip(e.tau[k].iter().copied()));
            assert!(rel <= TOLERANCE, "{}: state {k}: {rel:e}", e.model);
        }
    }
}

#[test]
fn every_shipped_scenario_agrees_with_pinocchio_and_closes_newton_euler() {
    let fixture = fixture();
    let mut shipped: Vec<String> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    shipped.sort();
    // Every shipped scenario, and the first arms of every population file.
    let covered: Vec<String> = (fixture.runs.iter())
        .map(|r| r.scenario.clone())
        .filter(|name| !name.contains("/arm="))
        .collect();
    for population in shipped.iter().filter(|name| {
        let text = std::fs::read_to_string(root().join(format!("scenarios/{name}.toml"))).unwrap();
        text.contains("\n[population]")
    }) {
        assert!(
            (fixture.runs.iter()).any(|r| r.scenario == format!("{population}/arm=00002")),
            "{population}'s arms in the fixture; {REGENERATE}"
        );
    }
    assert_eq!(
        covered, shipped,
        "every shipped scenario in the fixture; {REGENERATE}"
    );
    for fx in &fixture.runs {
        let run = simulate(&fx.scenario, fixture.samples);
        check(&run, fx);
        let (force, moment) = consistency::newton_euler(&run);
        assert!(
            force <= TOLERANCE && moment <= TOLERANCE,
            "{}: Newton–Euler closure force {force:e}, moment {moment:e}",
            fx.scenario
        );
    }
}
