//! Optimized excitation: finite Fourier-series joint trajectories (Swevers et al. 1997) whose
//! coefficients minimize the condition number of the base regressor, or maximize its
//! D-optimality.
//!
//! The criteria ([`Criterion`]) are functions of the base regressor `W_b` ([`BaseParameters`])
//! stacked over `samples` instants of one period, so they need only the arm's kinematics:
//! `cond(W_b)`, the ratio of the largest to the smallest singular value, and the D-optimality
//! `log det(W_bᵀ W_b)`, the log volume of the information matrix (its inverse is the least-squares
//! covariance up to the noise variance). The condition number is what the teaching paper
//! minimizes; it is known to be a poor objective on ill-conditioned designs (only the two extreme
//! singular values move it, and its gradient is discontinuous where they cross), while
//! D-optimality weighs every direction (Gautier & Khalil 1992; Swevers et al. 1997). The search is a seeded random start followed by a compass
//! (pattern) search on all coefficients; after every move the harmonic amplitudes of each
//! joint are scaled down, if needed, so that the joint stays within its position, velocity and
//! acceleration limits (the offsets are clamped into the position range first). The optimizer
//! is twenty lines of plain code, kept here rather than taken from a crate because the
//! projection onto the limits is the part that matters.

use nalgebra::DMatrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim::model::Chain;
use sim::profile::Profile;

use crate::regressor::{BaseParameters, stacked};

/// The family of trajectories searched and their limits (per joint, symmetric about 0).
#[derive(Clone, Debug)]
pub struct FourierDesign {
    /// Fundamental frequency (Hz); the period is its inverse.
    pub base_frequency: f64,
    /// Harmonics per joint.
    pub harmonics: usize,
    /// `|q| ≤` this (rad).
    pub position_limit: f64,
    /// `|q̇| ≤` this (rad/s).
    pub velocity_limit: f64,
    /// `|q̈| ≤` this (rad/s²).
    pub acceleration_limit: f64,
    /// Instants per period at which the regressor is evaluated.
    pub samples: usize,
    /// Centre of each joint's range (rad or m, dataset joint order; missing entries 0): the
    /// offsets and `position_limit` are about it, for arms whose ranges are not symmetric
    /// about 0 ([`centres`]).
    pub centres: Vec<f64>,
}

/// The centres of the joint ranges a chain states ([`sim::model::JointLimits`]; 0 where none),
/// and the largest `position_limit` about them that keeps every joint inside its range with
/// `margin` (rad or m) to spare.
pub fn centres(chain: &Chain, margin: f64) -> (Vec<f64>, f64) {
    let limits: Vec<Option<sim::model::JointLimits>> = chain
        .rail_axis()
        .map(|_| None)
        .into_iter()
        .chain(chain.links.iter().map(|l| l.joint.limits))
        .collect();
    let centres = limits
        .iter()
        .map(|l| l.map_or(0.0, |l| 0.5 * (l.lower + l.upper)))
        .collect();
    let half = limits
        .iter()
        .flatten()
        .map(|l| 0.5 * (l.upper - l.lower) - margin)
        .fold(f64::INFINITY, f64::min);
    (centres, half)
}

/// What the optimizer minimizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    /// `cond(W_b)`.
    Condition,
    /// `−log det(W_bᵀ W_b)` (D-optimality).
    DOptimal,
}

impl FourierDesign {
    fn centre(&self, joint: usize) -> f64 {
        self.centres.get(joint).copied().unwrap_or(0.0)
    }
}

/// The Fourier profile of joint `j` from its coefficient vector `[q0, a_1..a_L, b_1..b_L]`
/// (`q0` about the joint's centre).
fn profile(design: &FourierDesign, j: usize, x: &[f64]) -> Profile {
    let l = design.harmonics;
    Profile::Fourier {
        base_frequency: design.base_frequency,
        offset: design.centre(j) + x[0],
        a: x[1..=l].to_vec(),
        b: x[l + 1..=2 * l].to_vec(),
    }
}

/// Extremes of `|q − offset|`, `|q̇|`, `|q̈|` over a period, sampled finely.
fn extremes(design: &FourierDesign, p: &Profile) -> [f64; 3] {
    let n = 400;
    let offset = match p {
        Profile::Fourier { offset, .. } => *offset,
        _ => 0.0,
    };
    (0..n).fold([0.0f64; 3], |m, k| {
        let s = p.eval(k as f64 / (n as f64 * design.base_frequency));
        [
            m[0].max((s.q - offset).abs()),
            m[1].max(s.qd.abs()),
            m[2].max(s.qdd.abs()),
        ]
    })
}

/// Clamps the offset and scales the amplitudes so joint `j` respects the limits.
fn project(design: &FourierDesign, j: usize, x: &mut [f64]) {
    let margin = 0.98;
    x[0] = x[0].clamp(-0.5 * design.position_limit, 0.5 * design.position_limit);
    let [dq, v, a] = extremes(design, &profile(design, j, x));
    let room = design.position_limit - x[0].abs();
    let scale = [
        room / dq,
        design.velocity_limit / v,
        design.acceleration_limit / a,
    ]
    .into_iter()
    .filter(|s| s.is_finite())
    .fold(f64::INFINITY, f64::min);
    if scale < 1.0 {
        x[1..].iter_mut().for_each(|c| *c *= scale * margin);
    }
}

/// Joint states `[q, q̇, q̈]` of the profiles at `samples` instants of one period.
pub fn states(design: &FourierDesign, profiles: &[Profile]) -> Vec<[Vec<f64>; 3]> {
    (0..design.samples)
        .map(|k| {
            let t = k as f64 / (design.samples as f64 * design.base_frequency);
            let s: Vec<_> = profiles.iter().map(|p| p.eval(t)).collect();
            [
                s.iter().map(|m| m.q).collect(),
                s.iter().map(|m| m.qd).collect(),
                s.iter().map(|m| m.qdd).collect(),
            ]
        })
        .collect()
}

