//! Elastic joints (`spring = { stiffness, damping }` beside `rotor`, `sim::elastic`): Rapier's
//! link side with the rotors integrated beside it against a classical Runge–Kutta (RK4, step
//! 1e-4 s) of the whole flexible-joint model, `M(q) q̈ + h = τ_s`, `J θ̈ = u − τ_s`, solved here
//! apart from the simulator (the inverse dynamics for `M` and `h`, nalgebra's LU); a stiff
//! spring converges to the rigid gear (`rotor` alone); and the scenario errors name the field.

use nalgebra::{DMatrix, DVector, Vector3};
use sim::drive::Drive;
use sim::dynamics::rnea;
use sim::scenario::Scenario;

/// A torque-driven `link2` over 1 s at 100 Hz, its rotors behind springs of stiffness `k`
/// (N·m/rad, damping 0.5 N·m·s/rad), integrator step `dt`; `k = None`: rigid gears.
fn link2(k: Option<f64>, dt: f64) -> Scenario {
    link2_with_play(k, 0.0, dt)
}

/// [`link2`] with gears of backlash `play` (rad).
fn link2_with_play(k: Option<f64>, play: f64, dt: f64) -> Scenario {
    let spring = |k: Option<f64>| {
        k.map_or(String::new(), |k| {
            format!("spring = {{ stiffness = {k:e}, damping = 0.5, backlash = {play:e} }}\n")
        })
    };
    let text = format!(
        r#"name = "elastic_link2"
model = "link2"
[time]
end = 1.0
step = {dt:e}
sample_period = 0.01
[[joint]]
id = 1
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }}
rotor = {{ inertia = 2e-4, gear_ratio = 100.0 }}
gain = 0.5
{s}
[[joint]]
id = 2
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [2, 5], amplitudes = [4.0, 1.0] }}
rotor = {{ inertia = 5e-5, gear_ratio = 50.0 }}
{s}
"#,
        s = spring(k)
    );
    Scenario::from_toml(&text, "elastic link2").unwrap()
}

const REFLECTED: [f64; 2] = [2e-4 * 100.0 * 100.0, 5e-5 * 50.0 * 50.0];

/// RK4 of `(q, q̇, θ, θ̇)` from the simulator's initial state (rotors preloaded with the static
/// load), sampled at the scenario's sample times: `q` per sample.
fn reference(s: &Scenario, k: f64, d: f64, h: f64) -> Vec<Vec<f64>> {
    reference_with_play(s, k, d, 0.0, h)
}

