//! One window simulated: the model from a recorded state under the recorded drive.

use super::Model;
use crate::drive::{Control, JointStart, Servo, Signal};
use crate::position_servo::PositionServo;
use crate::profile::{Held, Profile};
use crate::recording::JointColumn;
use crate::scenario::{
    JointSection, Scenario, ScenarioError, ScenarioFile, SolverSection, TimeSection,
};

/// A log to roll out against, on a uniform grid: the robot's recorded joint states and the
/// drive each joint got. Joints in the model's order (dataset ids `1..`); every series as long
/// as `t`.
#[derive(Clone, Debug, Default)]
pub struct Logged {
    /// Grid times (s), uniformly spaced.
    pub t: Vec<f64>,
    /// Per joint, the recorded coordinate (rad or m).
    pub q: Vec<Vec<f64>>,
    /// Per joint, its rate (rad/s or m/s).
    pub qd: Vec<Vec<f64>>,
    /// Per joint, the torque (force) the drive applied to the link (N·m or N), offsets the
    /// model states removed.
    pub tau: Vec<Vec<f64>>,
    /// Per joint, the commanded position (rad or m) where the log has one (`q_cmd`); empty
    /// where the log has no commands.
    pub q_cmd: Vec<Option<Vec<f64>>>,
}

impl Logged {
    /// The grid's sample interval (s).
    pub fn period(&self) -> f64 {
        let n = self.t.len();
        (self.t[n - 1] - self.t[0]) / (n - 1) as f64
    }

    /// The log's samples before `t` (s): the part a model is fitted on when the rest is held
    /// out.
    pub fn before(&self, t: f64) -> Logged {
        let n = self.t.partition_point(|&x| x < t);
        let cut = |xs: &Vec<Vec<f64>>| xs.iter().map(|x| x[..n].to_vec()).collect();
        Logged {
            t: self.t[..n].to_vec(),
            q: cut(&self.q),
            qd: cut(&self.qd),
            tau: cut(&self.tau),
            q_cmd: (self.q_cmd.iter())
                .map(|c| c.as_ref().map(|c| c[..n].to_vec()))
                .collect(),
        }
    }
}

/// A window that could not be set up (the model and the log disagree).
#[derive(Debug, thiserror::Error)]
pub enum RolloutError {
    /// The log's joints are not the model's.
    #[error("the log has {log} joints with q, q̇ and τ, the model `{model}` {joints}")]
    Joints {
        /// Joints in the log.
        log: usize,
        /// The model's name.
        model: String,
        /// Its joints.
        joints: usize,
    },
    /// A command-line option is unusable.
    #[error("{option}: expected {expected}")]
    Option {
        /// The option.
        option: String,
        /// What was expected.
        expected: String,
    },
    /// The log has neither a torque for a joint nor, where the model has a servo on it, its
    /// commands.
    #[error(
        "joint {joint}: the log has no torque for it, and no commands (`q_cmd`) for a position \
         servo of the model on it (MJCF <position>, or drives.toml [[servo]])"
    )]
    Torque {
        /// The joint's dataset id.
        joint: u8,
    },
    /// The scenario of the window was refused.
    #[error("rollout window: {0}")]
    Scenario(#[from] ScenarioError),
}

/// One window simulated.
#[derive(Clone, Debug, PartialEq)]
pub struct RolledWindow {
    /// The integrator step (s; [`super::steps_per_sample`]).
    pub step: f64,
    /// The simulated coordinates per sample (`length + 1` of them, the first the recorded
    /// state; fewer where the simulation stopped at a non-finite state), each in the model's
    /// joint order (rad or m).
    pub q: Vec<Vec<f64>>,
}

