//! Rollouts of servo arms (`sim::rollout` with position servos): a model driven through its
//! position servos by a log's own commands (`q_cmd`) from the log's recorded states reproduces the
//! log when it is the model that made it, and drifts when its servo is not the one that drove the
//! arm. Drawn over random arms of `scenarios/population_random.toml`, each joint on a position
//! servo (delay, dead band, torque limit) commanded at 50 Hz from the arm's drawn motion, as a
//! policy commands a LeRobot arm.

use std::path::Path;

use sim::drive::{Control, Drive, Servo};
use sim::model::Chain;
use sim::position_servo::PositionServo;
use sim::profile::{Held, Profile};
use sim::recording::JointColumn;
use sim::rollout::{Logged, Model, RolloutError, Windows, fidelity, steps_per_sample};
use sim::scenario::{JointSection, Scenario};

/// Arms drawn.
const ARMS: usize = 4;
/// The log's sample interval (s).
const PERIOD: f64 = 2e-3;
/// The command stream's interval (s): a 50 Hz policy.
const COMMAND_PERIOD: f64 = 0.02;

/// Joint `j`'s servo on an arm whose joint-space inertia at the start is `inertia` (kg·m²):
/// a 3 Hz loop at damping ratio 0.1, a torque limit, a 30 ms delay and a 1 mrad dead band.
fn servo(inertia: f64) -> PositionServo {
    let omega = 2.0 * std::f64::consts::PI * 3.0;
    PositionServo {
        kp: inertia * omega * omega,
        kd: 2.0 * 0.1 * inertia * omega,
        torque_limit: 40.0 * inertia * omega * omega * 0.05,
        delay: 0.03,
        dead_band: 1e-3,
    }
}

/// Random arm `k` with its servos, its run of `end` seconds sampled at [`PERIOD`], integrated at
/// the shortest step a rollout of it takes along the motion (so that a rollout at that step
/// repeats the run's steps), and that step (s).
fn run(k: usize, end: f64) -> (Model, Logged, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml");
    let arm = Scenario::from_path(&path)
        .unwrap()
        .population_arm(k)
        .unwrap();
    // No joint friction or damping: the servo alone sets the rollout's step.
    let mut chain: Chain = arm.chain.clone();
    for link in &mut chain.links {
        (link.joint.damping, link.joint.friction) = (0.0, None);
    }
    let nj = chain.links.len();
    let profiles: Vec<Profile> = (arm.drives.iter())
        .map(|d| match &d.drive {
            Drive::Motion(p) => p.clone(),
            _ => panic!("a drawn motion"),
        })
        .collect();
    let q0: Vec<f64> = profiles.iter().map(|p| p.eval(0.0).q).collect();
    let zero = vec![0.0; nj];
    let inertia = |j: usize| {
        let mut unit = zero.clone();
        unit[j] = 1.0;
        sim::dynamics::rnea(&chain, &q0, &zero, &unit, &nalgebra::Vector3::zeros()).tau[j]
    };
    let model = Model {
        servos: (0..nj).map(|j| Some(servo(inertia(j)))).collect(),
        ..Model::from(chain.clone())
    };
    let steps = (0..=10)
        .map(|s| {
            let t = end * f64::from(s) / 10.0;
            let q: Vec<f64> = profiles.iter().map(|p| p.eval(t).q).collect();
            steps_per_sample(&model, &q, PERIOD)
        })
        .max()
        .unwrap();
    let mut f = arm.file.clone();
    f.time.end = end;
    f.time.step = PERIOD / steps as f64;
    f.time.sample_period = PERIOD;
    f.population = None;
    let commands = (end / COMMAND_PERIOD).ceil() as usize + 1;
    f.joint = (0..nj)
        .map(|j| JointSection {
            servo: Some(Servo {
                reference: Profile::Held(Held {
                    start: 0.0,
                    period: COMMAND_PERIOD,
                    values: (0..commands)
                        .map(|c| profiles[j].eval(c as f64 * COMMAND_PERIOD).q)
                        .collect(),
                }),
                control: Control::PositionServo(model.servo(j).copied().unwrap()),
            }),
            ..JointSection::new(j as u8 + 1)
        })
        .collect();
    let scenario = Scenario::from_file_with_model(f, "servo arm", &chain).unwrap();
    let rec = sim::simulate(&scenario, None).recording;
    assert!(rec.commanded, "a servo run records its commands");
    let series = |c: JointColumn| (0..nj).map(|j| rec.joint_series(c, j)).collect();
    let q_cmd = (0..nj)
        .map(|j| Some((0..rec.samples()).map(|s| rec.joint(s, j).q_cmd).collect()))
        .collect();
    let log = Logged {
        t: rec.t.clone(),
        q: series(JointColumn::Q),
        qd: series(JointColumn::Qd),
        tau: series(JointColumn::Tau),
        q_cmd,
    };
    (model, log, scenario.dt())
}

