//! Derivatives of uniformly sampled series: fourth-order five-point finite differences,
//! central in the interior and one-sided (the five first or last samples) at the two samples of
//! each end; exact for polynomials of degree ≤ 4, truncation `O(h⁴)` otherwise. Noise is not
//! filtered here: a step `r` of quantization gives `q̇` errors of order `r/h` and `q̈` errors of
//! order `r/h²` ([`super::butterworth`] is the filter).

/// Stencils for the first derivative at offset `s` (0..5) within a window of five samples
/// (times `1/(12 h)`).
const D1: [[f64; 5]; 5] = [
    [-25.0, 48.0, -36.0, 16.0, -3.0],
    [-3.0, -10.0, 18.0, -6.0, 1.0],
    [1.0, -8.0, 0.0, 8.0, -1.0],
    [-1.0, 6.0, -18.0, 10.0, 3.0],
    [3.0, -16.0, 36.0, -48.0, 25.0],
];
/// Stencils for the second derivative (times `1/(12 h²)`).
const D2: [[f64; 5]; 5] = [
    [35.0, -104.0, 114.0, -56.0, 11.0],
    [11.0, -20.0, 6.0, 4.0, -1.0],
    [-1.0, 16.0, -30.0, 16.0, -1.0],
    [-1.0, 4.0, 6.0, -20.0, 11.0],
    [11.0, -56.0, 114.0, -104.0, 35.0],
];

/// `Σ stencil · window` at every sample, divided by `scale`.
fn apply(x: &[f64], stencils: &[[f64; 5]; 5], scale: f64) -> Vec<f64> {
    let n = x.len();
    assert!(
        n >= 5,
        "five-point differences need at least 5 samples, got {n}"
    );
    (0..n)
        .map(|k| {
            let start = k.saturating_sub(2).min(n - 5);
            let w = &x[start..start + 5];
            stencils[k - start]
                .iter()
                .zip(w)
                .map(|(c, v)| c * v)
                .sum::<f64>()
                / scale
        })
        .collect()
}

/// The first derivative of `x` sampled every `h` seconds. Needs at least five samples.
pub fn first(x: &[f64], h: f64) -> Vec<f64> {
    apply(x, &D1, 12.0 * h)
}

/// The second derivative of `x` sampled every `h` seconds. Needs at least five samples.
pub fn second(x: &[f64], h: f64) -> Vec<f64> {
    apply(x, &D2, 12.0 * h * h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartics_are_differentiated_exactly_and_a_sine_to_fourth_order() {
        let h = 0.01;
        let t: Vec<f64> = (0..40).map(|k| k as f64 * h).collect();
        let p: Vec<f64> = t
            .iter()
            .map(|t| 1.0 - t + 2.0 * t.powi(3) - 0.5 * t.powi(4))
            .collect();
        for (k, (d1, d2)) in first(&p, h).iter().zip(second(&p, h)).enumerate() {
            let s = t[k];
            assert!((d1 - (-1.0 + 6.0 * s * s - 2.0 * s.powi(3))).abs() < 1e-10);
            assert!((d2 - (12.0 * s - 6.0 * s * s)).abs() < 1e-8);
        }
        let w = 2.0;
        let x: Vec<f64> = t.iter().map(|t| (w * t).sin()).collect();
        let d1 = first(&x, h);
        let worst = (2..38)
            .map(|k| (d1[k] - w * (w * t[k]).cos()).abs())
            .fold(0.0, f64::max);
        // Truncation h⁴ w⁵ / 30.
        assert!(worst < 2.0 * h.powi(4) * w.powi(5) / 30.0, "{worst:e}");
    }
}