/// [`reference`] for gears with a play of total width `play` (rad): the dead zone written out
/// here, the spring and damper acting only while `|θ − q| > play / 2`.
fn reference_with_play(s: &Scenario, k: f64, d: f64, play: f64, h: f64) -> Vec<Vec<f64>> {
    let beta = play / 2.0;
    let u = |j: usize, t: f64| match &s.drives[j].drive {
        Drive::Torque(sig) => sig.eval(t),
        _ => unreachable!("torque-driven"),
    };
    // x = (q1, q2, q̇1, q̇2, θ1, θ2, θ̇1, θ̇2).
    let derivative = |t: f64, x: &[f64]| -> Vec<f64> {
        let (q, qd, th, thd) = (&x[0..2], &x[2..4], &x[4..6], &x[6..8]);
        let spring: Vec<f64> = (0..2)
            .map(|j| {
                let delta = th[j] - q[j];
                if delta > beta {
                    k * (delta - beta) + d * (thd[j] - qd[j])
                } else if delta < -beta {
                    k * (delta + beta) + d * (thd[j] - qd[j])
                } else {
                    0.0
                }
            })
            .collect();
        let bias = rnea(&s.chain, q, qd, &[0.0; 2], &sim::gravity_vector()).tau;
        let m = DMatrix::from_fn(2, 2, |r, c| {
            let mut unit = [0.0; 2];
            unit[c] = 1.0;
            rnea(&s.chain, q, &[0.0; 2], &unit, &Vector3::zeros()).tau[r]
        });
        let rhs = DVector::from_fn(2, |j, _| spring[j] - bias[j]);
        let qdd = m.lu().solve(&rhs).expect("invertible");
        let thdd: Vec<f64> = (0..2)
            .map(|j| (u(j, t) - spring[j]) / REFLECTED[j])
            .collect();
        vec![
            qd[0], qd[1], qdd[0], qdd[1], thd[0], thd[1], thdd[0], thdd[1],
        ]
    };
    let load = rnea(
        &s.chain,
        &[0.0; 2],
        &[0.0; 2],
        &[0.0; 2],
        &sim::gravity_vector(),
    )
    .tau;
    let preload = |l: f64| l / k + if l < 0.0 { -beta } else { beta };
    let mut x = vec![
        0.0,
        0.0,
        0.0,
        0.0,
        preload(load[0]),
        preload(load[1]),
        0.0,
        0.0,
    ];
    let steps = (s.file.time.sample_period / h).round() as usize;
    let (mut t, mut out) = (0.0, vec![x[0..2].to_vec()]);
    for _ in 1..s.samples {
        for _ in 0..steps {
            let add = |a: &[f64], b: &[f64], c: f64| -> Vec<f64> {
                a.iter().zip(b).map(|(p, q)| p + c * q).collect()
            };
            let k1 = derivative(t, &x);
            let k2 = derivative(t + h / 2.0, &add(&x, &k1, h / 2.0));
            let k3 = derivative(t + h / 2.0, &add(&x, &k2, h / 2.0));
            let k4 = derivative(t + h, &add(&x, &k3, h));
            for i in 0..x.len() {
                x[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            t += h;
        }
        out.push(x[0..2].to_vec());
    }
    out
}

/// Largest `|q_a − q_b|` over the samples and both joints.
fn apart(a: &sim::recording::Recording, b: &[Vec<f64>]) -> f64 {
    let mut worst = 0.0f64;
    for (k, r) in b.iter().enumerate() {
        for (j, q) in r.iter().enumerate() {
            worst = worst.max((a.joint(k, j).q - q).abs());
        }
    }
    worst
}

fn q_of(rec: &sim::recording::Recording) -> Vec<Vec<f64>> {
    (0..rec.samples())
        .map(|k| (0..2).map(|j| rec.joint(k, j).q).collect())
        .collect()
}

#[test]
fn an_elastic_arm_follows_the_flexible_joint_model_at_first_order() {
    let k = 200.0;
    let reference = reference(&link2(Some(k), 5e-4), k, 0.5, 1e-4);
    let deviation = |dt: f64| {
        let run = sim::simulate(&link2(Some(k), dt), None);
        assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
        apart(&run.recording, &reference)
    };
    let (coarse, fine) = (deviation(1e-3), deviation(5e-4));
    let order = (coarse / fine).log2();
    eprintln!("elastic link2: |q − q_RK4| {coarse:.2e} rad at 1e-3 s, {fine:.2e} at 5e-4 s");
    assert!((0.8..1.3).contains(&order), "order {order}");
    assert!(fine < 5e-3, "{fine} rad at 5e-4 s");
    // The spring is felt: a rigid gear moves the arm differently.
    let rigid = sim::simulate(&link2(None, 5e-4), None).recording;
    assert!(apart(&rigid, &reference) > 10.0 * fine);
}

#[test]
fn a_stiff_spring_converges_to_the_rigid_gear_and_the_records_say_what_reaches_the_link() {
    let rigid = q_of(&sim::simulate(&link2(None, 5e-4), None).recording);
    let gaps: Vec<f64> = [1e3, 1e4, 1e5]
        .iter()
        .map(|&k| {
            let run = sim::simulate(&link2(Some(k), 5e-4), None);
            assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
            let rec = &run.recording;
            assert!(rec.elastic);
            // tau is the spring's torque at the sample's state.
            for s in 0..rec.samples() {
                for j in 0..2 {
                    let r = rec.joint(s, j);
                    let spring = k * (r.q_motor - r.q) + 0.5 * (r.qd_motor - r.qd);
                    assert!((r.tau - spring).abs() <= 1e-9 * (1.0 + spring.abs()));
                }
            }
            apart(rec, &rigid)
        })
        .collect();
    eprintln!("elastic vs rigid gear: {gaps:?} rad at k = 1e3, 1e4, 1e5 N·m/rad");
    // The gap falls as 1/k (1.1e-2, 8.8e-4 rad) until the two first-order integrators' own
    // differences (each within 2e-3 rad of the RK4 at this step, `trajectory.rs`) take over.
    assert!(
        gaps[1] < gaps[0] / 5.0 && gaps[2] < gaps[1] / 2.0,
        "{gaps:?}"
    );
    assert!(gaps[2] < 5e-4, "{gaps:?}");
}

/// Backlash (`spring = { …, backlash }`): the arm follows an RK4 of the dead-zone model at
/// first order, and the play is visible in the records at its stated width — no torque reaches
/// the link while `|q_motor − q| ≤ b/2`, and the motors cross the whole play as loads reverse.
#[test]
fn backlash_is_a_dead_zone_of_the_stated_width() {
    let (k, play) = (2e3, 0.02);
    let reference = reference_with_play(&link2_with_play(Some(k), play, 5e-4), k, 0.5, play, 1e-4);
    let deviation = |dt: f64| {
        let run = sim::simulate(&link2_with_play(Some(k), play, dt), None);
        assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
        let gap = apart(&run.recording, &reference);
        (run.recording, gap)
    };
    let ((_, coarse), (rec, fine)) = (deviation(2.5e-4), deviation(1.25e-4));
    let tight = apart(
        &sim::simulate(&link2(Some(k), 1.25e-4), None).recording,
        &reference,
    );
    eprintln!(
        "backlash {play} rad: |q − q_RK4| {coarse:.2e} rad at 2.5e-4 s, {fine:.2e} at 1.25e-4 s; \
         without the play {tight:.2e}"
    );
    let order = (coarse / fine).log2();
    assert!((0.7..1.4).contains(&order), "order {order}");
    assert!(fine < 2.5e-3 && tight > 3.0 * fine, "{fine} {tight}");
    let beta = play / 2.0;
    let (mut lowest, mut highest, mut free) = (0.0f64, 0.0f64, 0);
    for s in 0..rec.samples() {
        for j in 0..2 {
            let r = rec.joint(s, j);
            let delta = r.q_motor - r.q;
            if delta.abs() <= beta {
                assert_eq!(
                    r.tau, 0.0,
                    "sample {s}, joint {j}: δ = {delta} inside the play"
                );
                (lowest, highest, free) = (lowest.min(delta), highest.max(delta), free + 1);
            } else {
                let spring = k * (delta - delta.signum() * beta) + 0.5 * (r.qd_motor - r.qd);
                assert!((r.tau - spring).abs() <= 1e-9 * (1.0 + spring.abs()));
            }
        }
    }
    eprintln!("inside the play: {free} samples, δ from {lowest:.4} to {highest:.4} rad");
    assert!(
        free > 0 && lowest < -0.8 * beta && highest > 0.8 * beta,
        "{free} {lowest} {highest}"
    );
}

#[test]
fn a_spring_needs_a_rotor_and_an_actuated_joint() {
    let base =
        "name = \"s\"\nmodel = \"link2\"\n[time]\nend = 0.1\nstep = 5e-4\nsample_period = 0.01\n";
    let no_rotor = format!(
        "{base}[[joint]]\nid = 1\ntorque = {{ type = \"constant\", value = 1.0 }}\nspring = {{ stiffness = 100.0 }}\n"
    );
    let e = Scenario::from_toml(&no_rotor, "no rotor")
        .unwrap_err()
        .to_string();
    assert!(e.contains("joint[0].spring") && e.contains("rotor"), "{e}");
    let prescribed = format!(
        "{base}[[joint]]\nid = 1\nmotion = {{ type = \"hold\" }}\nrotor = {{ inertia = 1e-4, gear_ratio = 10.0 }}\nspring = {{ stiffness = 100.0 }}\n"
    );
    let e = Scenario::from_toml(&prescribed, "prescribed")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("spring") && e.contains("torque-driven or servo"),
        "{e}"
    );
    let negative = format!(
        "{base}[[joint]]\nid = 1\ntorque = {{ type = \"constant\", value = 1.0 }}\nrotor = {{ inertia = 1e-4, gear_ratio = 10.0 }}\nspring = {{ stiffness = -1.0 }}\n"
    );
    let e = Scenario::from_toml(&negative, "negative")
        .unwrap_err()
        .to_string();
    assert!(e.contains("spring.stiffness"), "{e}");
    let play = negative.replace("stiffness = -1.0", "stiffness = 1.0, backlash = -0.1");
    let e = Scenario::from_toml(&play, "play").unwrap_err().to_string();
    assert!(e.contains("spring.backlash"), "{e}");
}
