//! Rapier's trajectory against an independent integration of the same dynamics: classical
//! Runge–Kutta (RK4, step 1e-4 s) of the continuous-time hybrid dynamics of `sim::readout`
//! (plain nalgebra, no Rapier), prescribed joints on their profiles. Rapier's semi-implicit Euler
//! is first order: its error halves with the step, and at the shipped torque-driven step
//! (5e-4 s) it stays below the bound each test states.

use sim::drive::Drive;
use sim::readout::{Known, evaluate};
use sim::scenario::Scenario;

/// RK4 of the joint state (dataset order) from `t = 0`, sampled at the scenario's sample times.
fn reference(s: &Scenario, h: f64) -> Vec<Vec<f64>> {
    reference_with(s, h, &|_, _| None)
}

/// [`reference`] with the actuator force of joint `j` at `t` given by `force(j, t)` where it
/// returns one (else the joint's torque signal).
fn reference_with(
    s: &Scenario,
    h: f64,
    force: &dyn Fn(usize, f64) -> Option<f64>,
) -> Vec<Vec<f64>> {
    let nj = s.drives.len();
    let profile = |j: usize, t: f64| match &s.drives[j].drive {
        Drive::Motion(p) => Some(p.eval(t)),
        _ => None,
    };
    let derivative = |t: f64, q: &[f64], qd: &[f64]| -> Vec<f64> {
        let known: Vec<Known> = (0..nj)
            .map(|j| match (&s.drives[j].drive, profile(j, t)) {
                (_, Some(p)) => Known::Acceleration(p.qdd),
                (Drive::Torque(sig), None) => {
                    let u = force(j, t).unwrap_or_else(|| sig.eval(t));
                    Known::Force(u - s.drives[j].damping * qd[j])
                }
                (_, None) => Known::Force(-s.drives[j].damping * qd[j]),
            })
            .collect();
        if s.drives.iter().any(|d| d.transmission.armature() != 0.0) {
            return with_rotors(s, q, qd, &known);
        }
        evaluate(
            &s.chain,
            q,
            qd,
            &known,
            &vec![0.0; nj],
            &sim::gravity_vector(),
        )
        .expect("solvable")
        .qdd
    };
    let (mut q, mut qd) = (vec![0.0; nj], vec![0.0; nj]);
    for j in 0..nj {
        if let Some(p) = profile(j, 0.0) {
            (q[j], qd[j]) = (p.q, p.qd);
        }
    }
    let steps_per_sample = (s.file.time.sample_period / h).round() as usize;
    let mut out = vec![q.clone()];
    let mut t = 0.0;
    for _ in 1..s.samples {
        for _ in 0..steps_per_sample {
            let add = |x: &[f64], dx: &[f64], c: f64| -> Vec<f64> {
                x.iter().zip(dx).map(|(a, b)| a + c * b).collect()
            };
            let k1 = (qd.clone(), derivative(t, &q, &qd));
            let (q2, v2) = (add(&q, &k1.0, h / 2.0), add(&qd, &k1.1, h / 2.0));
            let k2 = (v2.clone(), derivative(t + h / 2.0, &q2, &v2));
            let (q3, v3) = (add(&q, &k2.0, h / 2.0), add(&qd, &k2.1, h / 2.0));
            let k3 = (v3.clone(), derivative(t + h / 2.0, &q3, &v3));
            let (q4, v4) = (add(&q, &k3.0, h), add(&qd, &k3.1, h));
            let k4 = (v4.clone(), derivative(t + h, &q4, &v4));
            for j in 0..nj {
                q[j] += h / 6.0 * (k1.0[j] + 2.0 * k2.0[j] + 2.0 * k3.0[j] + k4.0[j]);
                qd[j] += h / 6.0 * (k1.1[j] + 2.0 * k2.1[j] + 2.0 * k3.1[j] + k4.1[j]);
            }
            t += h;
        }
        out.push(q.clone());
    }
    out
}

