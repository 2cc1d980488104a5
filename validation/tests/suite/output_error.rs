//! The identifiers built against measured-angle noise and outliers (IDIM-IRLS, IDIM-IV, DIDIM)
//! on the Panda's excitation run, two periods (20 s), ideal sensors:
//! - the identified model's loop ([`validation::estimate::idim::closed_loop`], RK4 on the
//!   project's inverse dynamics of a base-parameter realization) driven by the run's computed-
//!   torque servos with the true parameters reproduces the motion Rapier's multibody made;
//! - IRLS and IV recover the truth to rounding; DIDIM to what its continuous-time loop can
//!   know of the simulator's sampled one.

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
fn panda_run() -> (sim::Run, validation::dataset::Run) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join("scenarios/panda_excitation.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text[..text.find("# Sensors:").unwrap()].replace("end = 40.0", "end = 20.0");
    let friction = viscous_friction(&text);
    let model = root.join("models/panda.urdf");
    let text = friction.replace("\"../models/panda.urdf\"", &format!("{model:?}"));
    let scenario = Scenario::from_toml(&text, "panda_excitation (viscous, 20 s)").unwrap();
    let sim = sim::simulate(&scenario, None);
    let run = validation::dataset::from_simulated(&sim, Path::new(".")).unwrap();
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

#[test]
fn the_identified_loop_with_the_true_parameters_moves_as_rapier_did() {
    let (sim, run) = panda_run();
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
    let x = DVector::from_vec(x);
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
fn irls_iv_and_didim_recover_the_panda_from_clean_data() {
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
    for name in ["idim_iv", "didim"] {
        let reason = by_name(&Options::default(), name)
            .unwrap()
            .applies(&experiment)
            .unwrap_err();
        assert!(reason.0.contains("joint 4 has none"), "{name}: {reason}");
    }
}
