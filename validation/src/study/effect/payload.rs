//! `payload`: an unmodelled payload of mass `level` (kg) on the last link.

use nalgebra::Vector3;

use super::{SweptEffect, Target};

/// The distance of the payload's mass from the last joint's point, along its axis (m).
const PAYLOAD_REACH: f64 = 0.1;

/// `payload = { mass = m, centroid }` (`sim::payload`): a point mass `PAYLOAD_REACH` out from
/// the last joint's point along its axis (zero configuration), carried in both runs and absent
/// from the truth; 0 writes none.
pub struct Payload;

impl SweptEffect for Payload {
    fn name(&self) -> &'static str {
        "payload"
    }

    fn unit(&self) -> &'static str {
        "kg"
    }

    fn write(&self, target: &mut Target<'_>, level: f64) -> crate::Result<()> {
        let Some(last) = target.chain.links.last() else {
            return Ok(());
        };
        if level != 0.0 {
            let joint = &last.joint;
            let centroid = Vector3::from(joint.anchor) + PAYLOAD_REACH * Vector3::from(joint.axis);
            target.file.payload = Some(sim::payload::Payload {
                mass: level,
                centroid: centroid.into(),
                inertia: [0.0; 6],
            });
        }
        Ok(())
    }
}