#[test]
fn the_servo_model_that_made_a_log_rolls_out_onto_it_and_a_wrong_servo_drifts() {
    for k in 0..ARMS {
        let (model, log, step) = run(k, 2.4);
        let own = fidelity(&model, &log, Windows::SERVO, 0.2).unwrap();
        assert_eq!(own.per_window.len(), 3, "arm {k}");
        assert_eq!(own.blown_up, 0, "arm {k}");
        // The command holds at 50 Hz on the log's 2 ms grid: the log's `q_cmd` is the stream
        // as the servo received it, and where a window takes the run's step it repeats the
        // run's steps (elsewhere the two integrations differ by the step's error).
        let exact = (own.per_window.iter()).filter(|w| (w.step - step).abs() < 1e-15 * step);
        assert!(exact.clone().count() >= 2, "arm {k}: {own:?}");
        for w in exact {
            assert!(w.horizon.iter().all(|e| *e < 1e-9), "arm {k}: {w:?}");
        }
        assert!(own.mean_horizon < 1e-6, "arm {k}: {own:?}");
        let moved = (log.q.iter())
            .map(|q| q.iter().fold(0.0f64, |m, x| m.max((x - q[0]).abs())))
            .fold(0.0, f64::max);
        assert!(moved > 0.05, "arm {k} moved {moved} rad");
        for (what, change) in [
            (
                "kp 20 % low",
                (|s: &mut PositionServo| s.kp *= 0.8) as fn(&mut PositionServo),
            ),
            ("no delay", |s| s.delay = 0.0),
            ("kd doubled", |s| s.kd *= 2.0),
        ] {
            let mut wrong = model.clone();
            wrong.servos.iter_mut().flatten().for_each(change);
            let other = fidelity(&wrong, &log, Windows::SERVO, 0.2).unwrap();
            assert!(
                other.mean_horizon > 1e-5 && other.mean_horizon > 1e4 * own.mean_horizon,
                "arm {k}, {what}: {} against {}",
                other.mean_horizon,
                own.mean_horizon
            );
        }
    }
}

#[test]
fn a_servo_joint_without_commands_is_driven_by_its_torque_and_needs_one() {
    let (model, mut log, _) = run(0, 1.2);
    log.q_cmd[1] = None;
    assert!(sim::rollout::servo_driven(&model, &log, 0).is_some());
    assert!(sim::rollout::servo_driven(&model, &log, 1).is_none());
    // An idle servo asks for no step: a stiff one on joint 2 leaves the step as it was, and
    // asks for shorter steps once joint 2 has its commands.
    let mut stiff = model.clone();
    let servo = stiff.servos[1].as_mut().unwrap();
    servo.kd *= 1e3;
    let mut commanded = log.clone();
    commanded.q_cmd[1] = Some(commanded.q[1].clone());
    for start in [0, 100, 200] {
        let steps = sim::rollout::window_steps(&model, &log, start);
        assert_eq!(steps, sim::rollout::window_steps(&stiff, &log, start));
        assert!(steps < sim::rollout::window_steps(&stiff, &commanded, start));
    }
    // Joint 2 rolls out under the torque its servo applied (open loop: it drifts).
    let f = fidelity(&model, &log, Windows::SERVO, 0.0).unwrap();
    assert_eq!(f.blown_up, 0);
    assert!(f.horizon[1] > 1e-3 && f.horizon[0] < f.horizon[1], "{f:?}");
    log.tau[1].iter_mut().for_each(|t| *t = f64::NAN);
    let e = fidelity(&model, &log, Windows::SERVO, 0.0).unwrap_err();
    assert!(matches!(e, RolloutError::Torque { joint: 2 }), "{e}");
    assert!(e.to_string().contains("q_cmd"), "{e}");
}
