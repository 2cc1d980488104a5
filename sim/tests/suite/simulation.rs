//! Physics of the simulation: tracking, motor impulses, free joints, convergence of the
//! joint-level agreement with the step, determinism. Short horizons; run in release.

use std::path::{Path, PathBuf};

use sim::drive::Drive;
use sim::scenario::Scenario;

fn paper_rail(end: f64, step: f64) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_rail.toml");
    Scenario::from_path(&path)
        .unwrap()
        .edited(|f| (f.time.end, f.time.step) = (end, step))
        .unwrap()
}

/// A typed edit changes what it names and nothing else: every scenario of the project edited
/// with no change is the same scenario (file, model, drives, sampling), its text reads back to
/// it, and an edit gives the run the text edit gives, byte for byte.
#[test]
fn a_typed_edit_is_the_file_with_that_field_changed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() > 10);
    for path in &paths {
        let s = Scenario::from_path(path).unwrap();
        let same = s.edited(|_| {}).unwrap();
        let shown = |s: &Scenario| format!("{:?} {:?} {:?}", s.file, s.chain, s.drives);
        assert_eq!(shown(&s), shown(&same), "{}", path.display());
        assert_eq!(same.path, s.path);
        assert_eq!(
            (same.samples, same.steps_per_sample),
            (s.samples, s.steps_per_sample)
        );
        let again = Scenario::from_toml_in(&same.source, "again", &dir).unwrap();
        assert_eq!(shown(&again), shown(&s), "{}", path.display());
    }
    let text = std::fs::read_to_string(dir.join("paper_rail.toml")).unwrap();
    let by_text = Scenario::from_toml(&text.replace("end = 2.0", "end = 0.3"), "t").unwrap();
    let by_edit = paper_rail(0.3, 0.02);
    let (a, b) = (sim::simulate(&by_text, None), sim::simulate(&by_edit, None));
    assert_eq!(format!("{:?}", a.recording), format!("{:?}", b.recording));
    // A variant that is not a scenario is refused with the file and the field named.
    let err = by_edit
        .edited(|f| f.time.sample_period = 0.0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("paper_rail.toml") && err.contains("time.sample_period"),
        "{err}"
    );
}

/// link2 swung by a prescribed Fourier motion of O1 with O2 free: a driven double pendulum.
fn swinging_link2(step: f64) -> Scenario {
    let text = format!(
        r#"
name = "link2_swing"
model = "link2"
[time]
end = 0.5
step = {step:e}
sample_period = 0.01
[[joint]]
id = 1
motion = {{ type = "fourier", base_frequency = 1.0, a = [1.5, -0.8], b = [0.3, 0.6] }}
[[joint]]
id = 2
free = true
"#
    );
    Scenario::from_toml(&text, "link2_swing (test)").unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sim-test-{}-{name}", std::process::id()))
}

#[test]
fn prescribed_profiles_are_tracked() {
    let s = paper_rail(0.3, 1e-5);
    let run = sim::simulate(&s, None);
    // Positions: the deadbeat servo lands on q_ref(t_{n+1}) every step.
    assert!(
        run.manifest.checks.max_tracking_error < 1e-8,
        "{}",
        run.manifest.checks.max_tracking_error
    );
    // Velocities and accelerations follow the profile up to the symplectic-Euler half-step lag.
    let rec = &run.recording;
    for (k, d) in s.drives.iter().enumerate() {
        let Drive::Motion(p) = &d.drive else {
            panic!("paper_rail drives every joint")
        };
        for smp in 1..rec.samples() {
            let (j, r) = (rec.joint(smp, k), p.eval(rec.t[smp]));
            let scale = r.qdd.abs().max(1.0);
            assert!(
                (j.qdd - r.qdd).abs() < 1e-4 * scale,
                "joint {k} sample {smp}: qdd {} vs {}",
                j.qdd,
                r.qdd
            );
            assert!(
                (j.qd - r.qd).abs() < 1e-4 * scale,
                "joint {k} sample {smp}: qd {} vs {}",
                j.qd,
                r.qd
            );
        }
    }
}

