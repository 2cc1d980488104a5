//! LuGre friction in the generator (`friction = { type = "lugre", … }`): the recorded
//! `tau_friction` and bristle state `bristle_z` of a torque-driven `link2` joint are reproduced
//! by an independent integration of the LuGre bristle equation — classical RK4 on the recorded
//! velocities, linearly interpolated between samples, 50 substeps per sample — where the
//! simulator advances the state exactly over each step at the step's starting rate.

use sim::dataset::reader::ParquetColumns;
use sim::scenario::Scenario;

const SCENARIO: &str = r#"
name = "link2_lugre"
model = "link2"
seed = 1

[time]
end = 6.0
step = 5e-4
sample_period = 5e-4

[[joint]]
id = 1
torque = { type = "multisine", base_frequency = 0.25, harmonics = [1, 3], amplitudes = [40.0, 8.0] }
friction = { type = "lugre", coulomb = 2.0, static_friction = 3.0, stribeck_velocity = 0.1, bristle_stiffness = 1e4, bristle_damping = 50.0, viscous = 0.5 }

[[joint]]
id = 2
torque = { type = "multisine", base_frequency = 0.5, harmonics = [1], amplitudes = [5.0] }
damping = 1.0
"#;

/// `(F_c, F_s, v_s, σ0, σ1, σ2)` of the scenario's joint 1, restated here.
const P: (f64, f64, f64, f64, f64, f64) = (2.0, 3.0, 0.1, 1e4, 50.0, 0.5);

fn zdot(z: f64, v: f64) -> f64 {
    let (fc, fs, vs, s0, _, _) = P;
    let g = fc + (fs - fc) * (-(v / vs) * (v / vs)).exp();
    v - s0 * v.abs() * z / g
}

/// The bristle state at every sample, by RK4 on `q̇` interpolated linearly between samples.
fn independent(t: &[f64], qd: &[f64]) -> Vec<f64> {
    let mut z = vec![0.0; t.len()];
    let n = 50;
    for k in 1..t.len() {
        let h = (t[k] - t[k - 1]) / n as f64;
        let v = |s: f64| qd[k - 1] + (qd[k] - qd[k - 1]) * s;
        let mut y = z[k - 1];
        for i in 0..n {
            let s0 = i as f64 / n as f64;
            let (sm, s1) = (s0 + 0.5 / n as f64, s0 + 1.0 / n as f64);
            let k1 = zdot(y, v(s0));
            let k2 = zdot(y + 0.5 * h * k1, v(sm));
            let k3 = zdot(y + 0.5 * h * k2, v(sm));
            let k4 = zdot(y + h * k3, v(s1));
            y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        }
        z[k] = y;
    }
    z
}

#[test]
fn lugre_friction_is_reproduced_by_an_independent_integration_of_its_bristle_state() {
    let scenario = Scenario::from_toml(SCENARIO, "link2_lugre").unwrap();
    let run = sim::simulate(&scenario, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let nj = rec.joint_ids.len();
    let joint1: Vec<_> = rec.joints.iter().step_by(nj).collect();
    let qd: Vec<f64> = joint1.iter().map(|r| r.qd).collect();
    let z = independent(&rec.t, &qd);
    let (_, _, _, s0, s1, s2) = P;
    let force: Vec<f64> = (0..z.len())
        .map(|k| -(s0 * z[k] + s1 * zdot(z[k], qd[k]) + s2 * qd[k]))
        .collect();
    let peak = force.iter().fold(0.0f64, |m, f| m.max(f.abs()));
    let z_peak = z.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let worst = (0..z.len())
        .map(|k| (joint1[k].tau_friction - force[k]).abs())
        .fold(0.0, f64::max);
    let worst_z = (0..z.len())
        .map(|k| (joint1[k].bristle_z - z[k]).abs())
        .fold(0.0, f64::max);
    assert!(
        worst <= 0.02 * peak,
        "tau_friction off by {worst} of peak {peak}"
    );
    assert!(
        worst_z <= 0.02 * z_peak,
        "bristle_z off by {worst_z} of {z_peak}"
    );
    // The motion reverses and sticks: both sliding directions and the pre-sliding regime occur.
    assert!(qd.iter().any(|v| *v > 0.2) && qd.iter().any(|v| *v < -0.2));
    assert!(
        peak > P.1,
        "the breakaway level was never reached: peak {peak}"
    );

    // The state is written beside the other joint columns, and only where a model has one.
    let dir = std::env::temp_dir().join(format!("sim-lugre-{}", std::process::id()));
    sim::dataset::write_run(&dir, &run.recording, &run.manifest, true).unwrap();
    let table = ParquetColumns::read(&dir.join("joints.parquet")).unwrap();
    let written = table.f64("bristle_z").unwrap();
    assert_eq!(written[0..nj * 3].len(), nj * 3);
    assert_eq!(written[nj * 100], joint1[100].bristle_z);
    assert_eq!(written[nj * 100 + 1], 0.0, "joint 2 has no friction state");
    std::fs::remove_dir_all(&dir).unwrap();
    let rail = Scenario::from_path(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/mim_cyl2.toml"),
    )
    .unwrap();
    assert!(!sim::simulate(&rail, None).recording.friction_state);
}

#[test]
fn a_lugre_section_with_impossible_parameters_is_refused_naming_the_field() {
    for (bad, field) in [
        ("static_friction = 3.0", "static_friction = 1.0"),
        ("bristle_stiffness = 1e4", "bristle_stiffness = 0.0"),
        ("bristle_damping = 50.0", "bristle_damping = -5.0"),
    ] {
        let text = SCENARIO.replace(bad, field);
        let err = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
        let name = field.split(' ').next().unwrap();
        assert!(err.contains(name), "{err}");
    }
    let text = SCENARIO.replace("viscous = 0.5 }", "viscous = 0.5, colour = 1 }");
    let err = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
    assert!(err.contains("colour"), "{err}");
}
