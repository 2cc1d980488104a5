//! Butterworth low-pass filters as second-order sections: causal ([`Butterworth::filter`], the
//! sensor chain's anti-aliasing filter, `sim::noise`) and zero-phase ([`Butterworth::filtfilt`],
//! the estimators' smoothing, `validation::signal`).
//!
//! **Design.** The analog Butterworth prototype of order `N` (poles
//! `s_k = ω_a e^{iπ(2k + N − 1)/(2N)}`, `k = 1..N`), pre-warped so that the digital filter's
//! −3 dB point is the stated cut-off `f_c` (`ω_a = 2 f_s tan(π f_c / f_s)`), mapped to the
//! z-plane by the bilinear transform, and factored into biquads (conjugate pole pairs; one
//! first-order section for odd `N`) with unit gain at DC. This is what `scipy.signal.butter(N,
//! f_c, fs=f_s, output="sos")` designs.
//!
//! **Zero phase.** The cascade runs forward, then backward over the reversed output
//! (`filtfilt`): the phase cancels, the magnitude is squared (`|H|²`: −6 dB at `f_c`, and
//! order `2N` roll-off). The ends are extended by odd reflection (`2x₀ − x_{k}`) over
//! `padding` samples and every section starts in its steady state for the first padded
//! value (scipy's `sosfiltfilt` with `padtype="odd"`), so a smooth signal passes unchanged up
//! to its ends.

use std::f64::consts::PI;

use crate::param::ParamError;

/// One second-order section `(b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Biquad {
    /// Numerator `b0, b1, b2`.
    pub b: [f64; 3],
    /// Denominator `a1, a2` (`a0 = 1`).
    pub a: [f64; 2],
}

impl Biquad {
    /// Gain at DC (`z = 1`).
    fn dc_gain(&self) -> f64 {
        self.b.iter().sum::<f64>() / (1.0 + self.a[0] + self.a[1])
    }

    /// The transposed direct-form-II state that holds a constant input `x` in steady state.
    fn steady_state(&self, x: f64) -> [f64; 2] {
        let y = self.dc_gain() * x;
        [y - self.b[0] * x, self.b[2] * x - self.a[1] * y]
    }

    /// Filters `x` in place from state `z` (transposed direct form II).
    fn run(&self, x: &mut [f64], mut z: [f64; 2]) {
        let ([b0, b1, b2], [a1, a2]) = (self.b, self.a);
        for v in x.iter_mut() {
            let y = b0 * *v + z[0];
            z[0] = b1 * *v - a1 * y + z[1];
            z[1] = b2 * *v - a2 * y;
            *v = y;
        }
    }
}

/// A digital Butterworth low-pass filter: order and cut-off at a sample rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Butterworth {
    /// Order `N` (1..=12).
    pub order: usize,
    /// −3 dB cut-off of one pass (Hz); the zero-phase filter is −6 dB there.
    pub cutoff: f64,
    /// Sample rate (Hz).
    pub rate: f64,
    /// The sections, unit DC gain each.
    pub sections: Vec<Biquad>,
}