#[test]
fn unactuated_joint_transmits_no_moment_about_its_axis() {
    let s = swinging_link2(1e-4);
    let rec = sim::simulate(&s, None).recording;
    let link = &s.chain.links[1];
    let scale = link.body.mass * sim::GRAVITY * link.body.shape.length();
    let mut worst = 0.0f64;
    let mut swing = 0.0f64;
    for i in 0..rec.samples() {
        // Joint 2's axis is +y of body 1's frame (parallel to the world at q = 0).
        let axis = rec.body(i, 1).quat * nalgebra::Vector3::y();
        worst = worst.max(rec.body(i, 2).moment.dot(&axis).abs());
        swing = swing.max(rec.joint(i, 1).q.abs());
    }
    assert!(swing > 0.05, "the free link should swing, got {swing} rad");
    assert!(
        worst < 1e-8 * scale,
        "moment about the free axis {worst} N·m vs m·g·l = {scale}"
    );
    // The free joint's coordinates come from the dynamics, and RNEA agrees with them.
    assert!(run_residual(&s) < 1e-3);
}

fn run_residual(s: &Scenario) -> f64 {
    sim::simulate(s, None).manifest.checks.rnea_max_rel_residual
}

fn rapier(s: &Scenario) -> sim::dataset::manifest::RapierConsistency {
    sim::simulate(s, None)
        .manifest
        .checks
        .rapier
        .expect("checked")
}

#[test]
fn readings_satisfy_inverse_dynamics_at_any_step() {
    for dt in [1e-3, 1e-4] {
        let (rail, swing) = (
            run_residual(&paper_rail(0.5, dt)),
            run_residual(&swinging_link2(dt)),
        );
        eprintln!("RNEA residual at dt = {dt:e}: paper_rail {rail:.2e}, link2 swing {swing:.2e}");
        assert!(rail <= 1e-12 && swing <= 1e-12, "{rail} {swing}");
    }
}

/// The wrenches and accelerations of Rapier's discrete world (recovered from its velocity
/// changes, the project's former readings) converge to the continuous-time readings at first
/// order: the cross-check of the readings against the engine.
#[test]
fn discrete_world_converges_to_the_readings_at_first_order() {
    let order = |coarse: f64, fine: f64| (coarse / fine).log2();
    let (a, b) = (
        rapier(&paper_rail(2.0, 4e-4)),
        rapier(&paper_rail(2.0, 2e-4)),
    );
    eprintln!("paper_rail: {a:?}\n            {b:?}");
    let w = order(a.wrench_rel_difference, b.wrench_rel_difference);
    assert!((0.8..1.2).contains(&w), "wrench order {w}");
    assert!(a.max_centroid_drift < 1e-12, "{}", a.max_centroid_drift);
    let (a, b) = (rapier(&swinging_link2(2e-4)), rapier(&swinging_link2(1e-4)));
    eprintln!("link2 swing: {a:?}\n             {b:?}");
    for (what, o) in [
        (
            "wrench",
            order(a.wrench_rel_difference, b.wrench_rel_difference),
        ),
        ("qdd", order(a.qdd_rel_difference, b.qdd_rel_difference)),
    ] {
        assert!((0.8..1.2).contains(&o), "{what} order {o}");
    }
}

