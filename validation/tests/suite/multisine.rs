//! The torque-driven multisine study on `link2`: periodic input, steady state, physical
//! consistency, and the estimators' accuracy without noise. One 300 s run at 0.05 × the paper's
//! torques (small motion) is shared.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sim::drive::Drive;
use sim::reading::{Run, write_and_read};
use sim::scenario::Scenario;
use validation::consistency;
use validation::estimate::frequency::{Linearized, Paper, Told};
use validation::estimate::known_geometry::KnownGeometry;
use validation::estimate::score::score;
use validation::estimate::time_domain::TimeDomain;
use validation::estimate::{Estimator, Experiment, Values, engine};
use validation::param::{Inertial, ParamId};

fn paper() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_multisine.toml");
    Scenario::from_path(&path).unwrap()
}

fn scenario(scale: f64) -> Scenario {
    paper().edited(|f| f.torque_scale = scale).unwrap()
}

fn simulate(s: &Scenario, name: &str) -> Run {
    let result = sim::simulate(s, None);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("validation-test-{}-{name}", std::process::id()));
    let run = write_and_read(&result, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    run
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| simulate(&scenario(0.05), "multisine"))
}

fn clean(run: &Run) -> sim::reading::Measurements {
    let mut m = run.clean.clone();
    m.joints.iter_mut().for_each(|j| j.measured.clear());
    m
}

#[test]
fn the_multisine_input_is_exactly_periodic_over_the_record() {
    let s = scenario(1.0);
    let period = s.excitation_period().unwrap();
    assert_eq!(period, 100.0);
    for d in &s.drives {
        let Drive::Torque(signal) = &d.drive else {
            panic!("torque-driven")
        };
        for k in 0..2000 {
            let t = k as f64 * 0.0731;
            assert!((signal.eval(t) - signal.eval(t + period)).abs() < 1e-12);
            assert!((signal.eval(t) - signal.eval(t + 2.0 * period)).abs() < 1e-12);
        }
    }
    // The recorded torque repeats sample for sample.
    let m = &run().measurements;
    let n = 10_000;
    for j in &m.joints {
        for k in 0..m.samples() - n {
            assert!(
                (j.tau[k] - j.tau[k + n]).abs() < 1e-12,
                "joint {} sample {k}",
                j.id
            );
        }
    }
}

#[test]
fn steady_state_is_detected_and_its_absence_too() {
    let steady = run().manifest.checks.steady_state.as_ref().unwrap();
    assert!(steady.steady && steady.relative < 1e-6, "{steady:?}");
    // Lightly damped and only two periods long: the transient has not decayed.
    let lightly_damped = paper()
        .edited(|f| {
            assert_eq!(f.time.end, 300.0, "the scenario changed: update this test");
            f.time.end = 200.0;
            for j in f.joint.iter_mut().filter(|j| j.damping.is_some()) {
                j.damping = Some(0.05);
            }
        })
        .unwrap();
    let result = sim::simulate(&lightly_damped, None);
    let unsteady = result.manifest.checks.steady_state.unwrap();
    assert!(!unsteady.steady && unsteady.relative > 1e-3, "{unsteady:?}");
}

#[test]
fn torque_driven_run_closes_newton_euler_and_agrees_with_rnea() {
    let (force, moment) = consistency::newton_euler(run());
    assert!(force <= 1e-9 && moment <= 1e-9, "{force:e} {moment:e}");
    let rel = consistency::inverse_dynamics(run());
    assert!(rel.iter().all(|r| *r <= 1e-6), "{rel:?}");
    // The damping torque is recorded and is −c q̇.
    for j in &run().measurements.joints {
        for k in (0..j.qd.len()).step_by(997) {
            assert!((j.tau_friction[k] + 2.0 * j.qd[k]).abs() < 1e-12);
        }
    }
}

/// Told the geometry, the last two periods used.
fn told(geometry: KnownGeometry) -> Told {
    Told {
        geometry: Some(geometry),
        periods: Some(2),
    }
}

/// `method`'s estimates of `data`, through the engine.
fn values(method: &dyn Estimator, data: &sim::reading::Measurements) -> Values {
    engine::required(method, &Experiment::single(data))
        .unwrap()
        .values
}