/// The accelerations of an arm of force-driven joints with rotors, solved here apart from
/// `sim::readout`: `(M + diag(J_m G²)) q̈ = force − RNEA(q, q̇, 0)`, `M` column by column from
/// the RNEA without gravity.
fn with_rotors(s: &Scenario, q: &[f64], qd: &[f64], known: &[Known]) -> Vec<f64> {
    use nalgebra::{DMatrix, DVector, Vector3};
    use sim::dynamics::rnea;
    let nj = q.len();
    let zero = vec![0.0; nj];
    let bias = rnea(&s.chain, q, qd, &zero, &sim::gravity_vector()).tau;
    let m = DMatrix::from_fn(nj, nj, |r, c| {
        let mut unit = zero.clone();
        unit[c] = 1.0;
        let column = rnea(&s.chain, q, &zero, &unit, &Vector3::zeros()).tau;
        column[r]
            + if r == c {
                s.drives[r].transmission.armature()
            } else {
                0.0
            }
    });
    let rhs = DVector::from_fn(nj, |j, _| match known[j] {
        Known::Force(f) => f - bias[j],
        Known::Acceleration(_) => panic!("force-driven joints only"),
    });
    m.lu().solve(&rhs).expect("invertible").as_slice().to_vec()
}

/// Largest `|q_Rapier − q_RK4|` over samples and joints at the integrator step `dt`.
fn deviation(text: &str, dt: f64) -> f64 {
    let s = Scenario::from_toml(&text.replace("STEP", &format!("{dt:e}")), "test").unwrap();
    let rec = sim::simulate(&s, None).recording;
    let reference = reference(&s, 1e-4);
    let mut worst = 0.0f64;
    for (k, r) in reference.iter().enumerate() {
        for (j, q) in r.iter().enumerate() {
            worst = worst.max((rec.joint(k, j).q - q).abs());
        }
    }
    worst
}

fn first_order(text: &str, name: &str, bound: f64) {
    let (coarse, fine) = (deviation(text, 1e-3), deviation(text, 5e-4));
    let order = (coarse / fine).log2();
    eprintln!(
        "{name}: |q − q_RK4| {coarse:.2e} rad at 1e-3 s, {fine:.2e} at 5e-4 s: order {order:.2}"
    );
    assert!((0.8..1.3).contains(&order), "{name}: order {order}");
    assert!(fine < bound, "{name}: {fine} rad at 5e-4 s");
}

/// A `link2` scenario over 1 s sampled at 100 Hz with these `[[joint]]` sections (the step left
/// as `STEP`).
fn link2(joints: &str) -> String {
    format!(
        "name = \"link2_test\"\nmodel = \"link2\"\n[time]\nend = 1.0\nstep = STEP\nsample_period = 0.01\n{joints}"
    )
}

#[test]
fn kicked_double_pendulum_follows_the_continuous_dynamics_at_first_order() {
    let joints = r#"
[[joint]]
id = 1
torque = { type = "step", time = 0.3, before = 30.0, after = 0.0 }
[[joint]]
id = 2
free = true
damping = 0.05
"#;
    first_order(&link2(joints), "kicked, then free link2", 2e-3);
}

#[test]
fn torque_driven_arm_follows_the_continuous_dynamics_at_first_order() {
    let joints = r#"
[[joint]]
id = 1
torque = { type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }
[[joint]]
id = 2
torque = { type = "multisine", base_frequency = 1.0, harmonics = [2, 5], amplitudes = [4.0, 1.0] }
"#;
    first_order(&link2(joints), "torque-driven link2", 2e-3);
}

/// A prescribed joint driving a free one: the coupling of Rapier's kinematic degree of freedom
/// into the dynamic one (see `sim::simulation`) is what makes this agree.
#[test]
fn free_link_driven_by_a_prescribed_joint_follows_the_continuous_dynamics() {
    let joints = r#"
[[joint]]
id = 1
motion = { type = "fourier", base_frequency = 1.0, a = [1.5, -0.8], b = [0.3, 0.6] }
[[joint]]
id = 2
free = true
"#;
    first_order(&link2(joints), "prescribed O1, free O2", 5e-3);
}

