//! [`Target`]: a scenario's file as one effect at one severity edits it.

use sim::model::Chain;
use sim::scenario::{JointSection, ScenarioFile};

/// The file of the scenario an effect edits (checked again as a whole once the effect has
/// written), and the scenario's model, where an effect places something on the arm.
pub struct Target<'a> {
    /// The scenario's file, being edited.
    pub file: &'a mut ScenarioFile,
    /// The scenario's model as checked, before the edit (SI units, the model's frames).
    pub chain: &'a Chain,
}

impl Target<'_> {
    /// Applies `write` to the section of every actuated joint (a servo or a torque signal), in
    /// file order; the first problem is returned as [`crate::Error::Invalid`] naming the joint's
    /// field (`joint[k].field`, `k` its place among the file's `[[joint]]` sections).
    pub fn actuated_joints(
        &mut self,
        mut write: impl FnMut(&mut JointSection) -> Result<(), JointProblem>,
    ) -> crate::Result<()> {
        let joints = self.file.joint.iter_mut().enumerate();
        for (k, joint) in joints.filter(|(_, j)| j.servo.is_some() || j.torque.is_some()) {
            write(joint).map_err(|p| crate::Error::Invalid {
                what: format!("joint[{k}].{}", p.field),
                expected: p.expected,
            })?;
        }
        Ok(())
    }

    /// The ids of the file's joints, in file order.
    pub fn joint_ids(&self) -> Vec<u8> {
        self.file.joint.iter().map(|j| j.id).collect()
    }

    /// The ids of the model's bodies (1 to the number of links).
    pub fn body_ids(&self) -> Vec<u8> {
        (1..=self.chain.links.len() as u8).collect()
    }

    /// The run's length (s).
    pub fn end(&self) -> f64 {
        self.file.time.end
    }
}

/// Why an effect cannot be written on one joint's section.
#[derive(Clone, Debug, PartialEq)]
pub struct JointProblem {
    /// The field of the joint's section (`friction`, `spring`, …).
    pub field: &'static str,
    /// What the effect needs there, and what it found.
    pub expected: String,
}

/// Where a law joins the laws a reading already has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Ahead of them: an analog stage before the converter (a delay, a filter).
    First,
    /// After them: the converter itself (a resolution).
    Last,
}

impl Target<'_> {
    /// Adds `law` to the reading of the joint column `column` (`[[noise]]` entries,
    /// `sim::noise`) on every joint: into each entry on that column at `place`, and as a new
    /// entry for the joints none of them covers.
    pub fn add_joint_law(&mut self, column: &str, law: sim::noise::Noise, place: Place) {
        let mut uncovered = self.joint_ids();
        let noise = &mut self.file.noise;
        for entry in noise.iter_mut().filter(|n| n.column == column) {
            match place {
                Place::First => entry.model.insert(0, law.clone()),
                Place::Last => entry.model.push(law.clone()),
            }
            match &entry.joints {
                Some(ids) => uncovered.retain(|j| !ids.contains(j)),
                None => uncovered.clear(),
            }
        }
        if !uncovered.is_empty() {
            noise.push(sim::noise::ColumnNoise {
                column: column.into(),
                joints: Some(uncovered),
                bodies: None,
                model: vec![law],
            });
        }
    }
}
