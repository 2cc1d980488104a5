//! What a rollout simulates: an arm and the drives that turn several of its joints.

use crate::drive_train::CoupledDrive;
use crate::model::Chain;

/// A model to roll out: its arm (bodies, and per-joint armature, damping and friction) and its
/// coupled drives ([`CoupledDrive`], as `crate::simulation` applies them).
#[derive(Clone, Debug)]
pub struct Model {
    /// The arm.
    pub chain: Chain,
    /// Drives that turn several joints (a coupled wrist).
    pub coupled: Vec<CoupledDrive>,
}

impl From<Chain> for Model {
    fn from(chain: Chain) -> Self {
        Model {
            chain,
            coupled: Vec::new(),
        }
    }
}
