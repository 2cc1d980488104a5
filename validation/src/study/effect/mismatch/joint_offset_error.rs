//! `joint_offset_error`: the joint coordinates told, offset by `±level`, alternating along the
//! chain.

use crate::study::effect::SweptEffect;
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// The estimators are told every joint's measured coordinate offset by `±δ` (rad or m),
/// alternating in sign along the chain (encoders zeroed wrong).
pub struct JointOffsetError;

impl SweptEffect for JointOffsetError {
    fn name(&self) -> &'static str {
        "joint_offset_error"
    }

    fn unit(&self) -> &'static str {
        "rad"
    }

    fn is_mismatch(&self) -> bool {
        true
    }

    fn tell(&self, m: &mut Measurements, level: f64) {
        for (j, joint) in m.joints.iter_mut().enumerate() {
            let offset = if j % 2 == 0 { level } else { -level };
            let q: Vec<f64> = joint.q.iter().map(|q| q + offset).collect();
            joint.measured.insert(JointColumn::Q, q.clone());
            joint.q = q;
        }
    }
}
