//! The effects written into the sensor chain of the motor-current reading `i` (its `[[noise]]`
//! entries, `sim::noise`). The table of what each writes is in [`super`].

use sim::noise::{ColumnNoise, Noise};

use super::EffectKind;

/// The column the identifiers read as the drive's torque (`K i`).
const CURRENT: &str = "i";
/// The order of the anti-aliasing filter (a second-order Butterworth, as on servo amplifiers'
/// current channels).
const FILTER_ORDER: usize = 2;

/// Writes `kind` at `level` into the current's noise entries (ahead of their laws), and a new
/// entry for the `joints` (ids) none of them covers; `Err` names a level the law cannot take.
/// The other effects write nothing here.
pub(super) fn write(
    kind: EffectKind,
    noise: &mut Vec<ColumnNoise>,
    joints: &[u8],
    level: f64,
) -> Result<(), String> {
    let law = match kind {
        EffectKind::CurrentDelay => {
            let samples = super::whole_samples(kind, level)?;
            (samples > 0).then_some(Noise::Delay { samples })
        }
        EffectKind::AntiAliasing => (level != 0.0).then_some(Noise::AntiAliasing {
            order: FILTER_ORDER,
            cutoff: level,
        }),
        _ => None,
    };
    let Some(law) = law else {
        return Ok(());
    };
    let mut uncovered: Vec<u8> = joints.to_vec();
    for entry in noise.iter_mut().filter(|n| n.column == CURRENT) {
        entry.model.insert(0, law.clone());
        match &entry.joints {
            Some(ids) => uncovered.retain(|j| !ids.contains(j)),
            None => uncovered.clear(),
        }
    }
    if !uncovered.is_empty() {
        noise.push(ColumnNoise {
            column: CURRENT.into(),
            joints: Some(uncovered),
            bodies: None,
            model: vec![law],
        });
    }
    Ok(())
}
