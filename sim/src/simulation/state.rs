//! A rigid body's pose as Rapier holds it.

use nalgebra::{UnitQuaternion, Vector3};
use rapier3d_f64::prelude::RigidBody;

use crate::convert::{rot_from, vec_from};

/// Pose of one rigid body as Rapier holds it (world frame).
#[derive(Clone, Copy, Debug)]
pub(super) struct State {
    pub(super) rot: UnitQuaternion<f64>,
    pub(super) pos: Vector3<f64>,
}

impl State {
    pub(super) fn of(rb: &RigidBody) -> State {
        State {
            rot: rot_from(*rb.rotation()),
            pos: vec_from(rb.translation()),
        }
    }
}
