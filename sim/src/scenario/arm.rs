//! One arm of a scenario's population as a scenario of its own: the drawn chain and drives,
//! the file's time, noise and sensors (scaled where the population says so), a seed of its own,
//! and the text its manifest records.

use super::check::within_limits;
use super::{Scenario, ScenarioError};
use crate::drive::Drive;

impl Scenario {
    /// Whether some arm of the file's population may have a servo joint (the file's own joint
    /// sections, or a motion family whose arms are servo-tracked): every arm's `joints.parquet`
    /// then has `q_cmd`, so that a population's arms share their columns.
    pub fn population_commands(&self) -> bool {
        let servo = |d: &Drive| matches!(d, Drive::Servo(_));
        let families = self
            .file
            .population
            .as_ref()
            .map_or(&[][..], |p| &p.motion[..]);
        self.drives.iter().any(|d| servo(&d.drive))
            || families
                .iter()
                .any(super::population::motion::Motion::servo_tracked)
    }

    /// The scenario of arm `index` of the file's population: the drawn arm and its drives, the
    /// file's time, solver, noise, sensors, damping and friction; named `<name>/arm=<index>`.
    /// Its seed (the noise streams') is the file's mixed with the index, so arms do not share
    /// noise realizations. `Err` names
    /// the population field whose draw is unusable (a profile leaving its joint's limits).
    pub fn population_arm(&self, index: usize) -> Result<Scenario, ScenarioError> {
        let origin = self.origin();
        let p = self.population()?;
        let seed = p.seed.unwrap_or(self.file.seed);
        let arm = if p.random.is_some() {
            p.random_arm(seed, index)
        } else if crate::scenario::population::is_arm6(&self.chain) {
            p.arm(seed, index, self.file.time.end)
        } else {
            let drives: Vec<Drive> = self.drives.iter().map(|d| d.drive.clone()).collect();
            p.scaled_arm(&self.chain, &drives, seed, index)
        };
        let mut s = if let (Some(_), Some(drives)) = (&p.random, &arm.drives) {
            // The file read again about the drawn arm: its first joint sections (the drive
            // templates) with the motions it drew, sensors and noise checked against its joints
            // and bodies.
            let mut file = self.file.clone();
            // A random arm's joints are 1..=n, its drives in that order.
            file.joint
                .retain(|j| (1..=drives.len()).contains(&(j.id as usize)));
            for section in &mut file.joint {
                if let Drive::Motion(m) = &drives[section.id as usize - 1] {
                    (section.motion, section.servo, section.torque) = (Some(m.clone()), None, None);
                    section.free = false;
                }
            }
            Scenario {
                path: self.path.clone(),
                model_dir: self.model_dir.clone(),
                ..Self::from_file_with_model(file, &origin, &arm.chain)?
            }
        } else {
            self.clone()
        };
        s.file.name = format!("{}/arm={index:05}", self.file.name);
        s.file.seed = self.file.seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        s.chain = arm.chain;
        s.motion_family = arm.family;
        s.noise_scale = p.noise_factor(seed, index);
        if let Some(factor) = s.noise_scale {
            crate::measurement::scale_white_noise(&mut s.file.noise, &mut s.file.sensor, factor);
        }
        if let Some(step) = arm.step {
            s.file.time.step = step;
            s.steps_per_sample = (s.file.time.sample_period / step).round() as usize;
        }
        if let Some(friction) = p.joint_friction(seed, index, &s.chain.joint_kinds()) {
            for (d, f) in s.drives.iter_mut().zip(friction) {
                if f.is_some() {
                    d.friction = f;
                }
            }
        }
        let drawn = arm
            .drives
            .unwrap_or_else(|| s.drives.iter().map(|d| d.drive.clone()).collect());
        for (d, drive) in s.drives.iter_mut().zip(drawn) {
            d.drive = drive;
            if d.id > 0 {
                let joint = &mut s.chain.links[d.id as usize - 1].joint;
                joint.damping = d.damping;
                joint.friction = d.friction.clone();
            }
        }
        let end = self.file.time.end;
        for (k, d) in s.drives.iter().enumerate().skip(1) {
            let limits = (d.id > 0)
                .then(|| s.chain.links[d.id as usize - 1].joint.limits)
                .flatten();
            if let (
                Drive::Motion(prof)
                | Drive::Servo(crate::drive::Servo {
                    reference: prof, ..
                }),
                Some(limits),
            ) = (&d.drive, limits)
                && let Err(e) = within_limits(prof, &limits, 201, end / 200.0)
            {
                return Err(ScenarioError::Invalid {
                    path: origin,
                    field: match (arm.family, p.excitation()) {
                        (Some(family), _) => format!("population.motion ({family})"),
                        (None, crate::scenario::population::ExcitationKind::Fourier) => {
                            "population.fourier.max_angle".into()
                        }
                        _ => "population.joint_acceleration".into(),
                    },
                    expected: format!("arm {index} joint {k}: {e}"),
                });
            }
        }
        s.source = s.arm_source(&origin)?;
        Ok(s)
    }

    /// The text of a drawn arm's own scenario (what its manifest records, and what a reader of
    /// the run takes as its design): the file with its joint sections reduced to the arm's
    /// joints, each with the motion or servo reference the arm drew, its time step and its
    /// (scaled) noise; the `[population]` section kept for the record.
    fn arm_source(&self, origin: &str) -> Result<String, ScenarioError> {
        let mut file = self.file.clone();
        let ids: Vec<u8> = self.drives.iter().map(|d| d.id).collect();
        file.joint.retain(|j| ids.contains(&j.id));
        for d in &self.drives {
            let Some(section) = file.joint.iter_mut().find(|j| j.id == d.id) else {
                continue;
            };
            section.friction.clone_from(&d.friction);
            match &d.drive {
                Drive::Motion(p) => {
                    (section.motion, section.servo) = (Some(p.clone()), None);
                }
                Drive::Servo(servo) => {
                    (section.motion, section.servo) = (None, Some(servo.clone()));
                }
                Drive::Torque(_) | Drive::Free => {}
            }
        }
        Self::text_of(&file, origin)
    }
}
