//! How far Rapier's discrete world is from the recorded readings, accumulated over a run.

use ::nalgebra::{UnitQuaternion, Vector3};

use crate::model::JointKind;
use crate::wrench::JointWrench;

pub use crate::dataset::provenance::RapierConsistency;

/// Running maxima of the differences between Rapier's world and the readings, and of the
/// readings themselves (for relative figures).
#[derive(Clone, Debug, Default)]
pub struct Meter {
    centroid: f64,
    angle: f64,
    /// Per joint kind (revolute, prismatic): largest difference and largest reading.
    qdd: [(f64, f64); 2],
    /// Per sample, per joint (sample-major): the acceleration difference (for the validity
    /// gate).
    qdd_differences: Vec<f64>,
    kinds: Vec<JointKind>,
    force: (f64, f64),
    moment: (f64, f64),
}

impl Meter {
    /// A meter for a chain whose joints (dataset order) are of these kinds, over up to
    /// `samples` samples.
    pub fn new(kinds: Vec<JointKind>, samples: usize) -> Self {
        Meter {
            qdd_differences: Vec::with_capacity(samples * kinds.len()),
            kinds,
            ..Meter::default()
        }
    }

    /// A body's pose as Rapier holds it against the forward kinematics of the recorded `q`.
    pub fn pose(
        &mut self,
        rapier_pos: &Vector3<f64>,
        rapier_rot: &UnitQuaternion<f64>,
        pos: &Vector3<f64>,
        rot: &UnitQuaternion<f64>,
    ) {
        self.centroid = self.centroid.max((rapier_pos - pos).norm());
        self.angle = self.angle.max(rapier_rot.angle_to(rot));
    }

    /// Rapier's discrete joint accelerations `(q̇_{n+1} − q̇_n)/dt` against the recorded ones
    /// (dataset order, one value per joint of the meter's kinds).
    pub fn accelerations(&mut self, discrete: &[f64], recorded: &[f64]) {
        for ((kind, d), r) in self.kinds.iter().zip(discrete).zip(recorded) {
            let slot = &mut self.qdd[slot(kind)];
            slot.0 = slot.0.max((d - r).abs());
            slot.1 = slot.1.max(r.abs());
            self.qdd_differences.push((d - r).abs());
        }
    }

    /// The wrenches recovered from Rapier's velocity changes against the recorded ones.
    pub fn wrenches(&mut self, discrete: &[JointWrench], recorded: &[JointWrench]) {
        for (d, r) in discrete.iter().zip(recorded) {
            self.force.0 = self.force.0.max((d.force - r.force).norm());
            self.force.1 = self.force.1.max(r.force.norm());
            self.moment.0 = self.moment.0.max((d.moment - r.moment).norm());
            self.moment.1 = self.moment.1.max(r.moment.norm());
        }
    }

    /// Per sample and joint, the engine's step against the recorded acceleration, relative to
    /// the largest recorded `|q̈|` of the joint's kind ([`RapierConsistency::qdd_rel_difference`]
    /// is their maximum).
    /// They are moved out: called once, at the end of the run.
    pub(crate) fn step_differences(&mut self) -> StepDifferences {
        StepDifferences {
            absolute: std::mem::take(&mut self.qdd_differences),
            joints: self.kinds.len(),
            scale: self.kinds.iter().map(|k| self.qdd[slot(k)].1).collect(),
        }
    }

    /// The figures for the manifest.
    pub fn finish(&self) -> RapierConsistency {
        let rel = |(diff, peak): (f64, f64)| if peak > 0.0 { diff / peak } else { diff };
        RapierConsistency {
            max_centroid_drift: self.centroid,
            max_rotation_drift: self.angle,
            qdd_rel_difference: rel(self.qdd[0]).max(rel(self.qdd[1])),
            wrench_rel_difference: rel(self.force).max(rel(self.moment)),
        }
    }
}

fn slot(kind: &JointKind) -> usize {
    matches!(kind, JointKind::Prismatic) as usize
}

/// `|(q̇_{n+1} − q̇_n)/dt − q̈_n|` of every joint at every sample (the engine's discrete velocity
/// change over the step that starts at the sample against the continuous-time acceleration at
/// the recorded state; 0 for kinematic joints), and the scale each is relative to: the largest
/// recorded `|q̈|` of the joint's kind (rad/s² or m/s²).
#[derive(Clone, Debug, Default)]
pub struct StepDifferences {
    /// Per sample, per joint (dataset order), sample-major: `joints` values per sample.
    pub absolute: Vec<f64>,
    /// Joints per sample.
    pub joints: usize,
    /// Per joint.
    pub scale: Vec<f64>,
}

impl StepDifferences {
    /// Samples held.
    pub fn samples(&self) -> usize {
        self.absolute.len().checked_div(self.joints).unwrap_or(0)
    }

    /// The difference of joint `k` at sample `s`, relative to its scale (absolute where the
    /// scale is 0).
    pub fn relative(&self, s: usize, k: usize) -> f64 {
        let scale = self.scale[k];
        let d = self.absolute[s * self.joints + k];
        if scale > 0.0 { d / scale } else { d }
    }
}