/// A rotor behind each joint (`rotor = { inertia, gear_ratio }`, sim::rotor): Rapier's
/// trajectory with the reflected inertias follows the RK4 of `(M + diag(J_m G²)) q̈ = u − …`
/// at first order; the recorded `tau` is what reaches the links (the RNEA contract holds) and
/// the current measures the motor, `K i − tau = J_m G² q̈`.
#[test]
fn rotors_add_their_reflected_inertia_and_the_current_measures_the_motor() {
    let joints = r#"
[[joint]]
id = 1
torque = { type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }
rotor = { inertia = 2e-4, gear_ratio = 100.0 }
gain = 0.5
[[joint]]
id = 2
torque = { type = "multisine", base_frequency = 1.0, harmonics = [2, 5], amplitudes = [4.0, 1.0] }
rotor = { inertia = 5e-5, gear_ratio = 50.0 }
"#;
    first_order(&link2(joints), "torque-driven link2 with rotors", 2e-3);
    let text = link2(joints).replace("STEP", "5e-4");
    let s = Scenario::from_toml(&text, "rotors").unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let armature = [2e-4 * 100.0 * 100.0, 5e-5 * 50.0 * 50.0];
    let mut worst = 0.0f64;
    for k in 0..rec.samples() {
        for (j, a) in armature.iter().enumerate() {
            let r = rec.joint(k, j);
            let motor = r.current * s.drives[j].gain;
            worst = worst.max((motor - r.tau - a * r.qdd).abs());
        }
    }
    assert!(worst < 1e-9, "K i − tau − J_m G² q̈ reaches {worst}");
    // Without the rotors the same torques move the arm visibly differently.
    let bare = Scenario::from_toml(
        &text
            .replace("rotor = { inertia = 2e-4, gear_ratio = 100.0 }\n", "")
            .replace("rotor = { inertia = 5e-5, gear_ratio = 50.0 }\n", ""),
        "bare",
    )
    .unwrap();
    let bare = sim::simulate(&bare, None).recording;
    let apart = (0..rec.samples())
        .map(|k| (bare.joint(k, 0).q - rec.joint(k, 0).q).abs())
        .fold(0.0, f64::max);
    assert!(
        apart > 0.02,
        "the rotors moved joint 1 by at most {apart} rad"
    );
}

/// A motor with a current loop and a torque-constant error (`sim::motor`) behind a step
/// command: the recorded current is the first-order response `i = (u/K)(1 − e^{−ω_c (t − t₀)})`
/// to rounding, the link receives `(1 + ε) K i`, and Rapier's trajectory follows an RK4 of the
/// arm driven by that closed-form torque (within 1e-4 rad, converging with the step).
#[test]
fn a_motor_current_loop_and_torque_constant_error_shape_the_torque_the_link_receives() {
    let (u, k, eps, w, t0) = (30.0, 0.5, 0.05, 200.0, 0.1);
    let joints = format!(
        r#"
[[joint]]
id = 1
torque = {{ type = "step", time = {t0}, before = 0.0, after = {u} }}
gain = {k}
motor = {{ torque_constant_error = {eps}, current_bandwidth = {w} }}
[[joint]]
id = 2
free = true
damping = 0.05
"#
    );
    let current = |t: f64| {
        if t < t0 {
            0.0
        } else {
            u / k * (1.0 - (-w * (t - t0)).exp())
        }
    };
    let text = link2(&joints);
    let s = Scenario::from_toml(&text.replace("STEP", "5e-4"), "motor").unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    for (k_, t) in rec.t.iter().enumerate() {
        let r = rec.joint(k_, 0);
        assert!(
            (r.current - current(*t)).abs() <= 1e-9 * u / k,
            "i at {t}: {}",
            r.current
        );
        assert!((r.tau - (1.0 + eps) * k * r.current).abs() <= 1e-12 * u);
    }
    let torque = |j: usize, t: f64| (j == 0).then(|| (1.0 + eps) * k * current(t));
    let deviation = |dt: f64| {
        let s = Scenario::from_toml(&text.replace("STEP", &format!("{dt:e}")), "motor").unwrap();
        let rec = sim::simulate(&s, None).recording;
        let reference = reference_with(&s, 1e-4, &torque);
        let mut worst = 0.0f64;
        for (k_, r) in reference.iter().enumerate() {
            for (j, q) in r.iter().enumerate() {
                worst = worst.max((rec.joint(k_, j).q - q).abs());
            }
        }
        worst
    };
    // A smooth torque: the error is below the first-order bound of the other tests and shrinks
    // at least linearly with the step.
    let (coarse, fine) = (deviation(1e-3), deviation(5e-4));
    eprintln!("motor: |q − q_RK4| {coarse:.2e} rad at 1e-3 s, {fine:.2e} at 5e-4 s");
    assert!(
        fine < 1e-4 && coarse > 1.8 * fine,
        "{coarse} at 1e-3 s, {fine} at 5e-4 s"
    );
}

