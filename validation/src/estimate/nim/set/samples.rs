//! What the learned set encoder reads of a run under paper sensing: per sample, every body's
//! measured quantities of MIM's equations ([`crate::estimate::mim::algorithm::body_equations`]),
//! and per run the stated force/torque noise — nothing a closed-form estimate has already
//! reduced.
//!
//! Per body and sample ([`PER_BODY`] values): the centroid's acceleration plus gravity `a + g e3`
//! (world, m/s²), the body-frame `ω̇` (rad/s²) and the products `ω2ω3`, `ω1ω3`, `ω1ω2`
//! ((rad/s)², the Euler regressor's entries), the resultant force from the two joints (world,
//! N) and its moment about the centroid (body frame, N·m). Per run and body ([`CONTEXT_PER_BODY`]):
//! `ln σ_f`, `ln σ_n`, the stated force and moment noise of the body's joint
//! ([`crate::estimate::mim::gls::WrenchNoise::rms`]).

use crate::estimate::NotApplicable;
use crate::estimate::mim::algorithm::body_equations;
use crate::estimate::mim::gls::WrenchNoise;
use sim::reading::Measurements;

/// Values per body and sample (module docs).
pub const PER_BODY: usize = 15;
/// Values per body in a run's context (module docs).
pub const CONTEXT_PER_BODY: usize = 2;
/// Samples the encoder reads of a run, evenly spaced over it (a run of the paper's record,
/// 2 s at 50 Hz, has 101).
pub const SAMPLES: usize = 100;

/// A run's set: [`SAMPLES`] rows of `PER_BODY × bodies` values (NaN in a row where a body's
/// Cardan rates are undefined) and its context.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleSet {
    /// Rows, row-major.
    pub rows: Vec<f64>,
    /// `CONTEXT_PER_BODY × bodies` values.
    pub context: Vec<f64>,
}

impl SampleSet {
    /// The set of `data` (module docs); `Err` with the reason where the run has fewer than
    /// [`SAMPLES`] samples or states no force/torque noise on some joint.
    pub fn of(data: &Measurements) -> Result<SampleSet, NotApplicable> {
        let n = data.samples();
        if n < SAMPLES {
            return Err(NotApplicable::new(format!(
                "needs at least {SAMPLES} samples (the set it was trained on), the run has {n}"
            )));
        }
        let noise = WrenchNoise::stated(data)?;
        let bodies = data.bodies.len();
        let mut rows = Vec::with_capacity(SAMPLES * PER_BODY * bodies);
        for i in 0..SAMPLES {
            let k = i * n / SAMPLES;
            for b in 0..bodies {
                rows.extend(match body_equations(data, b, k) {
                    Some((y, z)) => [
                        y[(0, 0)],
                        y[(1, 1)],
                        y[(2, 2)],
                        y[(3, 3)],
                        y[(4, 4)],
                        y[(5, 5)],
                        y[(4, 3)],
                        -y[(3, 4)],
                        -y[(5, 3)],
                        z[0],
                        z[1],
                        z[2],
                        z[3],
                        z[4],
                        z[5],
                    ],
                    None => [f64::NAN; PER_BODY],
                });
            }
        }
        let context = (0..bodies)
            .flat_map(|b| {
                let (f, m) = noise.rms(b);
                [f.ln(), m.ln()]
            })
            .collect();
        Ok(SampleSet { rows, context })
    }
}

/// Per column, the mean and standard deviation of the training values, mapping a value to
/// `(x − mean)/sd` (a NaN to 0, the mean).
#[derive(Clone, Debug, PartialEq)]
pub struct Standardization {
    mean: Vec<f64>,
    sd: Vec<f64>,
}

impl Standardization {
    /// Fitted on `rows` (row-major, `columns` wide), NaNs left out; a column that does not vary
    /// gets sd 1.
    pub fn fit<'a>(rows: impl Iterator<Item = &'a [f64]> + Clone, columns: usize) -> Self {
        let mut count = vec![0.0_f64; columns];
        let mut sum = vec![0.0_f64; columns];
        for row in rows.clone() {
            for (c, v) in row.chunks_exact(columns).flatten().enumerate() {
                if v.is_finite() {
                    count[c % columns] += 1.0;
                    sum[c % columns] += v;
                }
            }
        }
        let mean: Vec<f64> = sum
            .iter()
            .zip(&count)
            .map(|(s, n)| s / n.max(1.0_f64))
            .collect();
        let mut ss = vec![0.0_f64; columns];
        for row in rows {
            for (c, v) in row.chunks_exact(columns).flatten().enumerate() {
                if v.is_finite() {
                    ss[c % columns] += (v - mean[c % columns]).powi(2);
                }
            }
        }
        let sd = (ss.iter().zip(&count))
            .map(|(s, n)| (s / (n - 1.0).max(1.0)).sqrt())
            .map(|s| if s > 0.0 { s } else { 1.0 })
            .collect();
        Standardization { mean, sd }
    }

    /// `values` (row-major, as wide as the fit) standardized, bounded by
    /// [`crate::estimate::nim::INPUT_BOUND`].
    pub fn apply(&self, values: &[f64]) -> Vec<f32> {
        let bound = f64::from(super::super::INPUT_BOUND);
        (values.iter().enumerate())
            .map(|(i, &v)| {
                let c = i % self.mean.len();
                let z = (v - self.mean[c]) / self.sd[c];
                (if z.is_finite() {
                    z.clamp(-bound, bound)
                } else {
                    0.0
                }) as f32
            })
            .collect()
    }
}

/// Arms as the network reads them, standardized (this module's): per arm `samples` rows
/// of `row_width`, a context row and its targets.
#[derive(Clone, Debug, Default)]
pub struct SetData {
    /// Samples per arm.
    pub samples: usize,
    /// Values per sample row.
    pub row_width: usize,
    /// `arms × samples × row_width`, row-major.
    pub rows: Vec<f32>,
    /// `arms × context width`.
    pub context: Vec<f32>,
    /// `arms × targets`.
    pub targets: Vec<f32>,
    /// Arms.
    pub arms: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standardization_centres_scales_and_zeroes_missing_values() {
        let rows = [vec![1.0, 10.0, 3.0, 10.0], vec![f64::NAN, 10.0]];
        let s = Standardization::fit(rows.iter().map(|r| r.as_slice()), 2);
        // Column 0: 1, 3 → mean 2, sd √2; column 1 constant → sd 1.
        let z = s.apply(&[2.0 + 2f64.sqrt(), 11.0, f64::NAN, 10.0]);
        assert!(
            (z[0] - 1.0).abs() < 1e-6 && (z[1] - 1.0).abs() < 1e-6,
            "{z:?}"
        );
        assert_eq!(&z[2..], &[0.0, 0.0]);
    }
}
