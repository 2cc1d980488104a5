//! The terms a simulation fit estimates, and the model they make.

use serde::{Deserialize, Serialize};

use sim::friction::Friction;
use sim::rollout::Model;

/// What a term is (units: N·m/rad, N·m·s/rad, s, N·m, N·m·s/rad, N·m, kg·m² for revolute joints;
/// N/m, N·s/m, s, N, N·s/m, N, kg for prismatic ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum TermKind {
    /// The joint's position servo's stiffness `k_p`.
    Kp,
    /// Its damping `k_d` on the joint's rate.
    Kd,
    /// Its command delay `δ`.
    Delay,
    /// Its torque limit (the servo's output saturates there).
    #[value(name = "torque_limit")]
    TorqueLimit,
    /// The joint's viscous damping.
    Damping,
    /// The joint's Coulomb level (smoothed over `sim::urdf::URDF_FRICTION_SMOOTHING`).
    Coulomb,
    /// The joint's armature (reflected rotor inertia).
    Armature,
}

/// One term of one joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Term {
    /// The joint's dataset id (1-based along the chain).
    pub joint: u8,
    /// What it is.
    pub kind: TermKind,
}

impl Term {
    /// The project's name of the term: `O<j>.kp`, `O<j>.kd`, `O<j>.delay`,
    /// `O<j>.torque_limit`, `O<j>.damping`, `O<j>.coulomb`, `O<j>.armature`.
    pub fn name(&self) -> String {
        let kind = match self.kind {
            TermKind::Kp => "kp",
            TermKind::Kd => "kd",
            TermKind::Delay => "delay",
            TermKind::TorqueLimit => "torque_limit",
            TermKind::Damping => "damping",
            TermKind::Coulomb => "coulomb",
            TermKind::Armature => "armature",
        };
        format!("O{}.{kind}", self.joint)
    }

    /// Whether it is fitted in log space (a positive term).
    pub(super) fn positive(&self) -> bool {
        self.kind != TermKind::Delay
    }

    /// Its value in `model`; `None` where the model has no servo on a servo term's joint.
    pub fn value(&self, model: &Model) -> Option<f64> {
        let j = self.joint as usize - 1;
        let joint = &model.chain.links.get(j)?.joint;
        Some(match self.kind {
            TermKind::Kp => model.servo(j)?.kp,
            TermKind::Kd => model.servo(j)?.kd,
            TermKind::Delay => model.servo(j)?.delay,
            TermKind::TorqueLimit => model.servo(j)?.torque_limit,
            TermKind::Damping => joint.damping,
            TermKind::Coulomb => match &joint.friction {
                Some(Friction::CoulombViscous { coulomb, .. }) => *coulomb,
                _ => 0.0,
            },
            TermKind::Armature => joint.armature,
        })
    }

    /// Sets it to `value` in `model` (whose servo on the joint exists: [`Term::value`]).
    pub fn set(&self, model: &mut Model, value: f64) {
        let j = self.joint as usize - 1;
        match self.kind {
            TermKind::Kp | TermKind::Kd | TermKind::Delay | TermKind::TorqueLimit => {
                let servo = model.servos[j].as_mut().expect("checked by value");
                match self.kind {
                    TermKind::Kp => servo.kp = value,
                    TermKind::Kd => servo.kd = value,
                    TermKind::TorqueLimit => servo.torque_limit = value,
                    _ => servo.delay = value.max(0.0),
                }
            }
            TermKind::Damping => model.chain.links[j].joint.damping = value,
            TermKind::Coulomb => {
                model.chain.links[j].joint.friction = Some(Friction::CoulombViscous {
                    coulomb: value,
                    viscous: 0.0,
                    smoothing: sim::urdf::URDF_FRICTION_SMOOTHING,
                });
            }
            TermKind::Armature => model.chain.links[j].joint.armature = value,
        }
    }
}
