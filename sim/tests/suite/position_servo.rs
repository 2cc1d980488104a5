//! The position servo (`sim::position_servo`) in the simulation: its command delay is a pure
//! time shift, the arm settles where the servo's spring (less its dead band) holds gravity, and
//! its torque never passes its limit.

use sim::scenario::Scenario;

/// `link2` (hanging straight down at `q = 0`, gravity in its plane) with joint 1 on a position
/// servo of reference `reference` and servo parameters `servo` (TOML inline-table fields), joint
/// 2 on a stiff servo holding 0; `end` seconds at 0.1 ms.
fn scenario(reference: &str, servo: &str, end: f64) -> Scenario {
    let text = format!(
        r#"
name = "servo_test"
model = "link2"
seed = 1
[time]
end = {end:?}
step = 1e-4
sample_period = 0.01
[[joint]]
id = 1
servo = {{ reference = {reference}, control = {{ type = "position_servo", {servo} }} }}
[[joint]]
id = 2
servo = {{ reference = {{ type = "hold" }}, control = {{ type = "position_servo", kp = 400.0, kd = 60.0 }} }}
"#
    );
    Scenario::from_toml(&text, "servo_test").unwrap()
}

/// A command given `δ` late is the same run as the command shifted by `δ` and no delay: the
/// polynomial `q_c(t) = 0.1 + 0.8 t − 0.5 t²` with `δ = 0.05` s against `q_c(t − 0.05)`.
#[test]
fn the_command_delay_is_a_time_shift() {
    let delta: f64 = 0.05;
    let c = [0.1, 0.8, -0.5];
    // q_c(t − δ) = c0 − c1 δ + c2 δ² + (c1 − 2 c2 δ) t + c2 t².
    let shifted = [
        c[0] - c[1] * delta + c[2] * delta * delta,
        c[1] - 2.0 * c[2] * delta,
        c[2],
    ];
    let poly = |k: [f64; 3]| {
        format!(
            "{{ type = \"polynomial\", coefficients = [{:?}, {:?}, {:?}] }}",
            k[0], k[1], k[2]
        )
    };
    let servo = "kp = 30.0, kd = 8.0, torque_limit = 40.0";
    let late = sim::simulate(
        &scenario(&poly(c), &format!("{servo}, delay = {delta:?}"), 1.5),
        None,
    );
    let shift = sim::simulate(&scenario(&poly(shifted), servo, 1.5), None);
    let (a, b) = (&late.recording, &shift.recording);
    let mut moved: f64 = 0.0;
    for i in 0..a.samples() {
        let (ja, jb) = (a.joint(i, 0), b.joint(i, 0));
        assert!(
            (ja.q - jb.q).abs() < 1e-9,
            "sample {i}: {} against {}",
            ja.q,
            jb.q
        );
        assert!((ja.tau - jb.tau).abs() < 1e-7, "sample {i}");
        moved = moved.max(ja.q.abs());
    }
    assert!(moved > 0.3, "the joint moved {moved} rad");
}

/// Held at a command of 0.6 rad, joint 1 settles where the servo's torque holds the arm against
/// gravity: `k_p · dz(0.6 − q₁) = G₁(q)` (`G` from the arm's inverse dynamics at rest), and the
/// recorded torque is the servo law's. With a dead band the joint sags further, by the band.
#[test]
fn the_arm_settles_where_the_servo_holds_gravity() {
    let chain = sim::model::reference::link2();
    let g = chain.gravity_vector();
    let mut sag = Vec::new();
    for band in [0.0, 0.02] {
        let servo = format!("kp = 60.0, kd = 40.0, dead_band = {band:?}");
        let run = sim::simulate(
            &scenario("{ type = \"hold\", position = 0.6 }", &servo, 20.0),
            None,
        );
        let rec = &run.recording;
        let last = rec.samples() - 1;
        let (j1, j2) = (rec.joint(last, 0), rec.joint(last, 1));
        assert!(
            j1.qd.abs() < 1e-6 && j2.qd.abs() < 1e-6,
            "not settled: {j1:?}"
        );
        let gravity = sim::dynamics::rnea(&chain, &[j1.q, j2.q], &[0.0; 2], &[0.0; 2], &g).tau;
        let error = 0.6 - j1.q;
        let servo_torque = 60.0 * (error.abs() - band).max(0.0).copysign(error);
        assert!(
            (servo_torque - gravity[0]).abs() < 1e-5 * gravity[0].abs(),
            "band {band}: servo {servo_torque} against gravity {}",
            gravity[0]
        );
        assert!((j1.tau - servo_torque).abs() < 1e-5 * servo_torque.abs());
        sag.push(error);
    }
    assert!(sag[0] > 0.05, "sag {}", sag[0]);
    // The band adds its width, less what the smaller gravity torque there gives back.
    assert!(sag[1] > sag[0] && sag[1] < sag[0] + 0.02, "{sag:?}");
}

/// A command far away: the torque rides its limit and never passes it.
#[test]
fn the_servo_torque_stays_within_its_limit() {
    let limit = 3.0;
    let run = sim::simulate(
        &scenario(
            "{ type = \"hold\", position = 1.2 }",
            &format!("kp = 200.0, kd = 5.0, torque_limit = {limit:?}"),
            1.0,
        ),
        None,
    );
    let rec = &run.recording;
    let peak = (0..rec.samples())
        .map(|i| rec.joint(i, 0).tau.abs())
        .fold(0.0, f64::max);
    assert!(peak <= limit + 1e-12, "peak {peak}");
    assert!(peak > limit - 1e-12, "never at the limit: {peak}");
}