impl Butterworth {
    /// The filter of `order` with cut-off `cutoff` (Hz) at `rate` (Hz). `Err` unless
    /// `1 ≤ order ≤ 12` and `0 < cutoff < rate / 2`; `Err` names the field (`order`,
    /// `cutoff`) and what was expected.
    pub fn new(order: usize, cutoff: f64, rate: f64) -> Result<Self, ParamError> {
        if !(1..=12).contains(&order) {
            return Err((
                "order".into(),
                format!("expected a filter order in 1..=12, got {order}"),
            ));
        }
        if !(cutoff > 0.0 && cutoff < rate / 2.0) {
            return Err((
                "cutoff".into(),
                format!(
                    "expected a cut-off in (0, {}) Hz (below the Nyquist frequency of {rate} Hz), \
                     got {cutoff} Hz",
                    rate / 2.0
                ),
            ));
        }
        // Pre-warped analog cut-off for a bilinear map with 2·fs.
        let k = 2.0 * rate;
        let wa = k * (PI * cutoff / rate).tan();
        let mut sections = Vec::with_capacity(order.div_ceil(2));
        // Most damped pair first, as scipy orders them.
        for i in (0..order / 2).rev() {
            // Pole pair at angle θ = π(N − 1 − 2i)/(2N) from the negative real axis:
            // s² + 2 cos θ wa s + wa².
            let theta = PI * (order - 1 - 2 * i) as f64 / (2 * order) as f64;
            let two_zeta = 2.0 * theta.cos();
            // Bilinear s = k (1 − z⁻¹)/(1 + z⁻¹), numerator wa² (1 + z⁻¹)².
            let d0 = k * k + two_zeta * wa * k + wa * wa;
            let d1 = 2.0 * (wa * wa - k * k);
            let d2 = k * k - two_zeta * wa * k + wa * wa;
            let g = wa * wa / d0;
            sections.push(Biquad {
                b: [g, 2.0 * g, g],
                a: [d1 / d0, d2 / d0],
            });
        }
        if order % 2 == 1 {
            // Real pole: wa / (s + wa).
            let d0 = k + wa;
            let g = wa / d0;
            sections.push(Biquad {
                b: [g, g, 0.0],
                a: [(wa - k) / d0, 0.0],
            });
        }
        Ok(Butterworth {
            order,
            cutoff,
            rate,
            sections,
        })
    }

    /// `|H(f)|` of one pass at frequency `f` (Hz).
    pub fn magnitude(&self, f: f64) -> f64 {
        let w = 2.0 * PI * f / self.rate;
        let z1 = ::nalgebra::Complex::new(w.cos(), -w.sin());
        let z2 = z1 * z1;
        self.sections
            .iter()
            .map(|s| {
                let num = s.b[0] + z1 * s.b[1] + z2 * s.b[2];
                let den = 1.0 + z1 * s.a[0] + z2 * s.a[1];
                (num / den).norm()
            })
            .product()
    }

    /// Samples of odd reflection at each end: three times the cascade's length in taps, as
    /// scipy's default, and at least enough for the transient of the slowest pole to decay to
    /// 1e-12 (poles near `z = 1` for low cut-offs ring for many samples).
    pub fn padding(&self) -> usize {
        let taps = 3 * (2 * self.sections.len() + 1);
        taps.max(samples_to_decay(self.slowest_pole(), 1e-12))
    }

    /// Samples at each end of a filtered series within the end transient: until the slowest
    /// pole has decayed to 1e-6. Odd reflection continues a series with its curvature
    /// reversed (and a noisy end sample offsets the whole reflection), and the filter rings on
    /// that kink. Estimators leave these samples out.
    pub fn settling(&self) -> usize {
        samples_to_decay(self.slowest_pole(), 1e-6)
    }

    /// The largest pole modulus of the cascade.
    fn slowest_pole(&self) -> f64 {
        (self.sections.iter())
            .map(|s| largest_pole_radius(s.a))
            .fold(0.0, f64::max)
    }

    /// Runs the cascade over `x` in place, each section starting in its steady state for `x[0]`.
    fn cascade(&self, x: &mut [f64]) {
        let Some(&first) = x.first() else { return };
        let mut level = first;
        for s in &self.sections {
            s.run(x, s.steady_state(level));
            level *= s.dc_gain();
        }
    }

    /// The causally filtered `x`: the cascade run forward once, each section starting in its
    /// steady state for `x[0]` (as if the signal had held its first value forever), so a
    /// constant passes unchanged and a signal of frequency `f` leaves with gain `|H(f)|` and the
    /// filter's phase lag.
    pub fn filter(&self, x: &[f64]) -> Vec<f64> {
        let mut y = x.to_vec();
        self.cascade(&mut y);
        y
    }

    /// The zero-phase filtered `x` (module docs). A series shorter than the padding is
    /// reflected as far as it reaches (at least one sample is needed).
    pub fn filtfilt(&self, x: &[f64]) -> Vec<f64> {
        let n = x.len();
        if n < 2 {
            return x.to_vec();
        }
        let pad = self.padding().min(n - 1);
        let mut ext = Vec::with_capacity(n + 2 * pad);
        ext.extend((1..=pad).rev().map(|k| 2.0 * x[0] - x[k]));
        ext.extend_from_slice(x);
        ext.extend((1..=pad).map(|k| 2.0 * x[n - 1] - x[n - 1 - k]));
        self.cascade(&mut ext);
        ext.reverse();
        self.cascade(&mut ext);
        ext.reverse();
        ext[pad..pad + n].to_vec()
    }
}

