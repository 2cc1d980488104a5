//! Scalar laws of populations: constant, uniform, normal and log-normal, optionally truncated
//! to `[low, high]` by rejection; bounds that exclude the law are refused when a file is read.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{LogNormal, Normal};
use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative};

/// A scalar distribution, optionally truncated to `[low, high]` by rejection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Distribution {
    /// Always `value`.
    Constant {
        /// The value.
        value: f64,
    },
    /// Uniform on `[low, high)`.
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Normal with `mean` and standard deviation `std`, truncated to `[low, high]`.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
        /// Lower bound (default none).
        #[serde(default)]
        low: Option<f64>,
        /// Upper bound (default none).
        #[serde(default)]
        high: Option<f64>,
    },
    /// Log-normal: `ln x` is normal with mean `mu` and standard deviation `sigma` (the median
    /// is `e^mu`), truncated to `[low, high]`.
    LogNormal {
        /// Mean of `ln x`.
        mu: f64,
        /// Standard deviation of `ln x`.
        sigma: f64,
        /// Lower bound (default none).
        #[serde(default)]
        low: Option<f64>,
        /// Upper bound (default none).
        #[serde(default)]
        high: Option<f64>,
    },
}

/// Rejection attempts before a truncated distribution is declared out of reach.
const MAX_REJECTIONS: usize = 10_000;

impl Distribution {
    /// The distribution of `factor · x` (`factor > 0`): every location, spread and bound scaled
    /// (a log-normal's `mu` shifted by `ln factor`), e.g. a density 20 % higher, out of the
    /// distribution a population was trained on.
    pub fn scaled(&self, factor: f64) -> Distribution {
        let bound = |b: &Option<f64>| b.map(|b| factor * b);
        match self {
            Distribution::Constant { value } => Distribution::Constant {
                value: factor * value,
            },
            Distribution::Uniform { low, high } => Distribution::Uniform {
                low: factor * low,
                high: factor * high,
            },
            Distribution::Normal {
                mean,
                std,
                low,
                high,
            } => Distribution::Normal {
                mean: factor * mean,
                std: factor * std,
                low: bound(low),
                high: bound(high),
            },
            Distribution::LogNormal {
                mu,
                sigma,
                low,
                high,
            } => Distribution::LogNormal {
                mu: mu + factor.ln(),
                sigma: *sigma,
                low: bound(low),
                high: bound(high),
            },
        }
    }

    /// Draws one value.
    pub fn sample(&self, rng: &mut ChaCha8Rng) -> f64 {
        // A draw of `law` within `[low, high]`, by rejection.
        fn truncated(
            law: impl rand_distr::Distribution<f64>,
            low: &Option<f64>,
            high: &Option<f64>,
            rng: &mut ChaCha8Rng,
        ) -> f64 {
            (0..MAX_REJECTIONS)
                .map(|_| law.sample(rng))
                .find(|x| low.is_none_or(|l| *x >= l) && high.is_none_or(|h| *x <= h))
                .expect("validated: the bounds hold enough probability")
        }
        match self {
            Distribution::Constant { value } => *value,
            Distribution::Uniform { low, high } => low + (high - low) * rng.random::<f64>(),
            Distribution::Normal {
                mean,
                std,
                low,
                high,
            } => truncated(Normal::new(*mean, *std).expect("validated"), low, high, rng),
            Distribution::LogNormal {
                mu,
                sigma,
                low,
                high,
            } => truncated(
                LogNormal::new(*mu, *sigma).expect("validated"),
                low,
                high,
                rng,
            ),
        }
    }

    /// Checks the parameters; `Err` names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let bounds = |low: &Option<f64>, high: &Option<f64>| -> Result<(), ParamError> {
            if let (Some(l), Some(h)) = (low, high)
                && l >= h
            {
                return Err((
                    "high".into(),
                    format!("expected more than low = {l}, got {h}"),
                ));
            }
            low.map_or(Ok(()), |l| finite("low", l))?;
            high.map_or(Ok(()), |h| finite("high", h))
        };
        match self {
            Distribution::Constant { value } => finite("value", *value),
            Distribution::Uniform { low, high } => {
                finite("low", *low)?;
                finite("high", *high)?;
                if low >= high {
                    return Err(("high".into(), format!("expected more than low = {low}")));
                }
                Ok(())
            }
            Distribution::Normal {
                mean,
                std,
                low,
                high,
            } => {
                finite("mean", *mean)?;
                non_negative("std", *std)?;
                bounds(low, high)?;
                // The bounds must hold a reasonable share of the distribution.
                let z = |b: f64| (b - mean) / std.max(f64::MIN_POSITIVE);
                if low.is_some_and(|l| z(l) > 3.0) || high.is_some_and(|h| z(h) < -3.0) {
                    return Err((
                        "low/high".into(),
                        "expected bounds that include values within 3 std of the mean".into(),
                    ));
                }
                Ok(())
            }
            Distribution::LogNormal {
                mu,
                sigma,
                low,
                high,
            } => {
                finite("mu", *mu)?;
                non_negative("sigma", *sigma)?;
                bounds(low, high)?;
                let z =
                    |b: f64| (b.max(f64::MIN_POSITIVE).ln() - mu) / sigma.max(f64::MIN_POSITIVE);
                if low.is_some_and(|l| z(l) > 3.0) || high.is_some_and(|h| z(h) < -3.0) {
                    return Err((
                        "low/high".into(),
                        "expected bounds that include values within 3 sigma of e^mu".into(),
                    ));
                }
                Ok(())
            }
        }
    }
}
