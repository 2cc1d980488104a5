//! Samples held from one to the next (a zero-order hold): what a digital controller or a logged
//! command stream gives a joint. Shared by the held torque signal
//! ([`crate::drive::Signal::Held`]) and the held command profile ([`super::Profile::Held`]).
//!
//! Sample `k` (0-based) is given at `start + k · period` and holds until the next; before
//! `start` the first sample holds, after the last sample's time the last one holds.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, positive};

/// Times within this fraction of a period below a sample time count as that sample's: a step
/// time `k·dt` computed in floating point must not fall one sample short.
const HOLD_ROUNDING: f64 = 1e-9;

/// Samples on a uniform grid, each held until the next (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Held {
    /// Time of the first sample (s).
    pub start: f64,
    /// Sample interval (s).
    pub period: f64,
    /// The samples (the unit of what is held).
    pub values: Vec<f64>,
}

impl Held {
    /// The sample holding at `t` (s); 0 where there are no samples.
    pub fn eval(&self, t: f64) -> f64 {
        self.values.get(self.index(t)).copied().unwrap_or(0.0)
    }

    /// The index of the sample holding at `t`.
    fn index(&self, t: f64) -> usize {
        let k = ((t - self.start) / self.period + HOLD_ROUNDING)
            .floor()
            .max(0.0) as usize;
        k.min(self.values.len().saturating_sub(1))
    }

    /// The mean of what holds over `[t0, t1)` (s), exact: each sample weighted by the part of
    /// the span it holds for; the value at `t0` where the span is empty.
    pub fn mean(&self, t0: f64, t1: f64) -> f64 {
        if t1 <= t0 || self.values.is_empty() {
            return self.eval(t0);
        }
        let (mut a, mut sum) = (t0, 0.0);
        while a < t1 {
            let k = self.index(a);
            let switch = match k + 1 < self.values.len() {
                true => self.start + (k + 1) as f64 * self.period,
                false => f64::INFINITY,
            };
            let b = if switch < t1 - HOLD_ROUNDING * self.period {
                switch
            } else {
                t1
            };
            sum += self.values[k] * (b - a);
            a = b;
        }
        sum / (t1 - t0)
    }

    /// Every sample multiplied by `k`.
    pub fn scaled(&self, k: f64) -> Held {
        Held {
            values: self.values.iter().map(|v| v * k).collect(),
            ..self.clone()
        }
    }

    /// Checks the grid and the samples; `Err` names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        finite("start", self.start)?;
        positive("period", self.period, "sample interval in s")?;
        if self.values.is_empty() {
            return Err(("values".into(), "expected at least one sample".into()));
        }
        self.values.iter().try_for_each(|v| finite("values", *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sample_holds_until_the_next() {
        let h = Held {
            start: 1.0,
            period: 0.1,
            values: vec![3.0, 4.0, 5.0],
        };
        assert_eq!(h.eval(0.0), 3.0);
        assert_eq!(h.eval(1.0), 3.0);
        assert_eq!(h.eval(1.0 + 0.1 * 1.0), 4.0);
        // A step time computed as k·dt lands on its sample, not one short.
        let dt = 0.1 / 7.0;
        assert_eq!(h.eval(1.0 + 14.0 * dt), 5.0);
        assert_eq!(h.eval(1.19), 4.0);
        assert_eq!(h.eval(9.0), 5.0);
        assert_eq!(h.scaled(2.0).eval(1.15), 8.0);
        let empty = Held {
            values: vec![],
            ..h.clone()
        };
        assert_eq!(empty.validate().unwrap_err().0, "values");
        assert_eq!(empty.eval(1.0), 0.0);
        // The mean over a span: exact weights of the samples it covers.
        assert!((h.mean(1.05, 1.15) - 3.5).abs() < 1e-12);
        assert!((h.mean(1.05, 1.25) - (3.0 * 0.05 + 4.0 * 0.1 + 5.0 * 0.05) / 0.2).abs() < 1e-12);
        assert_eq!(h.mean(1.1, 1.1 + 0.1 / 7.0), 4.0);
        assert_eq!(h.mean(0.0, 0.5), 3.0);
        assert_eq!(h.mean(2.0, 3.0), 5.0);
        let bad = Held { period: 0.0, ..h };
        assert_eq!(bad.validate().unwrap_err().0, "period");
    }
}
