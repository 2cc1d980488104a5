//! A prior on a simulation fit's terms: the start as what is known before the logs.
//!
//! A servo arm's logs may not pin every term: where two terms trade against each other (a
//! servo's `k_d` and the joint's damping act alike until the servo saturates), or where the
//! logs barely excite one, an unregularized fit wanders to values no motor has (on a real
//! SO-101: servo damping of hundreds of N·m·s/rad, which also asks the explicit step for
//! microseconds). The prior keeps each term near its start unless the logs demand otherwise:
//! Gaussian in the fit's coordinates, the log of a positive term with one σ of `ln factor` (a
//! term within `[start / factor, start · factor]` at one σ), a delay with one σ of `delay`.
//!
//! **Weight.** The prior is added to the cost as rows `w · (x − x₀) / σ`. A window's residuals
//! are correlated in time (one error in its start state moves all of them), so a window counts
//! as one observation, not as its `L` rows (samples × joints): the data's cost, over the residual
//! variance `s²`, is divided by `L`; multiplied back by `L s²`, the prior's rows carry
//! `w = √L · s`, with `s` the RMS residual at the start (fixed for the fit, so the cost stays one
//! function). The σ the fit states then hold the prior's information beside the logs'.

use super::Term;

/// The prior on every term (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// One σ of a positive term, as a factor of its start (> 1).
    pub factor: f64,
    /// One σ of a command delay (s, > 0).
    pub delay: f64,
}

impl Default for Prior {
    /// A factor of 3, and 50 ms.
    fn default() -> Self {
        Prior {
            factor: 3.0,
            delay: 0.05,
        }
    }
}

/// The prior as the fit applies it: its centre, scales and weight.
#[derive(Clone, Debug)]
pub(super) struct Rows {
    centre: Vec<f64>,
    sigma: Vec<f64>,
    weight: f64,
}

impl Rows {
    /// The prior centred on the coordinates `x0` of `terms`, weighted for windows of
    /// `rows_per_window` residuals whose RMS at the start is `rms`.
    pub(super) fn new(
        prior: Prior,
        terms: &[Term],
        x0: &[f64],
        rows_per_window: f64,
        rms: f64,
    ) -> Self {
        Rows {
            centre: x0.to_vec(),
            sigma: (terms.iter())
                .map(|t| {
                    if t.positive() {
                        prior.factor.ln()
                    } else {
                        prior.delay
                    }
                })
                .collect(),
            weight: rows_per_window.sqrt() * rms,
        }
    }

    /// The prior's rows at the coordinates `x`, appended to `r`.
    pub(super) fn append(&self, x: &[f64], r: &mut Vec<f64>) {
        let rows = (x.iter().zip(&self.centre).zip(&self.sigma))
            .map(|((x, c), s)| self.weight * (x - c) / s);
        r.extend(rows);
    }
}
