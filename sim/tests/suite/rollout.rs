//! Rollouts (`sim::rollout`): a model driven by a log's own torques from its recorded states
//! reproduces the log when it is the model that made it, and drifts measurably when it is not.
//! Drawn over random arms of `scenarios/population_random.toml`, each servoed along its drawn
//! motion with joint damping and Coulomb friction, so the torques are those of a moving arm.

use std::path::Path;

use sim::drive::{Control, Drive, Servo};
use sim::friction::Friction;
use sim::model::Chain;
use sim::recording::JointColumn;
use sim::rollout::{Logged, Model, Windows, fidelity};
use sim::scenario::{JointSection, Scenario};

/// Arms drawn.
const ARMS: usize = 6;

/// Random arm `k`, with damping and Coulomb friction on every joint if `friction` (else none),
/// and its run
/// of `end` seconds at 1 kHz (one integrator step per sample: the logged torque is the one
/// applied over the whole sample), every joint servoed (computed torque) along the arm's drawn
/// motion.
fn run(k: usize, end: f64, friction: bool) -> (Chain, Logged) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml");
    let arm = Scenario::from_path(&path)
        .unwrap()
        .population_arm(k)
        .unwrap();
    let mut chain = arm.chain.clone();
    for (j, link) in chain.links.iter_mut().enumerate() {
        link.joint.damping = if friction { 0.02 * (j + 1) as f64 } else { 0.0 };
        link.joint.friction = friction.then_some(Friction::CoulombViscous {
            coulomb: 0.05,
            viscous: 0.0,
            smoothing: 0.01,
        });
    }
    let mut f = arm.file.clone();
    f.time.end = end;
    f.time.step = 1e-3;
    f.time.sample_period = 1e-3;
    f.population = None;
    f.joint = (arm.drives.iter())
        .map(|d| {
            let Drive::Motion(p) = &d.drive else {
                panic!("a drawn motion")
            };
            JointSection {
                servo: Some(Servo {
                    reference: p.clone(),
                    control: Control::ComputedTorque {
                        kp: 400.0,
                        kd: 40.0,
                    },
                }),
                ..JointSection::new(d.id)
            }
        })
        .collect();
    let scenario = Scenario::from_file_with_model(f, "servoed arm", &chain).unwrap();
    let rec = sim::simulate(&scenario, None).recording;
    let nj = chain.links.len();
    let series = |c: JointColumn| (0..nj).map(|j| rec.joint_series(c, j)).collect();
    let log = Logged {
        t: rec.t.clone(),
        q: series(JointColumn::Q),
        qd: series(JointColumn::Qd),
        tau: series(JointColumn::Tau),
        q_cmd: Vec::new(),
    };
    (chain, log)
}

/// Every link 5 % heavier (mass and inertia).
fn heavier(chain: &Chain) -> Chain {
    let mut heavier = chain.clone();
    for link in &mut heavier.links {
        link.body.mass *= 1.05;
        link.body.inertia.iter_mut().for_each(|i| *i *= 1.05);
    }
    heavier
}

#[test]
fn the_model_that_made_a_log_rolls_out_onto_it_exactly_and_a_heavier_one_drifts() {
    for k in 0..ARMS {
        // Without damping or friction the rollout's step is the log's (1 ms): Rapier from the
        // same state under the same held torques repeats the log, to rounding.
        let (chain, log) = run(k, 1.0, false);
        let own = fidelity(&Model::from(chain.clone()), &log, Windows::TORQUE, 0.2).unwrap();
        assert_eq!(own.per_window.len(), 4, "arm {k}");
        assert!(
            own.per_window.iter().all(|w| (w.step - 1e-3).abs() < 1e-12),
            "arm {k}"
        );
        assert_eq!(own.blown_up, 0, "arm {k}");
        assert!(own.mean_horizon < 1e-9, "arm {k}: {own:?}");
        let other = fidelity(&Model::from(heavier(&chain)), &log, Windows::TORQUE, 0.2).unwrap();
        assert!(
            other.mean_horizon > 1e-5 && other.mean_horizon > 1e4 * own.mean_horizon,
            "arm {k}: {} against {} (heavier)",
            other.mean_horizon,
            own.mean_horizon
        );
    }
}

