//! Optimized excitation: finite Fourier-series joint trajectories (Swevers et al. 1997) whose
//! coefficients minimize the condition number of the base regressor.
//!
//! The criterion is `cond(W_b)`, the ratio of the largest to the smallest singular value of the
//! base regressor ([`BaseParameters`]) stacked over `samples` instants of one period. It needs
//! only the arm's kinematics. The search is a seeded random start followed by a compass
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

use crate::standard_regressor::{BaseParameters, stacked};

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
}

/// The Fourier profile of one joint from its coefficient vector `[q0, a_1..a_L, b_1..b_L]`.
fn profile(design: &FourierDesign, x: &[f64]) -> Profile {
    let l = design.harmonics;
    Profile::Fourier {
        base_frequency: design.base_frequency,
        offset: x[0],
        a: x[1..=l].to_vec(),
        b: x[l + 1..=2 * l].to_vec(),
    }
}

/// Extremes of `|q − q0|`, `|q̇|`, `|q̈|` over a period, sampled finely.
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

/// Clamps the offset and scales the amplitudes so the joint respects the limits.
fn project(design: &FourierDesign, x: &mut [f64]) {
    let margin = 0.98;
    x[0] = x[0].clamp(-0.5 * design.position_limit, 0.5 * design.position_limit);
    let [dq, v, a] = extremes(design, &profile(design, x));
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
    let w: DMatrix<f64> = base.regressor(&stacked(chain, &states(design, profiles)));
    let sv = w.singular_values();
    sv.max() / sv.min()
}

/// The optimized trajectory: one Fourier profile per joint, and its condition number.
pub fn optimize(
    chain: &Chain,
    design: &FourierDesign,
    seed: u64,
    sweeps: usize,
) -> (Vec<Profile>, f64) {
    let nj = chain.joint_ids().len();
    let base = BaseParameters::of_chain(chain);
    let dim = 1 + 2 * design.harmonics;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut x: Vec<Vec<f64>> = (0..nj)
        .map(|_| {
            let mut c: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
            c[0] *= 0.2 * design.position_limit;
            project(design, &mut c);
            c
        })
        .collect();
    let cost = |x: &[Vec<f64>]| {
        let profiles: Vec<Profile> = x.iter().map(|c| profile(design, c)).collect();
        condition_number(chain, &base, design, &profiles)
    };
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
                    project(design, &mut trial[j]);
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
    (x.iter().map(|c| profile(design, c)).collect(), best)
}

/// A random trajectory of the same family (for validation runs), within the limits.
pub fn random(chain: &Chain, design: &FourierDesign, seed: u64) -> Vec<Profile> {
    let dim = 1 + 2 * design.harmonics;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..chain.joint_ids().len())
        .map(|_| {
            let mut c: Vec<f64> = (0..dim).map(|_| rng.random_range(-1.0..1.0)).collect();
            c[0] *= 0.2 * design.position_limit;
            // Scale up first so the projection lands on a limit.
            c[1..].iter_mut().for_each(|v| *v *= 10.0);
            project(design, &mut c);
            profile(design, &c)
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
        };
        let base = BaseParameters::of_chain(&chain);
        let start = condition_number(&chain, &base, &design, &random(&chain, &design, 3));
        let (profiles, c) = optimize(&chain, &design, 3, 4);
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
