//! The drive terms of an estimate (`O<j>.coulomb`, `.viscous`, `.offset`, `.armature`) as the
//! simulator's drive-train file ([`sim::replay::DriveTrain`]), so that `sim replay` plays the
//! identified model with the drives it was identified with.

use std::collections::BTreeMap;

use nalgebra::DMatrix;
use sim::replay::{DriveTerms, DriveTrain};

use crate::estimate::Estimate;
use crate::estimate::idim::MIN_SPEED;
use crate::estimate::idim::base::Coupling;
use crate::param::{FrictionTerm, ParamId};

/// The drive train of `values` for an arm of `joints` joints whose drives are coupled by
/// `transmission` (drives × joints) where given; `None` when the estimate has no drive term.
/// A term the data did not determine is written as 0 (it is part of a base parameter).
pub fn drive_train(
    values: &BTreeMap<ParamId, Estimate>,
    joints: usize,
    transmission: Option<&DMatrix<f64>>,
) -> Option<DriveTrain> {
    let term = |joint: u8, name: &str| -> Option<f64> {
        let term = FrictionTerm::from_name(name)?;
        values.get(&ParamId::Friction { joint, term })?.value
    };
    let drive: Vec<DriveTerms> = (1..=joints as u8)
        .filter_map(|joint| {
            let [coulomb, viscous, offset, armature] =
                ["coulomb", "viscous", "offset", "armature"].map(|n| term(joint, n));
            [coulomb, viscous, offset, armature]
                .iter()
                .any(Option::is_some)
                .then(|| DriveTerms {
                    joint,
                    coulomb: coulomb.unwrap_or(0.0),
                    viscous: viscous.unwrap_or(0.0),
                    offset: offset.unwrap_or(0.0),
                    armature: armature.unwrap_or(0.0),
                })
        })
        .collect();
    (!drive.is_empty()).then(|| DriveTrain {
        min_speed: MIN_SPEED,
        // `+ 0.0` writes a zero divided by a negative diagonal as 0, not −0.
        coupling: transmission.map(|r| {
            let n = Coupling::of(r).normalized;
            (0..n.nrows())
                .map(|m| n.row(m).iter().map(|x| x + 0.0).collect())
                .collect()
        }),
        drive,
        servo: Vec::new(),
    })
}
