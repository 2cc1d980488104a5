//! Fitting by simulation (`validation::estimate::simulation_fit`): from servo arms simulated in
//! Rapier with known servo terms, driven by 50 Hz commands and read through a noisy encoder, the
//! fit recovers every stiffness, damping and command delay within 3 σ of the truth, on every draw.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

use sim::position_servo::PositionServo;
use sim::recording::JointColumn;
use sim::rollout::{Logged, Model, Windows};
use validation::estimate::simulation_fit::{Options, Term, TermKind, fit};

const COMMAND_PERIOD: f64 = 0.02;
const END: f64 = 6.0;
/// The encoder's noise (rad, white): what the fit's residuals carry beside its error.
const ENCODER: f64 = 5e-4;

/// `link2` with both joints on position servos `truth`, commanded at 50 Hz along a random motion
/// (seed `seed`), simulated at 1 ms (the fit's rollouts' step: the fit's σ does not hold the
/// integrator's bias, module docs of `simulation_fit`) and sampled at 100 Hz; its log with `q`
/// read through the encoder.
fn servo_log(seed: u64, truth: [PositionServo; 2]) -> Logged {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let commands = (END / COMMAND_PERIOD) as usize + 1;
    let mut text = format!(
        "name = \"fit\"\nmodel = \"link2\"\nseed = 1\n[time]\nend = {END}\nstep = 1e-3\n\
         sample_period = 0.01\n"
    );
    for (j, s) in truth.iter().enumerate() {
        let (a, b): (f64, f64) = (rng.random_range(-0.6..0.6), rng.random_range(-0.3..0.3));
        let w = 2.0 * std::f64::consts::PI * rng.random_range(0.3..0.8);
        let values: Vec<String> = (0..commands)
            .map(|k| {
                let t = k as f64 * COMMAND_PERIOD;
                let step = if (t / 0.7).floor() as i64 % 2 == 0 {
                    0.15
                } else {
                    -0.15
                };
                format!("{:?}", a * (w * t).sin() + b * (1.7 * w * t).cos() + step)
            })
            .collect();
        text += &format!(
            "[[joint]]\nid = {}\nservo = {{ reference = {{ type = \"held\", start = 0.0, \
             period = {COMMAND_PERIOD}, values = [{}] }}, control = {{ type = \"position_servo\", \
             kp = {:?}, kd = {:?}, delay = {:?} }} }}\n",
            j + 1,
            values.join(", "),
            s.kp,
            s.kd,
            s.delay
        );
    }
    let scenario = sim::scenario::Scenario::from_toml(&text, "fit").unwrap();
    let rec = sim::simulate(&scenario, None).recording;
    let noise = Normal::new(0.0, ENCODER).unwrap();
    let series = |c: JointColumn| (0..2).map(|j| rec.joint_series(c, j)).collect::<Vec<_>>();
    let q = series(JointColumn::Q)
        .into_iter()
        .map(|q| q.into_iter().map(|x| x + noise.sample(&mut rng)).collect())
        .collect();
    Logged {
        t: rec.t.clone(),
        q,
        qd: series(JointColumn::Qd),
        tau: series(JointColumn::Tau),
        q_cmd: (0..2)
            .map(|j| Some((0..rec.samples()).map(|s| rec.joint(s, j).q_cmd).collect()))
            .collect(),
    }
}

fn servo(kp: f64, kd: f64, delay: f64) -> PositionServo {
    PositionServo {
        kp,
        kd,
        torque_limit: f64::INFINITY,
        delay,
        dead_band: 0.0,
    }
}

#[test]
fn a_simulated_servo_arms_terms_are_recovered_within_three_sigma_on_every_draw() {
    let kinds = [TermKind::Kp, TermKind::Kd, TermKind::Delay];
    let terms: Vec<Term> = (1..=2u8)
        .flat_map(|joint| kinds.map(|kind| Term { joint, kind }))
        .collect();
    for seed in 0..3u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + seed);
        let truth = [
            servo(
                rng.random_range(20.0..60.0),
                rng.random_range(1.0..3.0),
                rng.random_range(0.02..0.08),
            ),
            servo(
                rng.random_range(8.0..25.0),
                rng.random_range(0.3..1.0),
                rng.random_range(0.02..0.08),
            ),
        ];
        let log = servo_log(seed, truth);
        // The fit starts far off: stiffness 60 % high, damping halved, no delay.
        let start = Model {
            servos: truth
                .iter()
                .map(|s| Some(servo(1.6 * s.kp, 0.5 * s.kd, 0.0)))
                .collect(),
            ..Model::from(sim::model::reference::link2())
        };
        let options = Options {
            windows: Windows {
                horizon: 1.0,
                spacing: 0.5,
            },
            ..Options::default()
        };
        let f = fit(&start, &terms, std::slice::from_ref(&log), options).unwrap();
        assert!(f.cost < 1e-2 * f.cost_start, "draw {seed}: {f:?}");
        assert_eq!(f.steps_per_sample, 10, "draw {seed}: the log's step");
        // What is left is the encoder's noise: at every sample, and in each window's start
        // state, which the servo damps out over the window: within twice its σ.
        assert!(f.rms < 2.0 * ENCODER, "draw {seed}: rms {}", f.rms);
        for ((t, v), s) in f.terms.iter().zip(&f.values).zip(&f.std) {
            let servo = truth[t.joint as usize - 1];
            let true_value = match t.kind {
                TermKind::Kp => servo.kp,
                TermKind::Kd => servo.kd,
                _ => servo.delay,
            };
            assert!(
                s.is_finite() && *s > 0.0 && (v - true_value).abs() <= 3.0 * s,
                "draw {seed}, {}: {v} ± {s} against {true_value}",
                t.name()
            );
        }
    }
}
