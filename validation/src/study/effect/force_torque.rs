//! The effects written into the joints' force/torque sensors (`[[sensor]] type =
//! "force_torque"`, `sim::sensor`): a calibration error mixing the six channels, and the analog
//! chain ahead of the converter, in the sensor's frame. The table of what each writes is in
//! [`super`].

use sim::noise::Noise;
use sim::sensor::Sensor;

use super::EffectKind;

/// The length (m) that makes the `ft_cross_talk` pattern's force–moment blocks commensurate: a
/// moment of 1 N·m leaks into a force channel as a force of `ε / L`, a force of 1 N into a
/// moment channel as `ε L` (the radius of a wrist F/T sensor's strain-gauge ring).
pub const CROSS_TALK_LENGTH: f64 = 0.05;

/// The order of the anti-aliasing filter (a second-order Butterworth).
const FILTER_ORDER: usize = 2;

/// The `ft_cross_talk` calibration error at level `ε`: every off-diagonal entry `±ε`, the sign
/// `(−1)^(i+j)`, scaled by `L` in the moment-from-force block and by `1/L` in the
/// force-from-moment block; the diagonal (the channels' gains) left to their `scale` errors.
pub fn cross_talk(level: f64) -> [[f64; 6]; 6] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let unit = match (i < 3, j < 3) {
                (true, false) => 1.0 / CROSS_TALK_LENGTH,
                (false, true) => CROSS_TALK_LENGTH,
                _ => 1.0,
            };
            let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            if i == j { 0.0 } else { sign * level * unit }
        })
    })
}

/// Writes `kind` at `level` into every force/torque sensor of `sensors`, adding one without
/// errors on the `bodies` (ids) none covers; `Err` names a level the sensor cannot take. The
/// other effects, and the levels that turn these off, write nothing.
pub(super) fn write(
    kind: EffectKind,
    sensors: &mut Vec<Sensor>,
    bodies: &[u8],
    level: f64,
) -> Result<(), String> {
    let edit = match kind {
        _ if level == 0.0 => return Ok(()),
        EffectKind::FtCrossTalk => Edit::CrossTalk(Box::new(cross_talk(level))),
        EffectKind::FtDelay => Edit::Chain(Noise::Delay {
            samples: super::whole_samples(kind, level)?,
        }),
        EffectKind::FtAntiAliasing => Edit::Chain(Noise::AntiAliasing {
            order: FILTER_ORDER,
            cutoff: level,
        }),
        _ => return Ok(()),
    };
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
    Ok(())
}

/// What an F/T effect writes on each sensor.
enum Edit {
    /// Its calibration error.
    CrossTalk(Box<[[f64; 6]; 6]>),
    /// A law appended to its analog chain.
    Chain(Noise),
}
