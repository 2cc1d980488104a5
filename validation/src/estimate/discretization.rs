//! The bias of an estimator whose model is discretized at the data's sample period, estimated
//! from the data as Richardson's extrapolation does, and the standard deviations that cover it.
//!
//! An estimator that integrates its model from sample to sample (the Kalman filters,
//! [`crate::estimate::idim::kalman`]) or differentiates the sampled angles (`mim_encoders`,
//! five-point differences) is biased by its discretization, even on exact data: by `C T^p` for a
//! discretization of order `p` at the period `T`. Run again on every other sample (period `2T`) it
//! gives a value biased by `C (2T)^p`, so the two differ by `(2^p − 1)` times the bias at `T`:
//! [`bias`]. That error is not white (it does not average out over the samples), so the
//! least-squares or posterior standard deviation the estimator computes does not cover it; the
//! deviations such an estimator states are `√(σ² + bias²)` ([`widen`]). On noisy data the
//! difference holds the two passes' noise too, which widens a deviation by some per cent.
//! Issue 61's identifiability test checks these estimators' values against three of the
//! deviations they state (`validation/tests/suite/identifiable_draws.rs`).

use crate::param::Values;

/// The bias at the data's period of an estimate of value `whole` there and `halved` on every
/// other sample, for a discretization of order `order`: `|whole − halved| / (2^order − 1)`.
pub fn bias(whole: f64, halved: f64, order: i32) -> f64 {
    (whole - halved).abs() / (2f64.powi(order) - 1.0)
}

/// `whole`'s standard deviations widened by the bias ([`bias`]) of each value that `halved`
/// estimates too: `√(σ² + bias²)`. A value without a deviation keeps none.
pub fn widen(whole: &mut Values, halved: &Values, order: i32) {
    for (id, estimate) in whole.iter_mut() {
        let other = halved.get(id).and_then(|e| e.value);
        if let (Some(v), Some(h), Some(s)) = (estimate.value, other, estimate.std) {
            estimate.std = Some(s.hypot(bias(v, h, order)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second-order rule's value `x + C T²` at `T` and `2T`: the bias at `T` recovered exactly.
    #[test]
    fn the_bias_of_an_order_p_rule_is_recovered_from_two_periods() {
        for (c, t, p) in [(3.0, 1e-3, 2), (-0.7, 2e-3, 2), (5.0, 1e-2, 4)] {
            let truth = 1.25;
            let at = |period: f64| truth + c * f64::powi(period, p);
            let b = bias(at(t), at(2.0 * t), p);
            assert!(
                (b - (c * f64::powi(t, p)).abs()).abs() < 1e-12 * truth,
                "{b:e}"
            );
        }
    }
}
