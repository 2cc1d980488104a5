//! Random Fourier-series motions, drawn per joint.

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::distribution::Distribution;
use crate::profile::Profile;

/// Random Fourier-series profiles: `q = Σ_l a_l/(l ω) sin(l ω t) − b_l/(l ω) cos(l ω t)`
/// with `a_l, b_l` drawn from `coefficient` (rad/s), scaled down where the bound
/// `Σ (|a_l| + |b_l|)/(l ω)` of a joint exceeds `max_angle`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FourierExcitation {
    /// Fundamental frequency (Hz).
    pub base_frequency: f64,
    /// Harmonics per joint.
    pub harmonics: usize,
    /// Distribution of every coefficient `a_l`, `b_l` (rad/s).
    pub coefficient: Distribution,
    /// Largest excursion of a joint from its centre (rad).
    #[serde(default = "default_max_angle")]
    pub max_angle: f64,
}

impl FourierExcitation {
    /// One joint's profile about `offset` (rad), its coefficients drawn from `rng`.
    pub fn draw(&self, offset: f64, rng: &mut ChaCha8Rng) -> Profile {
        self.draw_within(offset, self.max_angle, rng)
    }

    /// One joint's profile about `offset` (rad) that never leaves it by more than `bound`
    /// (rad): the coefficients drawn from `rng`, scaled down where the series' bound exceeds
    /// `bound`.
    pub fn draw_within(&self, offset: f64, bound: f64, rng: &mut ChaCha8Rng) -> Profile {
        let w = std::f64::consts::TAU * self.base_frequency;
        let mut a: Vec<f64> = (0..self.harmonics)
            .map(|_| self.coefficient.sample(rng))
            .collect();
        let mut b: Vec<f64> = (0..self.harmonics)
            .map(|_| self.coefficient.sample(rng))
            .collect();
        let bound_of_series: f64 = (0..self.harmonics)
            .map(|l| (a[l].abs() + b[l].abs()) / (w * (l + 1) as f64))
            .sum();
        if bound_of_series > bound {
            let s = bound / bound_of_series;
            a.iter_mut().chain(b.iter_mut()).for_each(|c| *c *= s);
        }
        Profile::Fourier {
            base_frequency: self.base_frequency,
            offset,
            a,
            b,
        }
    }
}

fn default_max_angle() -> f64 {
    2.5
}