/// A prescribed joint's motor supplies what the motion takes: only its torque-constant error
/// shows, `i = tau / ((1 + ε) K)`; a motor where none can be, or with impossible values, is
/// refused naming the field.
#[test]
fn a_prescribed_joints_motor_reads_through_its_true_torque_constant() {
    let joints = r#"
[[joint]]
id = 1
motion = { type = "fourier", base_frequency = 1.0, a = [1.5, -0.8], b = [0.3, 0.6] }
gain = 2.0
motor = { torque_constant_error = -0.1 }
[[joint]]
id = 2
free = true
"#;
    let text = link2(joints).replace("STEP", "5e-4");
    let s = Scenario::from_toml(&text, "prescribed motor").unwrap();
    let rec = sim::simulate(&s, None).recording;
    for k in 0..rec.samples() {
        let r = rec.joint(k, 0);
        assert!((r.current * 0.9 * 2.0 - r.tau).abs() <= 1e-12 * (1.0 + r.tau.abs()));
    }
    for (from, to, field) in [
        (
            "torque_constant_error = -0.1",
            "torque_constant_error = -1.5",
            "motor.torque_constant_error",
        ),
        (
            "torque_constant_error = -0.1",
            "current_bandwidth = 0.0",
            "motor.current_bandwidth",
        ),
        (
            "free = true\n",
            "free = true\nmotor = {}\n",
            "joint[1].motor",
        ),
        (
            "torque_constant_error = -0.1",
            "gear_efficiency = 1.2",
            "motor.gear_efficiency",
        ),
    ] {
        let err = Scenario::from_toml(&text.replace(from, to), "bad")
            .unwrap_err()
            .to_string();
        assert!(err.contains(field), "{err}");
    }
}

/// A lossy gear (`motor = { gear_efficiency = η }`): a torque-driven joint whose motor has no
/// current loop records its command as its current at the same sample (no delay), and the link
/// receives `η K_true i` while the motor drives it and `K_true i / η` while the load back-drives
/// the motor; a prescribed joint's motor gives `tau / η` driving and `η tau` back-driven (the
/// run's physics gates hold the arm to `RNEA = tau + tau_friction` with that `tau`). Both
/// directions of the power flow occur in the run.
#[test]
fn a_lossy_gear_passes_eta_of_the_motor_forward_and_asks_more_back_driven() {
    let (eta, k, eps) = (0.8, 0.5, 0.05);
    let joints = format!(
        r#"
[[joint]]
id = 1
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }}
gain = {k}
motor = {{ torque_constant_error = {eps}, gear_efficiency = {eta} }}
[[joint]]
id = 2
motion = {{ type = "fourier", base_frequency = 1.0, a = [0.8, -0.3], b = [0.2, 0.4] }}
motor = {{ gear_efficiency = 0.7 }}
"#
    );
    let text = link2(&joints).replace("STEP", "5e-4");
    let s = Scenario::from_toml(&text, "lossy gear").unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let command = |t: f64| match &s.drives[0].drive {
        sim::drive::Drive::Torque(sig) => sig.eval(t),
        _ => unreachable!(),
    };
    let mut flows = [[0usize; 2]; 2];
    for (n, t) in rec.t.iter().enumerate() {
        let r = rec.joint(n, 0);
        assert!(
            (r.current - command(*t) / k).abs() <= 1e-12 * 40.0,
            "i at {t}"
        );
        let motor = (1.0 + eps) * k * r.current;
        let driving = motor * r.qd >= 0.0;
        let through = if driving { eta * motor } else { motor / eta };
        assert!((r.tau - through).abs() <= 1e-12 * 40.0, "tau at {t}");
        flows[0][usize::from(driving)] += 1;
        let r = rec.joint(n, 1);
        let driving = r.tau * r.qd >= 0.0;
        let motor = if driving { r.tau / 0.7 } else { r.tau * 0.7 };
        assert!(
            (r.current - motor).abs() <= 1e-12 * (1.0 + motor.abs()),
            "i2 at {t}"
        );
        flows[1][usize::from(driving)] += 1;
    }
    eprintln!("lossy gear: samples [back-driven, driving] per joint {flows:?}");
    assert!(flows.iter().flatten().all(|n| *n > 5), "{flows:?}");
}