#[test]
fn with_friction_a_model_without_it_drifts_far_more() {
    for k in 0..ARMS {
        // Damping and a Coulomb friction smoothed over 0.01 rad/s may be stiff for a 1 ms
        // explicit step (`sim::rollout::steps_per_sample`): where the rollout steps finer than
        // the log did, the model that made the log differs from it by the log's own integration
        // error.
        let (chain, log) = run(k, 1.0, true);
        let own = fidelity(&Model::from(chain.clone()), &log, Windows::TORQUE, 0.2).unwrap();
        assert_eq!(own.blown_up, 0, "arm {k}");
        assert!(own.per_window.iter().all(|w| w.step <= 1e-3), "arm {k}");
        let mut frictionless = chain.clone();
        for link in &mut frictionless.links {
            (link.joint.damping, link.joint.friction) = (0.0, None);
        }
        let other = fidelity(&Model::from(frictionless), &log, Windows::TORQUE, 0.2).unwrap();
        assert!(
            other.mean_horizon > 10.0 * own.mean_horizon,
            "arm {k}: {} against {} (frictionless)",
            other.mean_horizon,
            own.mean_horizon
        );
    }
}

#[test]
fn a_log_of_other_joints_is_refused_and_a_diverging_model_is_counted_as_blown_up() {
    let (chain, mut log) = run(0, 0.6, true);
    let mut fewer = log.clone();
    fewer.q.pop();
    let e = fidelity(&Model::from(chain.clone()), &fewer, Windows::TORQUE, 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("joints"), "{e}");
    // Torques a thousand times the log's fling the arm round: every window blows up.
    log.tau.iter_mut().flatten().for_each(|t| *t *= 1e3);
    let f = fidelity(&Model::from(chain.clone()), &log, Windows::TORQUE, 0.0).unwrap();
    assert_eq!(f.blown_up, f.per_window.len());
    assert!(f.mean_horizon.is_nan());
}

#[test]
fn a_coupled_drive_acts_on_the_joints_it_turns_and_the_record_stays_consistent() {
    // `sim::simulation`'s coupled drives: a wrist drive over the last two joints of random
    // arms, torque-driven from a servo log. The recorded columns satisfy RNEA = τ + τ_friction
    // (the drive's inertial share out of τ, its friction in τ_friction), and the drive changes
    // the motion. (MuJoCo's tendon of the same terms is python/tests/test_rollout_mujoco.py.)
    for k in 0..ARMS {
        let (chain, log) = run(k, 0.4, false);
        let nj = chain.links.len();
        let mut row = vec![0.0; nj];
        (row[nj - 2], row[nj - 1]) = (1.0, 1.0);
        let drive = sim::drive_train::CoupledDrive {
            row,
            armature: 0.02,
            damping: 0.1,
            friction: Some(Friction::CoulombViscous {
                coulomb: 0.05,
                viscous: 0.0,
                smoothing: 0.01,
            }),
        };
        let model = Model {
            coupled: vec![drive.clone()],
            ..Model::from(chain.clone())
        };
        let coupled = fidelity(&model, &log, Windows::TORQUE, 0.0).unwrap();
        let plain = fidelity(&Model::from(chain.clone()), &log, Windows::TORQUE, 0.0).unwrap();
        assert!(plain.mean_horizon < 1e-9, "arm {k}: {}", plain.mean_horizon);
        assert!(
            coupled.mean_horizon > 1e-5,
            "arm {k}: {}",
            coupled.mean_horizon
        );

        // The record of a window with the drive: consistent to rounding.
        let joint = (0..nj)
            .map(|j| JointSection {
                torque: Some(sim::drive::Signal::Held(sim::profile::Held {
                    start: 0.0,
                    period: 1e-3,
                    values: log.tau[j][..=300].to_vec(),
                })),
                start: Some(sim::drive::JointStart {
                    q: log.q[j][0],
                    qd: log.qd[j][0],
                }),
                ..JointSection::new(j as u8 + 1)
            })
            .collect();
        let mut file = Scenario::from_path(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml"),
        )
        .unwrap()
        .population_arm(k)
        .unwrap()
        .file;
        (file.population, file.joint) = (None, joint);
        (file.time.end, file.time.step, file.time.sample_period) = (0.3, 1e-4, 1e-3);
        let scenario = Scenario::from_file_with_model(file, "coupled", &chain)
            .unwrap()
            .with_coupled_drives(vec![drive.clone()])
            .unwrap();
        let simulated = sim::simulation::run(&scenario, None);
        assert!(simulated.unevaluable.is_none(), "arm {k}");
        assert_eq!(simulated.recording.t.len(), 301, "arm {k}");
        let r = &simulated.residuals;
        let worst = (0..r.samples())
            .flat_map(|s| (0..nj).map(move |j| r.relative(s, j)))
            .fold(0.0, f64::max);
        assert!(worst < 1e-9, "arm {k}: {worst:e}");
    }
}
