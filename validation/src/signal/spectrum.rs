//! How much of a series lies above a frequency: the share of its RMS that a model whose inputs
//! were low-passed at that frequency cannot describe.

use rustfft::FftPlanner;
use rustfft::num_complex::Complex;

/// `sqrt(Σ_{f > f_c} |X(f)|² / Σ |X(f)|²)` of `x` sampled at `rate` (Hz), by Parseval the share of
/// its RMS (about zero, the mean included below `f_c`) carried by frequencies above `cutoff`
/// (Hz); 0 for an all-zero series. The periodogram is taken without a window: the series is one
/// record, and a window would move power across the edge.
pub fn share_above(x: &[f64], rate: f64, cutoff: f64) -> f64 {
    let n = x.len();
    if n == 0 {
        return 0.0;
    }
    let mut buf: Vec<Complex<f64>> = x.iter().map(|v| Complex::new(*v, 0.0)).collect();
    FftPlanner::new().plan_fft_forward(n).process(&mut buf);
    let (mut above, mut total) = (0.0, 0.0);
    for (k, c) in buf.iter().enumerate() {
        let f = k.min(n - k) as f64 * rate / n as f64;
        let p = c.norm_sqr();
        total += p;
        if f > cutoff {
            above += p;
        }
    }
    if total > 0.0 {
        (above / total).sqrt()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_equal_tones_put_half_the_power_above_a_cut_between_them() {
        let rate = 1000.0;
        let x: Vec<f64> = (0..1000)
            .map(|k| {
                let t = k as f64 / rate;
                (2.0 * std::f64::consts::PI * 5.0 * t).sin()
                    + (2.0 * std::f64::consts::PI * 50.0 * t).sin()
            })
            .collect();
        assert!((share_above(&x, rate, 20.0) - 0.5f64.sqrt()).abs() < 1e-12);
        assert!(share_above(&x, rate, 60.0) < 1e-12);
        assert!((share_above(&x, rate, 1.0) - 1.0).abs() < 1e-12);
        assert_eq!(share_above(&[0.0; 8], rate, 1.0), 0.0);
    }
}