/// Samples for a pole of modulus `radius` to decay to `level`.
fn samples_to_decay(radius: f64, level: f64) -> usize {
    if radius > 0.0 && radius < 1.0 {
        (level.ln() / radius.ln()).ceil() as usize
    } else {
        0
    }
}

/// Largest pole modulus of `1 + a1 z⁻¹ + a2 z⁻²`.
fn largest_pole_radius([a1, a2]: [f64; 2]) -> f64 {
    let disc = a1 * a1 - 4.0 * a2;
    if disc < 0.0 {
        a2.abs().sqrt()
    } else {
        let r = disc.sqrt();
        ((-a1 + r) / 2.0).abs().max(((-a1 - r) / 2.0).abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_design_is_minus_three_decibels_at_the_cut_off_and_flat_below() {
        for order in 1..=8 {
            let f = Butterworth::new(order, 25.0, 5000.0).unwrap();
            assert!((f.magnitude(25.0) - 0.5f64.sqrt()).abs() < 1e-12, "{order}");
            assert!((f.magnitude(0.0) - 1.0).abs() < 1e-12);
            // The analog prototype's |H|² = 1/(1 + (f/fc)^{2N}), warped: within 1e-6 far below.
            let expected = 1.0 / (1.0 + (2.5f64 / 25.0).powi(2 * order as i32)).sqrt();
            assert!((f.magnitude(2.5) - expected).abs() < 1e-6, "{order}");
        }
    }

    /// `scipy.signal.butter(4, 0.01, output="sos")` (scipy 1.17; Wn = 0.01 of Nyquist: 25 Hz
    /// at 5 kHz, FIGAROH's TX40 filter): the overall gain and both denominators.
    #[test]
    fn the_sections_are_scipys() {
        let f = Butterworth::new(4, 25.0, 5000.0).unwrap();
        let b0: f64 = f.sections.iter().map(|s| s.b[0]).product();
        assert!(
            (b0 / 5.845_142_433_144_487e-8 - 1.0).abs() < 1e-10,
            "{b0:e}"
        );
        let a: Vec<[f64; 2]> = f.sections.iter().map(|s| s.a).collect();
        let scipy = [
            [-1.942_638_230_540_113_5, 0.943_597_278_470_367_1],
            [-1.975_269_634_851_873, 0.976_244_792_359_439_8],
        ];
        for (ours, theirs) in a.iter().zip(scipy) {
            assert!((ours[0] - theirs[0]).abs() < 1e-13 && (ours[1] - theirs[1]).abs() < 1e-13);
        }
    }

    #[test]
    fn filtfilt_passes_a_slow_sine_and_a_ramp_unchanged_and_removes_a_fast_one() {
        let rate = 1000.0;
        let f = Butterworth::new(4, 20.0, rate).unwrap();
        let t: Vec<f64> = (0..2000).map(|k| k as f64 / rate).collect();
        let slow: Vec<f64> = t
            .iter()
            .map(|t| 0.3 + 2.0 * t + (2.0 * PI * t).sin())
            .collect();
        let fast: Vec<f64> = t.iter().map(|t| (2.0 * PI * 200.0 * t).sin()).collect();
        let mixed: Vec<f64> = slow.iter().zip(&fast).map(|(a, b)| a + b).collect();
        let out = f.filtfilt(&mixed);
        let settle = f.settling();
        let worst = (settle..2000 - settle)
            .map(|k| (out[k] - slow[k]).abs())
            .fold(0.0, f64::max);
        // 200 Hz is 10× the cut-off: |H|² ≈ 1e-8; 1 Hz passes with |H|² − 1 ≈ 1e-10. The fast
        // signal's last value (−0.95) offsets the odd reflection: a step of 1.9 whose ringing
        // has decayed to 1e-6 of it after the settling samples.
        assert!(worst < 4e-6, "{worst:e}");
        assert!((out[0] - slow[0]).abs() < 1.0);
    }
}
