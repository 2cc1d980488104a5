//! `link_length_error`: the kinematics told, link lengths scaled by `1 + level`.

use nalgebra::Vector3;

use crate::study::effect::SweptEffect;
use sim::reading::Measurements;

/// The estimators are told kinematics whose every link (joint point to joint point, from the
/// first joint on) is `1 + ε` times as long.
pub struct LinkLengthError;

impl SweptEffect for LinkLengthError {
    fn name(&self) -> &'static str {
        "link_length_error"
    }

    fn unit(&self) -> &'static str {
        "ε"
    }

    fn is_mismatch(&self) -> bool {
        true
    }

    fn tell(&self, m: &mut Measurements, level: f64) {
        let anchors: Vec<Vector3<f64>> = (m.geometry.links.iter())
            .map(|l| Vector3::from(l.joint.anchor))
            .collect();
        for k in 1..anchors.len() {
            let before = Vector3::from(m.geometry.links[k - 1].joint.anchor);
            let anchor = before + (1.0 + level) * (anchors[k] - anchors[k - 1]);
            let link = &mut m.geometry.links[k];
            link.joint.anchor = anchor.into();
            link.body.centroid = anchor.into();
        }
    }
}
