//! What a rollout simulates: an arm, the drives that turn several of its joints, and the
//! position servos that drive some of them from logged commands.

use crate::drive_train::CoupledDrive;
use crate::model::Chain;
use crate::position_servo::PositionServo;

/// A model to roll out: its arm (bodies, and per-joint armature, damping and friction), its
/// coupled drives ([`CoupledDrive`], as `crate::simulation` applies them) and its position
/// servos.
#[derive(Clone, Debug)]
pub struct Model {
    /// The arm.
    pub chain: Chain,
    /// Drives that turn several joints (a coupled wrist).
    pub coupled: Vec<CoupledDrive>,
    /// Per joint (chain order), the position servo that drives it from the log's commands
    /// (`q_cmd`); a joint without one is driven by the logged torque. Empty: none.
    pub servos: Vec<Option<PositionServo>>,
    /// Integrator steps per sample interval of every window; `None`: each window's own by the
    /// step rule ([`super::steps_per_sample`]). A fit by simulation fixes it, so that its cost
    /// is a smooth function of the terms it fits.
    pub steps_per_sample: Option<usize>,
}

impl Model {
    /// Joint `j`'s position servo, if it has one.
    pub fn servo(&self, j: usize) -> Option<&PositionServo> {
        self.servos.get(j).and_then(Option::as_ref)
    }
}

impl From<Chain> for Model {
    fn from(chain: Chain) -> Self {
        Model {
            chain,
            coupled: Vec::new(),
            servos: Vec::new(),
            steps_per_sample: None,
        }
    }
}