fn masses_rel_error(method: &dyn Estimator, data: &sim::reading::Measurements) -> Vec<f64> {
    let est = values(method, data);
    score(method.name(), &est, &run().truth)
        .iter()
        .filter(|s| {
            let mass = Inertial::Mass;
            matches!(s.parameter, ParamId::Body { quantity, .. } if quantity == mass)
        })
        .map(|s| s.rel_error().unwrap().abs())
        .collect()
}

#[test]
fn corrected_frequency_method_is_within_a_thousandth_at_small_amplitude() {
    let model = &run().manifest.model;
    for geometry in [
        KnownGeometry::masses_unknown(model).unwrap(),
        KnownGeometry::from_model(model).unwrap(),
    ] {
        let method = Linearized {
            told: told(geometry),
        };
        let rel = masses_rel_error(&method, &clean(run()));
        assert!(rel.len() == 2 && rel.iter().all(|r| *r <= 1e-3), "{rel:?}");
    }
}

#[test]
fn time_domain_method_with_the_full_model_is_within_1e_4() {
    let model = &run().manifest.model;
    let geometry = KnownGeometry::from_model(model).unwrap();
    let method = TimeDomain::recorded().told(told(geometry));
    let est = values(&method, &clean(run()));
    for s in score(method.name(), &est, &run().truth) {
        assert!(
            s.rel_error().unwrap().abs() <= 1e-4,
            "{}: {:e}",
            s.parameter,
            s.rel_error().unwrap()
        );
    }
    // It refuses noisy angles: its derivatives belong to the clean ones.
    assert!(engine::run(&method, &Experiment::single(&run().measurements)).is_err());
}

#[test]
fn the_papers_formulation_runs_and_is_far_off() {
    let method = Paper {
        told: told(KnownGeometry::masses_unknown(&run().manifest.model).unwrap()),
    };
    let rel = masses_rel_error(&method, &clean(run()));
    assert_eq!(rel.len(), 2);
    assert!(rel.iter().all(|r| r.is_finite() && *r > 0.5), "{rel:?}");
}

#[test]
fn measured_angles_carry_the_scenarios_noise_reproducibly() {
    // The sensed view's q is the measured copy; the clean view's the ideal one.
    let (sensed, clean) = (&run().measurements, &run().clean);
    assert!(clean.joints.iter().all(|j| j.measured.is_empty()));
    for (s, j) in sensed.joints.iter().zip(&clean.joints) {
        let noisy = &s.measured[&sim::recording::JointColumn::Q];
        assert_eq!(noisy, &s.q);
        let d: Vec<f64> = noisy.iter().zip(&j.q).map(|(a, b)| a - b).collect();
        assert!(d.iter().all(|v| (0.0..0.1).contains(v)));
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!((mean - 0.05).abs() < 2e-3, "{mean}");
        // The same seed gives the same noise on the same clean series.
        let again = sim::noise::noisy(
            &j.q,
            &[sim::noise::Noise::PaperUniform { amplitude: 0.1 }],
            1,
            "q",
            j.id,
            0.01,
        );
        assert_eq!(&again, noisy);
    }
}

#[test]
fn the_report_renders_the_serialized_study_result() {
    use validation::study::multisine::{MultisineStudy, ScaleRun, StudyConfig};
    let runs = [ScaleRun {
        scale: 0.05,
        run: run().clone(),
    }];
    let config = StudyConfig {
        seeds: 2,
        sweep_seeds: 2,
        sweep_levels: vec![1e-3],
        sweep_scales: vec![0.05],
        periods: 2,
    };
    let study = MultisineStudy::new(&runs, config).unwrap();
    let json = serde_json::to_string(&study).unwrap();
    let back: MultisineStudy = serde_json::from_str(&json).unwrap();
    assert_eq!(back.markdown(), study.markdown());
    assert_eq!(back.csv(), study.csv());
    // Qualified parameter names, one row per method, noise and mass.
    assert!(
        study
            .csv()
            .lines()
            .skip(1)
            .all(|l| l.contains(",B1.m,") || l.contains(",B2.m,"))
    );
}
