//! Friction that depends on more than the joint's rate: Coulomb friction proportional to the
//! joint's constraint load (`load_friction`, `sim::friction::LoadFriction`) against the load
//! Newton's law gives from the recorded centroid accelerations and the links' masses, and the
//! thermal drift of the friction (`friction_drift`, `sim::friction::Drift`) against its
//! closed form.

use nalgebra::Vector3;
use sim::scenario::Scenario;

fn link2(joints: &str) -> Scenario {
    let text = format!(
        "name = \"friction_load\"\nmodel = \"link2\"\n[time]\nend = 1.0\nstep = 5e-4\nsample_period = 0.01\n{joints}"
    );
    Scenario::from_toml(&text, "friction_load").unwrap()
}

/// A prescribed joint's friction scales as `1 + Δ (1 − e^{−t/T})` of its model's, exactly.
#[test]
fn friction_drifts_as_the_joint_warms_in_closed_form() {
    let (fc, fv, eps, change, tc) = (1.5, 0.4, 0.02, -0.3, 0.4);
    let s = link2(&format!(
        r#"
[[joint]]
id = 1
motion = {{ type = "fourier", base_frequency = 1.0, a = [1.5, -0.8], b = [0.3, 0.6] }}
friction = {{ type = "coulomb_viscous", coulomb = {fc}, viscous = {fv}, smoothing = {eps} }}
friction_drift = {{ change = {change}, time_constant = {tc} }}
[[joint]]
id = 2
motion = {{ type = "hold" }}
"#
    ));
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    for (k, t) in rec.t.iter().enumerate() {
        let r = rec.joint(k, 0);
        let cold = fc * (r.qd / eps).tanh() + fv * r.qd;
        let expected = -cold * (1.0 + change * (1.0 - (-t / tc).exp()));
        assert!(
            (r.tau_friction - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
            "t = {t}: {} vs {expected}",
            r.tau_friction
        );
    }
}

/// The constraint load of each revolute joint, `|F_k|`, from Newton's law on the recorded
/// centroid accelerations: `F_2 = m_2 (a_2 − g)`, `F_1 = m_1 (a_1 − g) + F_2`.
fn newton_loads(s: &Scenario, rec: &sim::recording::Recording, sample: usize) -> [f64; 2] {
    let g: Vector3<f64> = sim::gravity_vector();
    let m = |k: usize| s.chain.links[k].body.mass;
    let f2 = m(1) * (rec.body(sample, 2).acc - g);
    let f1 = m(0) * (rec.body(sample, 1).acc - g) + f2;
    [f1.norm(), f2.norm()]
}

/// Load-proportional Coulomb friction on a torque-driven and a free joint: the recorded
/// friction is `−c N tanh(q̇/ε)` with `N` Newton's constraint force at the sample, within 0.5 % of
/// its peak (measured: 1e-4; the simulator takes the load one step late, `sim::friction::LoadFriction`); it
/// drifts with the joint's temperature like the rest of its friction.
#[test]
fn load_friction_follows_the_constraint_force() {
    let (c, eps) = (0.02, 0.05);
    let s = link2(&format!(
        r#"
[[joint]]
id = 1
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }}
load_friction = {{ coefficient = {c}, smoothing = {eps} }}
[[joint]]
id = 2
free = true
load_friction = {{ coefficient = {c}, smoothing = {eps} }}
friction_drift = {{ change = 0.5, time_constant = 0.3 }}
"#
    ));
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let mut worst = [0.0f64; 2];
    let mut peak = [0.0f64; 2];
    for (k, t) in rec.t.iter().enumerate() {
        let loads = newton_loads(&s, rec, k);
        for j in 0..2 {
            let r = rec.joint(k, j);
            let warm = if j == 1 {
                1.0 + 0.5 * (1.0 - (-t / 0.3).exp())
            } else {
                1.0
            };
            let expected = -c * loads[j] * (r.qd / eps).tanh() * warm;
            worst[j] = worst[j].max((r.tau_friction - expected).abs());
            peak[j] = peak[j].max(expected.abs());
        }
    }
    eprintln!("load friction: peaks {peak:?} N·m, worst deviations {worst:?} N·m");
    for j in 0..2 {
        assert!(
            peak[j] > 0.05,
            "joint {j}: the friction is felt ({})",
            peak[j]
        );
        assert!(
            worst[j] <= 5e-3 * peak[j],
            "joint {j}: {} of {}",
            worst[j],
            peak[j]
        );
    }
}

/// Bad sections are refused naming the field.
#[test]
fn bad_load_friction_and_drift_name_the_field() {
    let base = "[[joint]]\nid = 1\ntorque = { type = \"constant\", value = 1.0 }\n";
    for (extra, field) in [
        (
            "load_friction = { coefficient = -0.1, smoothing = 0.1 }",
            "load_friction.coefficient",
        ),
        (
            "load_friction = { coefficient = 0.1, smoothing = 0.0 }",
            "load_friction.smoothing",
        ),
        (
            "friction_drift = { change = -1.5, time_constant = 1.0 }",
            "friction_drift.change",
        ),
        (
            "friction_drift = { change = 0.1, time_constant = -1.0 }",
            "friction_drift.time_constant",
        ),
    ] {
        let text = format!(
            "name = \"bad\"\nmodel = \"link2\"\n[time]\nend = 0.1\nstep = 5e-4\nsample_period = 0.01\n{base}{extra}\n"
        );
        let e = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}
