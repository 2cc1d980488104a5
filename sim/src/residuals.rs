//! The inverse-dynamics residuals of recorded joint values: how far `tau + tau_friction`
//! is from `RNEA(q, q̇, q̈)`, joint by joint and sample by sample, and the scale each is relative
//! to. Read by the manifest's checks ([`crate::checks`]) and the validity gates
//! ([`crate::validity`]); summed up by a run as it records ([`crate::simulation`]).

use crate::dynamics::{InverseDynamics, rnea_into};
use crate::model::Chain;

/// Joint values at one sample, in dataset joint order.
#[derive(Clone, Debug)]
pub struct JointSample {
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub qd: Vec<f64>,
    /// Accelerations.
    pub qdd: Vec<f64>,
    /// `tau + tau_friction`.
    pub applied: Vec<f64>,
}

/// `|RNEA(q, q̇, q̈) − (tau + tau_friction)|` of every joint at every sample, and the scale each
/// joint's residual is relative to ([`residual_scales`]): computed once per run, read by the
/// manifest's checks and by the validity gates ([`crate::validity`]).
#[derive(Clone, Debug, Default)]
pub struct Residuals {
    /// Per sample, per joint (dataset order), sample-major: the absolute residual (N·m or N),
    /// `scale.len()` values per sample.
    pub absolute: Vec<f64>,
    /// Per joint: the scale of its relative residual.
    pub scale: Vec<f64>,
}

impl Residuals {
    /// The residuals of a run's samples.
    pub fn of(chain: &Chain, samples: impl IntoIterator<Item = JointSample>) -> Self {
        let mut sum = ResidualSum::new(chain, 0);
        for s in samples {
            sum.add(&s.q, &s.qd, &s.qdd, &s.applied);
        }
        sum.finish()
    }

    /// Samples held.
    pub fn samples(&self) -> usize {
        self.absolute
            .len()
            .checked_div(self.scale.len())
            .unwrap_or(0)
    }

    /// Residual of joint `k` at sample `s`, relative to the joint's scale (absolute where the
    /// scale is 0).
    pub fn relative(&self, s: usize, k: usize) -> f64 {
        let scale = self.scale[k];
        let r = self.absolute[s * self.scale.len() + k];
        if scale > 0.0 { r / scale } else { r }
    }

    /// Per joint, the largest relative residual over the samples
    /// ([`crate::checks::Checks::rnea_rel_residual`]).
    pub(crate) fn max_relative(&self) -> Vec<f64> {
        (0..self.scale.len())
            .map(|k| {
                (0..self.samples())
                    .map(|s| self.relative(s, k))
                    .fold(0.0, f64::max)
            })
            .collect()
    }
}

/// [`Residuals`] summed up sample by sample, without allocating per sample.
pub(crate) struct ResidualSum<'a> {
    chain: &'a Chain,
    kinds: Vec<crate::model::JointKind>,
    peak: Vec<f64>,
    absolute: Vec<f64>,
    id: InverseDynamics,
}

impl<'a> ResidualSum<'a> {
    /// Room for `samples` samples.
    pub(crate) fn new(chain: &'a Chain, samples: usize) -> Self {
        let kinds = chain.joint_kinds();
        ResidualSum {
            chain,
            peak: vec![0.0; kinds.len()],
            absolute: Vec::with_capacity(samples * kinds.len()),
            kinds,
            id: InverseDynamics::default(),
        }
    }

    /// One sample: joint values in dataset order, `applied = tau + tau_friction`.
    pub(crate) fn add(&mut self, q: &[f64], qd: &[f64], qdd: &[f64], applied: &[f64]) {
        let g = self.chain.gravity_vector();
        let mut id = std::mem::take(&mut self.id);
        rnea_into(self.chain, q, qd, qdd, &g, &mut id);
        self.add_evaluated(&id.tau, applied);
        self.id = id;
    }

    /// One sample whose `RNEA(q, q̇, q̈)` has been evaluated already (`tau`, dataset order) at
    /// exactly the recorded `(q, q̇, q̈)`: the same numbers as [`ResidualSum::add`] gives.
    pub(crate) fn add_evaluated(&mut self, tau: &[f64], applied: &[f64]) {
        let joints = self.peak.iter_mut().zip(tau).zip(applied);
        for ((peak, tau), applied) in joints {
            *peak = peak.max(applied.abs());
            self.absolute.push((tau - applied).abs());
        }
    }

    /// The residuals summed up.
    pub(crate) fn finish(self) -> Residuals {
        Residuals {
            absolute: self.absolute,
            scale: residual_scales(&self.kinds, &self.peak),
        }
    }
}

/// Per-joint relative residual of `RNEA(q, q̇, q̈)` against `tau + tau_friction` over a run's
/// samples (see [`crate::checks::Checks::rnea_rel_residual`] for the normalization).
pub fn rnea_residual(chain: &Chain, samples: impl IntoIterator<Item = JointSample>) -> Vec<f64> {
    Residuals::of(chain, samples).max_relative()
}

/// The scale of each joint's inverse-dynamics residual: its own peak `|tau + tau_friction|`, or
/// the largest peak among joints of its kind where its own is below 1e-6 of that.
pub fn residual_scales(kinds: &[crate::model::JointKind], peak: &[f64]) -> Vec<f64> {
    let nj = kinds.len();
    let kind_peak = |k: usize| {
        (0..nj)
            .filter(|&i| kinds[i] == kinds[k])
            .map(|i| peak[i])
            .fold(0.0, f64::max)
    };
    (0..nj)
        .map(|k| {
            if peak[k] >= 1e-6 * kind_peak(k) {
                peak[k]
            } else {
                kind_peak(k)
            }
        })
        .collect()
}
