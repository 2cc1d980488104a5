//! Summary statistics of repeated estimates of one parameter.

use std::collections::BTreeMap;

/// Bias, spread and error of the estimates of one parameter over repeated experiments.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Mean true value.
    pub truth: f64,
    /// Mean estimate.
    pub mean: f64,
    /// Mean of `estimate − truth`.
    pub bias: f64,
    /// Sample standard deviation of the estimates (`n − 1`; 0 for one run).
    pub std: f64,
    /// `sqrt(mean((estimate − truth)²))`.
    pub rmse: f64,
    /// Number of estimates.
    pub runs: usize,
}

impl Summary {
    /// The summary of `(truth, estimate)` pairs; `None` for none.
    pub fn of(pairs: &[(f64, f64)]) -> Option<Summary> {
        if pairs.is_empty() {
            return None;
        }
        let n = pairs.len() as f64;
        let truth = pairs.iter().map(|p| p.0).sum::<f64>() / n;
        let mean = pairs.iter().map(|p| p.1).sum::<f64>() / n;
        let bias = pairs.iter().map(|p| p.1 - p.0).sum::<f64>() / n;
        let var = if pairs.len() > 1 {
            pairs.iter().map(|p| (p.1 - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let mse = pairs.iter().map(|p| (p.1 - p.0).powi(2)).sum::<f64>() / n;
        Some(Summary {
            truth,
            mean,
            bias,
            std: var.sqrt(),
            rmse: mse.sqrt(),
            runs: pairs.len(),
        })
    }
}

/// The `p`-quantile of `values` (`p` in `[0, 1]`), interpolated linearly between the sorted
/// values (so the median of an even count is the mean of the middle two); NaN for none.
pub fn quantile(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n => {
            let x = p.clamp(0.0, 1.0) * (n - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            if lo == hi {
                v[lo]
            } else {
                v[lo] + (x - lo as f64) * (v[hi] - v[lo])
            }
        }
    }
}

/// The median of `values` ([`quantile`] at ½); NaN for none.
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// Per `(method, parameter)` over the rows with a truth and an estimate.
pub(crate) fn summarize(
    rows: &[crate::estimate::score::Row],
) -> BTreeMap<(String, String), Summary> {
    let mut pairs: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let (Some(t), Some(e)) = (r.truth, r.estimate) {
            pairs
                .entry((r.method.clone(), r.parameter.clone()))
                .or_default()
                .push((t, e));
        }
    }
    pairs
        .into_iter()
        .filter_map(|(k, p)| Summary::of(&p).map(|s| (k, s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_equals_a_direct_computation() {
        let pairs = [(2.0, 2.5), (2.0, 1.0), (2.0, 3.0), (2.0, 2.1)];
        let s = Summary::of(&pairs).unwrap();
        // By hand: estimates 2.5, 1.0, 3.0, 2.1; mean 2.15; errors 0.5, −1, 1, 0.1.
        assert!((s.mean - 2.15).abs() < 1e-15);
        assert!((s.bias - 0.15).abs() < 1e-15);
        let var = ((0.35f64).powi(2) + 1.15f64.powi(2) + 0.85f64.powi(2) + 0.05f64.powi(2)) / 3.0;
        assert!((s.std - var.sqrt()).abs() < 1e-15);
        assert!((s.rmse - ((0.25 + 1.0 + 1.0 + 0.01) / 4.0f64).sqrt()).abs() < 1e-15);
        assert_eq!(s.runs, 4);
        // RMSE² = bias² + (n−1)/n · std².
        assert!((s.rmse.powi(2) - s.bias.powi(2) - 0.75 * s.std.powi(2)).abs() < 1e-14);
        assert_eq!(Summary::of(&[]), None);
    }

    #[test]
    fn quantiles_interpolate_between_the_sorted_values() {
        assert_eq!(super::median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(super::quantile(&[0.0, 10.0], 0.9), 9.0);
        assert!(super::median(&[]).is_nan());
    }
}
