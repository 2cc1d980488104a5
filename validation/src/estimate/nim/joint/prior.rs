//! The population a joint-level identifier is trained on, as a Gaussian prior on the base
//! parameters, and where the network starts: the Gaussian posterior of least squares and that
//! prior, parameter by parameter.

use serde::{Deserialize, Serialize};

/// The training arms' base parameters (their truths): mean and standard deviation per
/// parameter, in the parameters' own units (the base parameters'
/// [`crate::regressor::BaseParameters`]: kg, kg·m, kg·m² combinations).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prior {
    /// Mean per base parameter.
    pub mean: Vec<f64>,
    /// Sample standard deviation per base parameter (0 where the population does not vary it).
    pub sd: Vec<f64>,
}

/// A parameter's Gaussian posterior from a least-squares estimate and the prior.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    /// The posterior mean.
    pub centre: f64,
    /// The posterior standard deviation.
    pub scale: f64,
}

impl Prior {
    /// The prior of the training arms' base parameters `truths` (one vector per arm); `Err`
    /// with the reason if they are fewer than two or of different lengths (arms of different
    /// kinematic structures have different base parameters).
    pub fn of(truths: &[Vec<f64>]) -> crate::Result<Prior> {
        let Some(first) = truths.first().filter(|_| truths.len() >= 2) else {
            return Err(crate::Error::invalid(
                format!("{} training arms", truths.len()),
                "at least 2",
            ));
        };
        let n = first.len();
        if let Some((arm, t)) = truths.iter().enumerate().find(|(_, t)| t.len() != n) {
            return Err(crate::Error::invalid(
                format!("training arm {arm} ({} base parameters)", t.len()),
                format!("arms of one kinematic structure: the first arm's {n} base parameters"),
            ));
        }
        let count = truths.len() as f64;
        let mean: Vec<f64> = (0..n)
            .map(|k| truths.iter().map(|t| t[k]).sum::<f64>() / count)
            .collect();
        let sd = (0..n)
            .map(|k| {
                let ss: f64 = truths.iter().map(|t| (t[k] - mean[k]).powi(2)).sum();
                (ss / (count - 1.0)).sqrt()
            })
            .collect();
        Ok(Prior { mean, sd })
    }

    /// Base parameters.
    pub fn len(&self) -> usize {
        self.mean.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.mean.is_empty()
    }

    /// Parameter `k`'s posterior from the least-squares estimate `value` with standard
    /// deviation `std`: the precision-weighted mean `(x̂/s² + μ/σ²) / (1/s² + 1/σ²)` and
    /// `(1/s² + 1/σ²)^(-1/2)`. Without a finite, positive `std` the prior alone; where the
    /// population does not vary the parameter, the estimate alone (a population that does not
    /// vary it says nothing about the arm's value).
    pub fn anchor(&self, k: usize, value: f64, std: f64) -> Anchor {
        let (mu, sd) = (self.mean[k], self.sd[k]);
        let measured = value.is_finite() && std.is_finite() && std > 0.0;
        match (measured, sd > 0.0) {
            (true, true) => {
                let (a, b) = (1.0 / (std * std), 1.0 / (sd * sd));
                Anchor {
                    centre: (a * value + b * mu) / (a + b),
                    scale: (a + b).sqrt().recip(),
                }
            }
            (true, false) => Anchor {
                centre: value,
                scale: std,
            },
            (false, _) => Anchor {
                centre: mu,
                scale: sd.max(f64::MIN_POSITIVE),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_weighs_estimate_and_prior_by_their_precisions() {
        let prior = Prior::of(&[vec![1.0, 5.0], vec![3.0, 5.0]]).unwrap();
        assert_eq!(prior.mean, vec![2.0, 5.0]);
        assert!((prior.sd[0] - 2f64.sqrt()).abs() < 1e-15);
        assert_eq!(prior.sd[1], 0.0);
        // Equal precisions: halfway, the variance halved.
        let a = prior.anchor(0, 4.0, 2f64.sqrt());
        assert!((a.centre - 3.0).abs() < 1e-12 && (a.scale - 1.0).abs() < 1e-12);
        // A parameter the population does not vary: the estimate; no estimate: the prior.
        assert_eq!(prior.anchor(1, 7.0, 0.1).centre, 7.0);
        assert_eq!(prior.anchor(0, 9.0, f64::NAN).centre, 2.0);
        assert!(Prior::of(&[vec![1.0]]).is_err());
        assert!(Prior::of(&[vec![1.0], vec![1.0, 2.0]]).is_err());
    }
}
