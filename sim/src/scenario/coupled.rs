//! Coupled drives added to a built scenario ([`Scenario::with_coupled_drives`]).

use super::{Scenario, ScenarioError};
use crate::drive::Drive;
use crate::drive_train::CoupledDrive;

impl Scenario {
    /// The scenario with `drives` (drives that turn several joints) acting on its arm. Each
    /// drive's row must span the arm's joints and be finite, its terms finite and non-negative,
    /// and every joint of the arm torque-driven or servoed (the drives' inertial share is
    /// solved from the whole arm's dynamics, `crate::simulation`; a prescribed or free joint's
    /// recorded torque would leave it out); `Err` names the drive and what was expected.
    pub fn with_coupled_drives(mut self, drives: Vec<CoupledDrive>) -> Result<Self, ScenarioError> {
        let origin = self.file.name.clone();
        let invalid = |k: usize, expected: String| ScenarioError::Invalid {
            path: origin.clone(),
            field: format!("coupled drive {k}"),
            expected,
        };
        let nj = self.drives.len();
        for (k, d) in drives.iter().enumerate() {
            if d.row.len() != nj || d.row.iter().any(|r| !r.is_finite()) {
                return Err(invalid(k, format!("a finite row over the {nj} joints")));
            }
            let terms = [d.armature, d.damping];
            if terms.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(invalid(
                    k,
                    format!("finite, non-negative terms, got {terms:?}"),
                ));
            }
            let other = (0..nj).find(|&j| {
                d.row[j] != 0.0
                    && !matches!(self.drives[j].drive, Drive::Torque(_) | Drive::Servo(_))
            });
            if let Some(j) = other {
                return Err(invalid(
                    k,
                    format!(
                        "joints that are torque-driven or servoed (joint {} is not)",
                        self.drives[j].id
                    ),
                ));
            }
        }
        self.coupled = drives;
        Ok(self)
    }
}