/// `cond(W_b)` of the profiles (one per joint of `chain`, a fixed-base chain).
pub fn condition_number(
    chain: &Chain,
    base: &BaseParameters,
    design: &FourierDesign,
    profiles: &[Profile],
) -> f64 {
    let sv = singular_values(chain, base, design, profiles);
    sv.max() / sv.min()
}

/// Singular values of `W_b` stacked over the design's instants.
fn singular_values(
    chain: &Chain,
    base: &BaseParameters,
    design: &FourierDesign,
    profiles: &[Profile],
) -> nalgebra::DVector<f64> {
    let w: DMatrix<f64> = base.regressor(&stacked(chain, &states(design, profiles)));
    w.singular_values()
}

/// `log det(W_bᵀ W_b)` of the profiles (D-optimality; larger is better; −∞ if singular).
pub fn log_det_information(
    chain: &Chain,
    base: &BaseParameters,
    design: &FourierDesign,
    profiles: &[Profile],
) -> f64 {
    (singular_values(chain, base, design, profiles).iter())
        .map(|s| 2.0 * s.ln())
        .sum()
}

/// `(cond(W_b), log det(W_bᵀW_b))` of recorded periodic references (one per joint, the first
/// a Fourier profile giving the period) over 100 instants of a period; NaN if not periodic.
pub(crate) fn of_references(
    chain: &Chain,
    base: &BaseParameters,
    profiles: &[Profile],
) -> (f64, f64) {
    let Some(Profile::Fourier { base_frequency, .. }) = profiles.first() else {
        return (f64::NAN, f64::NAN);
    };
    let design = FourierDesign {
        base_frequency: *base_frequency,
        harmonics: 0,
        position_limit: 0.0,
        velocity_limit: 0.0,
        acceleration_limit: 0.0,
        samples: 100,
        centres: Vec::new(),
    };
    (
        condition_number(chain, base, &design, profiles),
        log_det_information(chain, base, &design, profiles),
    )
}

/// The value of `criterion` (to be minimized).
pub fn cost(
    criterion: Criterion,
    chain: &Chain,
    base: &BaseParameters,
    design: &FourierDesign,
    profiles: &[Profile],
) -> f64 {
    match criterion {
        Criterion::Condition => condition_number(chain, base, design, profiles),
        Criterion::DOptimal => -log_det_information(chain, base, design, profiles),
    }
}

/// The optimized trajectory: one Fourier profile per joint, and its criterion value.
pub fn optimize(
    chain: &Chain,
    design: &FourierDesign,
    criterion: Criterion,
    seed: u64,
    sweeps: usize,
) -> (Vec<Profile>, f64) {
    let nj = chain.joint_ids().len();
    let base = BaseParameters::of_chain(chain);
    let dim = 1 + 2 * design.harmonics;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x: Vec<Vec<f64>> = (0..nj)
        .map(|j| {
            let mut c: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
            c[0] *= 0.2 * design.position_limit;
            project(design, j, &mut c);
            c
        })
        .collect();
    let profiles = |x: &[Vec<f64>]| -> Vec<Profile> {
        x.iter()
            .enumerate()
            .map(|(j, c)| profile(design, j, c))
            .collect()
    };
    let cost = |x: &[Vec<f64>]| cost(criterion, chain, &base, design, &profiles(x));
    let mut best = cost(&x);
    let mut step = 0.3;
    for _ in 0..sweeps {
        let mut improved = false;
        for j in 0..nj {
            for i in 0..dim {
                for sign in [1.0, -1.0] {
                    let mut trial = x.clone();
                    let unit = if i == 0 { design.position_limit } else { 1.0 };
                    trial[j][i] += sign * step * unit;
                    project(design, j, &mut trial[j]);
                    let c = cost(&trial);
                    if c < best {
                        (best, x) = (c, trial);
                        improved = true;
                        break;
                    }
                }
            }
        }
        if !improved {
            step *= 0.5;
            if step < 1e-3 {
                break;
            }
        }
    }
    (profiles(&x), best)
}

/// A random trajectory of the same family (for validation runs), within the limits.
pub fn random(chain: &Chain, design: &FourierDesign, seed: u64) -> Vec<Profile> {
    let dim = 1 + 2 * design.harmonics;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..chain.joint_ids().len())
        .map(|j| {
            let mut c: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
            c[0] *= 0.2 * design.position_limit;
            // Scale up first so the projection lands on a limit.
            c[1..].iter_mut().for_each(|v| *v *= 10.0);
            project(design, j, &mut c);
            profile(design, j, &c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::model::reference;

    #[test]
    fn optimization_lowers_the_condition_number_within_the_limits() {
        let chain = reference::link2();
        let design = FourierDesign {
            base_frequency: 0.1,
            harmonics: 3,
            position_limit: 1.2,
            velocity_limit: 1.5,
            acceleration_limit: 5.0,
            samples: 40,
            centres: Vec::new(),
        };
        let base = BaseParameters::of_chain(&chain);
        let start = condition_number(&chain, &base, &design, &random(&chain, &design, 3));
        let (profiles, c) = optimize(&chain, &design, Criterion::Condition, 3, 4);
        assert!(c < start, "{c} vs random {start}");
        for p in &profiles {
            let [dq, v, a] = extremes(&design, p);
            let Profile::Fourier { offset, .. } = p else {
                unreachable!()
            };
            assert!(dq + offset.abs() <= 1.2 + 1e-9 && v <= 1.5 + 1e-9 && a <= 5.0 + 1e-9);
        }
    }
}