#[test]
fn same_scenario_and_seed_give_identical_files() {
    let s = paper_rail(0.1, 1e-5);
    let (a, b) = (temp_dir("det-a"), temp_dir("det-b"));
    for dir in [&a, &b] {
        let run = sim::simulate(&s, None);
        sim::dataset::write_run(dir, &run.recording, &run.manifest, true).unwrap();
    }
    for file in [
        "bodies.parquet",
        "joints.parquet",
        "truth.parquet",
        "manifest.json",
    ] {
        let (x, y) = (
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
        );
        assert!(x == y, "{file} differs between two runs");
    }
    for dir in [a, b] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn applied_torque_and_damping_enter_the_joint_wrench() {
    // link2 with a constant torque on O1, damped free O2: the recovered moment about each
    // axis equals tau + tau_friction (the constraint adds nothing about the free axis).
    let text = r#"
name = "link2_torque"
model = "link2"
[time]
end = 0.3
step = 1e-4
sample_period = 0.01
[[joint]]
id = 1
torque = { type = "sum", terms = [{ type = "constant", value = 20.0 }, { type = "multisine", base_frequency = 2.0, harmonics = [1, 3], amplitudes = [5.0, 2.0] }] }
damping = 2.0
[[joint]]
id = 2
free = true
damping = 1.5
"#;
    let s = Scenario::from_toml(text, "link2_torque (test)").unwrap();
    let rec = sim::simulate(&s, None).recording;
    for i in 1..rec.samples() {
        let axis1 = nalgebra::Vector3::y();
        let axis2 = rec.body(i, 1).quat * nalgebra::Vector3::y();
        for (k, axis) in [(0, axis1), (1, axis2)] {
            let j = rec.joint(i, k);
            let moment = rec.body(i, k + 1).moment.dot(&axis);
            assert!(
                (moment - j.tau - j.tau_friction).abs() < 1e-8 * 20.0,
                "O{} sample {i}: {moment} vs {} + {}",
                k + 1,
                j.tau,
                j.tau_friction
            );
        }
        assert!(rec.joint(i, 1).tau_friction != 0.0);
    }
}

#[test]
fn friction_is_applied_recorded_and_consistent_with_inverse_dynamics() {
    // link2 under a multisine torque with Stribeck friction on O1 and the teaching paper's model
    // on O2: the recorded tau_friction is the model at the recorded (q, q̇), the recovered joint
    // moment equals tau + tau_friction, and RNEA agrees at the O(dt) level.
    let text = r#"
name = "link2_friction"
model = "link2"
[time]
end = 2.0
step = 1e-4
sample_period = 0.01
[[joint]]
id = 1
torque = { type = "multisine", base_frequency = 1.0, harmonics = [1, 2], amplitudes = [40.0, 10.0] }
friction = { type = "stribeck", coulomb = 2.0, static_friction = 3.0, stribeck_velocity = 0.1, viscous = 0.5, smoothing = 1e-3 }
[[joint]]
id = 2
torque = { type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [8.0, 3.0] }
friction = { type = "paper", static_friction = 0.5, gear_ratio = 50.0, fourier = [0.1, -0.05, 0.02, 0.01], coulomb = 0.8, position = [0.1, 0.05], viscous = 0.3, quadratic = 0.1, transition_velocity = 0.05, smoothing = 1e-3 }
"#;
    let s = Scenario::from_toml(text, "link2_friction (test)").unwrap();
    let run = sim::simulate(&s, None);
    let rec = &run.recording;
    let models: Vec<_> = s
        .chain
        .links
        .iter()
        .map(|l| l.joint.friction.clone().unwrap())
        .collect();
    let mut moved = 0.0f64;
    for i in 0..rec.samples() {
        let axes = [
            nalgebra::Vector3::y(),
            rec.body(i, 1).quat * nalgebra::Vector3::y(),
        ];
        for k in 0..2 {
            let j = rec.joint(i, k);
            assert!((j.tau_friction + models[k].magnitude(j.q, j.qd)).abs() < 1e-12);
            let moment = rec.body(i, k + 1).moment.dot(&axes[k]);
            assert!(
                (moment - j.tau - j.tau_friction).abs() < 1e-8 * 40.0,
                "O{} sample {i}",
                k + 1
            );
            moved = moved.max(j.qd.abs());
        }
    }
    assert!(moved > 0.5, "the arm should move, peak speed {moved}");
    assert!(
        run.manifest.checks.rnea_max_rel_residual < 1e-3,
        "{:?}",
        run.manifest.checks
    );
    // The manifest's model carries the friction models (the truth for estimators' scoring).
    assert_eq!(
        run.manifest.model.links[1].joint.friction.as_ref(),
        Some(&models[1])
    );
}

/// link2 with both joints on servos of the given control law (joint 1 tracks a Fourier
/// reference, joint 2 holds 0), gain K = 4 on joint 1, and two `[[noise]]` entries on the
/// current for different joints.
fn servo_link2(control: &str) -> Scenario {
    let text = format!(
        r#"
name = "link2_servo"
model = "link2"
seed = 3
[time]
end = 2.0
step = 1e-4
sample_period = 0.01
[[joint]]
id = 1
servo = {{ reference = {{ type = "fourier", base_frequency = 0.5, a = [0.8, -0.3], b = [0.2, 0.4] }}, control = {control} }}
gain = 4.0
friction = {{ type = "coulomb_viscous", coulomb = 1.0, viscous = 0.5, smoothing = 1e-2 }}
[[joint]]
id = 2
servo = {{ reference = {{ type = "hold" }}, control = {control} }}
[[noise]]
column = "i"
joints = [1]
model = [{{ type = "gaussian", sigma = 0.01 }}]
[[noise]]
column = "i"
joints = [2]
model = [{{ type = "gaussian", sigma = 0.02 }}]
"#
    );
    Scenario::from_toml(&text, "link2_servo (test)").unwrap()
}

#[test]
fn servos_track_their_references_through_the_dynamics() {
    for (control, tolerance) in [
        // Computed torque with the arm's own model: only the uncompensated friction is left.
        (
            r#"{ type = "computed_torque", kp = 400.0, kd = 40.0 }"#,
            2e-3,
        ),
        (r#"{ type = "pd", kp = 4000.0, kd = 400.0 }"#, 3e-2),
        (r#"{ type = "pi_velocity", kp = 100.0, ki = 1000.0 }"#, 5e-2),
    ] {
        let s = servo_link2(control);
        let run = sim::simulate(&s, None);
        let c = &run.manifest.checks;
        let e = c.max_servo_tracking_error.unwrap();
        assert!(e < tolerance, "{control}: tracking error {e}");
        assert!(c.rnea_max_rel_residual < 1e-3, "{control}: {c:?}");
        // The joint moves along its reference (not held by a kinematic constraint).
        let peak = (0..run.recording.samples())
            .map(|i| run.recording.joint(i, 0).qd.abs())
            .fold(0.0, f64::max);
        assert!(peak > 0.5, "{control}: peak speed {peak}");
        // The current is tau / K, the torque the controller commanded.
        for i in 0..run.recording.samples() {
            for (k, gain) in [(0, 4.0), (1, 1.0)] {
                let j = run.recording.joint(i, k);
                assert!((j.current * gain - j.tau).abs() <= 1e-12 * j.tau.abs().max(1.0));
            }
        }
    }
}

#[test]
fn noise_entries_on_one_column_make_one_measured_column() {
    let run = sim::simulate(
        &servo_link2(r#"{ type = "pd", kp = 400.0, kd = 40.0 }"#),
        None,
    );
    let measured: Vec<&str> = run
        .recording
        .measured
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(measured, ["i_meas"]);
    let values = &run.recording.measured[0].1;
    for (k, sigma) in [(0usize, 0.01), (1, 0.02)] {
        let dev: Vec<f64> = (0..run.recording.samples())
            .map(|i| values[i * 2 + k] - run.recording.joint(i, k).current)
            .collect();
        let rms = (dev.iter().map(|d| d * d).sum::<f64>() / dev.len() as f64).sqrt();
        assert!(
            (rms - sigma).abs() < 0.2 * sigma,
            "joint {}: noise rms {rms}, expected {sigma}",
            k + 1
        );
    }
}
