//! A low-pass cut-off chosen from a recording's own spectrum.
//!
//! A joint trajectory's power lies below the motion's bandwidth; above it lie the sensor's
//! noise (encoder quantization, electrical noise) and, in a real arm, vibration, which the
//! differentiation to `q̈` amplifies by `f⁴`. The **signal edge** of one series is the frequency
//! below which all but [`OUTSIDE`] of its power lies (periodogram with a Hann window, linear trend
//! removed): the motion's bandwidth, whatever the noise floor. The cut-off is [`MARGIN`] times the
//! largest edge over the joints, kept within `[2/T, 0.4 f_s]` (`T` the record's span): at that
//! margin a 4th-order zero-phase Butterworth passes the motion to `(1/5)⁸ ≈ 3e-6`. On FIGAROH's
//! TX40 recording the edges are 2.7–3.8 Hz and the cut-off 19 Hz, beside FIGAROH's own 25 Hz. The
//! choice and its inputs are reported ([`SpectrumChoice`], the run directory's record).

use rustfft::FftPlanner;
use rustfft::num_complex::Complex;
use sim::dataset::recorded::SpectrumChoice;

/// The share of a series' power left above its signal edge.
pub const OUTSIDE: f64 = 1e-4;
/// Cut-off over the signal edge.
pub const MARGIN: f64 = 5.0;

/// The signal edge (Hz) of `x` sampled at `rate` (Hz); module docs.
pub fn edge(x: &[f64], rate: f64) -> f64 {
    let n = x.len();
    if n < 16 {
        return rate / 2.0;
    }
    // Remove the least-squares line, then a Hann window.
    let mean_k = (n - 1) as f64 / 2.0;
    let mean_x = x.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (k, v) in x.iter().enumerate() {
        sxy += (k as f64 - mean_k) * (v - mean_x);
        sxx += (k as f64 - mean_k).powi(2);
    }
    let slope = sxy / sxx;
    let mut buf: Vec<Complex<f64>> = x
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let w = 0.5 - 0.5 * (2.0 * std::f64::consts::PI * k as f64 / (n - 1) as f64).cos();
            Complex::new(w * (v - mean_x - slope * (k as f64 - mean_k)), 0.0)
        })
        .collect();
    FftPlanner::new().plan_fft_forward(n).process(&mut buf);
    let half = n / 2 + 1;
    let power: Vec<f64> = buf[..half].iter().map(|c| c.norm_sqr()).collect();
    let total: f64 = power.iter().sum();
    if total <= 0.0 {
        return rate / n as f64;
    }
    let mut below = 0.0;
    let bin = rate / n as f64;
    for (i, p) in power.iter().enumerate() {
        below += p;
        if below >= (1.0 - OUTSIDE) * total {
            return i as f64 * bin;
        }
    }
    (half - 1) as f64 * bin
}

/// The cut-off for the series `xs` sampled at `rate` (Hz) over `span` seconds; module docs.
pub fn choose(xs: &[&[f64]], rate: f64, span: f64) -> SpectrumChoice {
    let edges: Vec<f64> = xs.iter().map(|x| edge(x, rate)).collect();
    let largest = edges.iter().copied().fold(0.0, f64::max);
    let low = (2.0 / span).min(0.4 * rate);
    SpectrumChoice {
        cutoff: (MARGIN * largest).clamp(low, 0.4 * rate),
        edges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_cut_off_lies_between_the_motion_and_the_quantization_floor() {
        let rate = 1000.0;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let t: Vec<f64> = (0..10_000).map(|k| k as f64 / rate).collect();
        // Motion up to 2 Hz, a 1e-4 rad encoder (quantized), a little white noise.
        let q: Vec<f64> = t
            .iter()
            .map(|t| {
                let w = 2.0 * std::f64::consts::PI * 0.5;
                let motion = 0.8 * (w * t).sin() + 0.2 * (4.0 * w * t).cos();
                ((motion + 1e-5 * rng.random_range(-1.0..1.0)) / 1e-4).round() * 1e-4
            })
            .collect();
        let c = choose(&[&q], rate, 10.0);
        assert!(c.edges[0] > 2.0 && c.cutoff < 30.0, "{c:?}");
    }
}
