//! Scores estimates against the ground truth: the only place that reads [`Truth`].

use crate::dataset::Truth;
use crate::estimator::{Estimate, Parameter};

/// One scored parameter.
#[derive(Clone, Debug)]
pub struct Scored {
    /// Estimator name.
    pub method: String,
    /// Body (1-based).
    pub body: u8,
    /// Parameter.
    pub parameter: Parameter,
    /// True value.
    pub truth: f64,
    /// Estimate (`None`: not identifiable from the data).
    pub estimate: Option<f64>,
}

impl Scored {
    /// `estimate − truth` (the sign convention of the MIM paper's Table 3).
    pub fn abs_error(&self) -> Option<f64> {
        self.estimate.map(|e| e - self.truth)
    }

    /// `(estimate − truth) / truth`.
    pub fn rel_error(&self) -> Option<f64> {
        self.abs_error().map(|e| e / self.truth)
    }
}

/// Scores the estimates of one method.
pub fn score(method: &str, estimates: &[Estimate], truth: &Truth) -> Vec<Scored> {
    estimates
        .iter()
        .filter_map(|e| {
            let body = truth.bodies.iter().find(|b| b.body == e.body)?;
            Some(Scored {
                method: method.to_string(),
                body: e.body,
                parameter: e.parameter,
                truth: e.parameter.truth(body),
                estimate: e.value,
            })
        })
        .collect()
}