/// The model rolled out over `length` samples from sample `start` of `log`.
pub fn roll_out(
    model: &Model,
    log: &Logged,
    start: usize,
    length: usize,
) -> Result<RolledWindow, RolloutError> {
    let chain = &model.chain;
    let nj = chain.joint_ids().len();
    if chain.rail_axis().is_some() || [log.q.len(), log.qd.len(), log.tau.len()] != [nj; 3] {
        return Err(RolloutError::Joints {
            log: log.q.len().min(log.qd.len()).min(log.tau.len()),
            model: chain.name.clone(),
            joints: nj,
        });
    }
    let period = log.period();
    let steps = (model.steps_per_sample).unwrap_or_else(|| window_steps(model, log, start)) as f64;
    let joint = (0..nj)
        .map(|j| {
            let mut section = JointSection {
                start: Some(JointStart {
                    q: log.q[j][start],
                    qd: log.qd[j][start],
                }),
                ..JointSection::new(j as u8 + 1)
            };
            match servo_driven(model, log, j) {
                None if log.tau[j][start..=start + length]
                    .iter()
                    .any(|v| v.is_nan()) =>
                {
                    return Err(RolloutError::Torque { joint: j as u8 + 1 });
                }
                None => {
                    section.torque = Some(Signal::Held(Held {
                        start: 0.0,
                        period,
                        values: log.tau[j][start..=start + length].to_vec(),
                    }));
                }
                Some(servo) => section.servo = Some(commanded(log, j, servo, start, length)),
            }
            Ok(section)
        })
        .collect::<Result<_, RolloutError>>()?;
    let file = ScenarioFile {
        name: format!("{}.rollout", chain.name),
        description: format!("Rollout of `{}` from sample {start}", chain.name),
        model: chain.name.clone(),
        seed: 0,
        torque_scale: 1.0,
        time: TimeSection {
            end: period * length as f64,
            step: period / steps,
            sample_period: period,
            steady_state: false,
        },
        solver: SolverSection::default(),
        joint,
        noise: Vec::new(),
        sensor: Vec::new(),
        population: None,
        lock: Default::default(),
        gravity: None,
        payload: None,
    };
    let origin = format!("rollout of `{}` from sample {start}", chain.name);
    let scenario = Scenario::from_file_with_model(file, &origin, chain)?
        .with_coupled_drives(model.coupled.clone())?;
    let simulated = crate::simulation::run(&scenario, None);
    let rec = &simulated.recording;
    let q: Vec<Vec<f64>> = (0..nj)
        .map(|j| rec.joint_series(JointColumn::Q, j))
        .collect();
    Ok(RolledWindow {
        step: scenario.dt(),
        q: (0..rec.t.len())
            .map(|k| q.iter().map(|qj| qj[k]).collect())
            .collect(),
    })
}

/// The step rule's whole integrator steps per sample interval for a rollout of `model` on `log`
/// from sample `start` (`super::step`): the servos that drive joints ([`servo_driven`]) count,
/// those a torque-driven joint's model states do not (Menagerie's Gen3 states `kv = 50` servos
/// on joints its torque logs drive: counted, they asked for 10 µs steps).
pub fn window_steps(model: &Model, log: &Logged, start: usize) -> usize {
    let q: Vec<f64> = log.q.iter().map(|q| q[start]).collect();
    super::step::steps_with_servos(model, &q, log.period(), |j| servo_driven(model, log, j))
}

/// The servo that drives joint `j` in a rollout of `model` on `log`: the model's position servo
/// on the joint, where the log has the joint's commands (`q_cmd`). A joint without one is driven
/// by the logged torque (a torque-logging arm's model may state servos it was not driven by).
pub fn servo_driven(model: &Model, log: &Logged, j: usize) -> Option<PositionServo> {
    let commands = log.q_cmd.get(j).is_some_and(Option::is_some);
    model.servo(j).copied().filter(|_| commands)
}

/// Joint `j`'s servo driven by the log's commands over the window from sample `start`: the
/// commands held sample to sample from as far back as the servo's delay reaches (to the log's
/// first sample; before it the first command holds), time 0 the window's start.
fn commanded(log: &Logged, j: usize, servo: PositionServo, start: usize, length: usize) -> Servo {
    let q_cmd = log.q_cmd[j].as_ref().expect("servo_driven checked it");
    let period = log.period();
    let back = ((servo.delay / period).ceil() as usize).min(start);
    Servo {
        reference: Profile::Held(Held {
            start: -(back as f64) * period,
            period,
            values: q_cmd[start - back..=start + length].to_vec(),
        }),
        control: Control::PositionServo(servo),
    }
}
