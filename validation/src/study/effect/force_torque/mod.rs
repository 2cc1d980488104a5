//! The effects written into the joints' force/torque sensors (`[[sensor]] type =
//! "force_torque"`, `sim::sensor`): a calibration error mixing the six channels, and the analog
//! chain ahead of the converter, in the sensor's frame. The table of what each writes is in
//! [`super`].

pub(super) mod ft_anti_aliasing;
pub(super) mod ft_cross_talk;
pub(super) mod ft_delay;

pub use ft_cross_talk::{CROSS_TALK_LENGTH, cross_talk};

use sim::noise::Noise;
use sim::sensor::Sensor;

use super::Target;

/// What an F/T effect writes on each sensor.
enum Edit {
    /// Its calibration error.
    CrossTalk(Box<[[f64; 6]; 6]>),
    /// A law appended to its analog chain.
    Chain(Noise),
}

/// Writes `edit` into every force/torque sensor of the scenario, adding one without errors on
/// the bodies none covers.
fn write(target: &mut Target<'_>, edit: Edit) {
    let bodies = target.body_ids();
    let sensors = &mut target.file.sensor;
    let covered = |b: &u8| {
        (sensors.iter()).any(|s| matches!(s, Sensor::ForceTorque { .. }) && s.covers_body(*b))
    };
    let uncovered: Vec<u8> = bodies.iter().copied().filter(|b| !covered(b)).collect();
    if !uncovered.is_empty() {
        sensors.push(Sensor::ForceTorque {
            bodies: Some(uncovered),
            force: Default::default(),
            torque: Default::default(),
            cross_talk: None,
            chain: Vec::new(),
        });
    }
    for sensor in sensors.iter_mut() {
        if let Sensor::ForceTorque {
            cross_talk, chain, ..
        } = sensor
        {
            match &edit {
                Edit::CrossTalk(c) => *cross_talk = Some(c.clone()),
                Edit::Chain(law) => chain.push(law.clone()),
            }
        }
    }
}
