//! The identifiers built against measured-angle noise and outliers (IDIM-IRLS, IDIM-IV, DIDIM,
//! CLOE, EKF, UKF)
//! on the Panda's excitation run, two periods (20 s), ideal sensors:
//! - the identified model's loop ([`validation::estimate::idim::closed_loop`], RK4 on the
//!   project's inverse dynamics of a base-parameter realization) driven by the run's computed-
//!   torque servos with the true parameters reproduces the motion Rapier's multibody made;
//! - IRLS and IV recover the truth to rounding; DIDIM to what its continuous-time loop can
//!   know of the simulator's sampled one; the EKF and the UKF to their per-sample step's error;
//! - CLOE's loop sensitivities match finite differences of the loop, and CLOE converges on link2
//!   under PD servos to the error of Rapier's first-order servo integration (halving with it).

use std::collections::BTreeMap;
use std::path::Path;

use nalgebra::DVector;
use sim::scenario::Scenario;
use validation::estimate::idim::base::{FrictionColumns, FullRegressor};
use validation::estimate::idim::closed_loop::ClosedLoop;
use validation::estimate::{Experiment, Options, ParamId, Role, by_name};
use validation::regressor::standard_vector;

/// The Panda's excitation over two periods, sensors ideal, friction viscous (0.05 N·m·s/rad
/// on every joint: a smooth law the identified model's loop can reproduce exactly).
fn panda_run() -> (sim::Run, sim::reading::Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join("scenarios/panda_excitation.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text[..text.find("# Sensors:").unwrap()].replace("end = 40.0", "end = 20.0");
    let friction = viscous_friction(&text);
    let model = root.join("models/panda.urdf");
    let text = friction.replace("\"../models/panda.urdf\"", &format!("{model:?}"));
    let scenario = Scenario::from_toml(&text, "panda_excitation (viscous, 20 s)").unwrap();
    let sim = sim::simulate(&scenario, None);
    let run = sim::reading::from_simulated(&sim, Path::new(".")).unwrap();
    (sim, run)
}

/// Every joint's friction line replaced by viscous friction only.
fn viscous_friction(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("friction = ") {
                "friction = { type = \"coulomb_viscous\", coulomb = 0.0, viscous = 0.05, smoothing = 0.01 }"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The Coulomb–viscous regressor of the run's arm and its true parameters (the base parameters,
/// then per joint Coulomb 0 and viscous 0.05 N·m·s/rad).
fn true_parameters(sim: &sim::Run) -> (FullRegressor, DVector<f64>) {
    let arm = &sim.manifest.model;
    let geometry = arm.kinematics_only();
    let full = FullRegressor::with_columns(
        &geometry,
        vec![Some(FrictionColumns::CoulombViscous); geometry.joint_ids().len()],
    );
    let beta = full.base.map(&standard_vector(arm));
    let mut x: Vec<f64> = beta.iter().copied().collect();
    for _ in geometry.joint_ids() {
        x.extend([0.0, 0.05]);
    }
    (full, DVector::from_vec(x))
}

#[test]
fn the_identified_loop_with_the_true_parameters_moves_as_rapier_did() {
    let (sim, run) = panda_run();
    let (full, x) = true_parameters(&sim);
    let data = &run.clean;
    let design = ClosedLoop::of_run(data).unwrap();
    let simulated = design.simulate(&full, &x, &data.t, 10.0).unwrap();
    let mut worst = 0.0f64;
    for (k, q) in simulated.q.iter().enumerate() {
        for (j, joint) in data.joints.iter().enumerate() {
            worst = worst.max((q[j] - joint.q[k]).abs());
        }
    }
    // Rapier integrates at 0.5 ms with the servo torque held over each step; the loop here is
    // continuous: the motions agree to 1e-4 rad (a wrong mass matrix, bias or control law
    // would part them by the tracking error's size, ~1e-2 rad).
    assert!(worst < 1e-4, "largest |q_loop − q_rapier| {worst:.3e} rad");
}

#[test]
fn irls_iv_didim_and_the_kalman_filters_recover_the_panda_from_clean_data() {
    let (sim, run) = panda_run();
    let truth = validation::param::truth_table(&sim.manifest.model);
    let experiment = Experiment::new(vec![(Role::Excitation, &run.measurements)]);
    let errors = |name: &str| -> Vec<f64> {
        let estimator = by_name(&Options::default(), name).unwrap();
        estimator.applies(&experiment).unwrap();
        let estimates = estimator.estimate(&experiment).unwrap();
        let base: BTreeMap<ParamId, f64> = (estimates.values.iter())
            .filter(|(id, _)| matches!(id, ParamId::Base(_)))
            .map(|(id, e)| (*id, e.value.unwrap()))
            .collect();
        assert_eq!(base.len(), 43, "{name}: the Panda's 43 base parameters");
        let scale = base.keys().map(|id| truth[id].abs()).fold(0.0, f64::max);
        let mut e: Vec<f64> = base
            .iter()
            .map(|(id, v)| (v - truth[id]).abs() / scale)
            .collect();
        e.sort_by(f64::total_cmp);
        e
    };
    for name in ["idim_irls", "idim_iv"] {
        let e = errors(name);
        assert!(
            e[e.len() - 1] < 1e-9,
            "{name}: largest error {:.2e}",
            e[e.len() - 1]
        );
    }
    // The Kalman filters step the identified model once per 10 ms sample (linearly implicit
    // trapezoidal rule): exact parameters move the filtered state by that step's error, and the
    // estimates by its share (2e-5 median, 3.2e-4 largest).
    for name in ["ekf", "ukf"] {
        let e = errors(name);
        assert!(
            e[e.len() / 2] < 1e-4 && e[e.len() - 1] < 1e-3,
            "{name}: median {:.2e} largest {:.2e}",
            e[e.len() / 2],
            e[e.len() - 1]
        );
    }
    // DIDIM fits the torques of its own loop: it is exact where that loop is the simulator's,
    // off by what the simulator's 0.5 ms torque hold moves the arm (5e-5 rad).
    let e = errors("didim");
    assert!(
        e[e.len() / 2] < 1e-4,
        "didim: median error {:.2e}",
        e[e.len() / 2]
    );
    assert!(
        e[e.len() - 1] < 1e-2,
        "didim: largest error {:.2e}",
        e[e.len() - 1]
    );
}

#[test]
fn output_error_identifiers_refuse_runs_without_a_design() {
    let (_, run) = panda_run();
    let mut data = run.measurements.clone();
    data.joints[3].reference = None;
    data.joints[3].control = None;
    let experiment = Experiment::new(vec![(Role::Excitation, &data)]);
    for name in ["idim_iv", "didim", "cloe"] {
        let reason = by_name(&Options::default(), name)
            .unwrap()
            .applies(&experiment)
            .unwrap_err();
        assert!(reason.0.contains("joint 4 has none"), "{name}: {reason}");
    }
}

#[test]
fn loop_sensitivities_match_finite_differences_of_the_simulated_loop() {
    let (sim, run) = panda_run();
    let (full, x) = true_parameters(&sim);
    let data = &run.clean;
    let times = &data.t[..501];
    let design = ClosedLoop::of_run(data).unwrap();
    let simulated = design.simulate(&full, &x, times, 10.0).unwrap();
    let s = design.sensitivities(&full, &x, &simulated);
    for c in (0..x.len()).step_by(5) {
        let h = 1e-4 * x[c].abs().max(1e-2);
        let moved = |sign: f64| {
            let mut y = x.clone();
            y[c] += sign * h;
            design.simulate(&full, &y, times, 10.0).unwrap()
        };
        let (up, down) = (moved(1.0), moved(-1.0));
        let (mut err, mut size) = (0.0f64, 0.0f64);
        for ((u, d), sk) in up.q.iter().zip(&down.q).zip(&s) {
            for j in 0..7 {
                let fd = (u[j] - d[j]) / (2.0 * h);
                err = err.max((fd - sk[(j, c)]).abs());
                size = size.max(fd.abs());
            }
        }
        // The trapezoidal rule resolves the loop to 1e-3 of S; the friction band's columns
        // (joint 7's Coulomb, column 55) to 1.2e-2; their sign columns would be 35 % off.
        assert!(
            err < 2e-2 * size,
            "column {c}: largest |S| {size:.3e}, largest |S − FD| {err:.3e}"
        );
    }
}

/// link2 under PD servos (a loop whose angles carry gravity and inertia), viscous friction,
/// two periods (20 s), ideal sensors, Rapier's step `step` (s).
fn link2_pd_run(step: f64) -> (sim::Run, sim::reading::Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenarios/teaching_excitation.toml")).unwrap();
    let text = text[..text.find("# Sensors:").unwrap()]
        .replace("end = 50.0", "end = 20.0")
        .replace("step = 5e-4", &format!("step = {step:e}"))
        .replace(
            "type = \"computed_torque\", kp = 400.0, kd = 40.0",
            "type = \"pd\", kp = 400.0, kd = 40.0",
        );
    let text = viscous_friction(&text);
    let scenario = Scenario::from_toml(&text, "teaching_excitation (PD, viscous, 20 s)").unwrap();
    let sim = sim::simulate(&scenario, None);
    let run = sim::reading::from_simulated(&sim, Path::new(".")).unwrap();
    (sim, run)
}

/// CLOE's largest base-parameter error (relative to the largest truth) on link2's PD run at
/// Rapier's step `step`, from the exact OLS estimate 20 % off.
fn cloe_error(step: f64) -> f64 {
    use validation::estimate::idim::base::Idim;
    use validation::estimate::idim::cloe::Cloe;
    use validation::estimate::idim::closed_loop::Iteration;
    use validation::estimate::idim::{Derivatives, Prepared};
    let (sim, run) = link2_pd_run(step);
    let truth = validation::param::truth_table(&sim.manifest.model);
    let prepared = Prepared::new(vec![], &run.measurements, Derivatives::Recorded, None);
    let system = Idim::ols().system(&prepared, "cloe").unwrap();
    let exact = validation::lsq::least_squares(&system.a, &system.b);
    let start = DVector::from_fn(exact.len(), |c, _| {
        exact[c] * if c % 2 == 0 { 1.2 } else { 0.8 }
    });
    let cloe = Cloe {
        iteration: Iteration {
            iterations: 30,
            tolerance: 1e-8,
        },
    };
    let identified = (cloe.identify_from(&prepared, &system.full, &system.samples, start)).unwrap();
    let base = |(id, _): &(&ParamId, &f64)| matches!(id, ParamId::Base(_));
    let scale = truth
        .iter()
        .filter(base)
        .map(|(_, v)| v.abs())
        .fold(0.0, f64::max);
    let found: BTreeMap<ParamId, f64> = (identified.values.iter())
        .filter_map(|(p, e)| Some((*p, e.value?)))
        .collect();
    assert_eq!(
        found
            .keys()
            .filter(|id| matches!(id, ParamId::Base(_)))
            .count(),
        6
    );
    (truth.iter().filter(base))
        .map(|(id, v)| (found[id] - v).abs() / scale)
        .fold(0.0, f64::max)
}

#[test]
fn cloe_recovers_link2_from_a_start_twenty_percent_off() {
    // CLOE fits the angles of its continuous loop to Rapier's, which integrates the servo at
    // first order: the error is that integration's (6e-5 rad at 5e-4 s), and halves with it.
    let coarse = cloe_error(5e-4);
    let fine = cloe_error(2.5e-4);
    println!("cloe: largest error {coarse:.2e} at 5e-4 s, {fine:.2e} at 2.5e-4 s");
    assert!(coarse < 3e-3, "cloe at 5e-4 s: largest error {coarse:.2e}");
    assert!(
        fine < 0.6 * coarse,
        "cloe: largest error {coarse:.2e} at 5e-4 s, {fine:.2e} at 2.5e-4 s"
    );
}
