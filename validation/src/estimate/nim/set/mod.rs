//! A learned set encoder for paper sensing (issue 28's "measure and choose"): the alternative
//! to the run-level NIM's closed-form encoder ([`crate::estimate::nim::joint`]), measured beside
//! it on the same held-out arms ([`crate::study::paper_sensing`]).
//!
//! The run-level NIM encodes a run by MIM-GLS's estimate and Cramér–Rao σ — for a model linear
//! in its parameters the sufficient statistics, sum-pooled normal equations solved in closed
//! form — and learns only the decoder. Here the encoder is learned too: DeepSets
//! ([`network`]), `φ` on every sample's measured quantities of every body ([`samples`]: the
//! MIM equations' accelerations, angular rates and wrenches, not their products or any
//! estimate), mean-pooled over the run, `ρ` from the pool and the run's stated noise to each
//! parameter's value and log-variance, in units of the training population's spread (the
//! population mean is where it starts: outputs `r`, `v` give `μ + σ r` and `σ e^{v/2}`).
//! The same parameters and answer as the paper-sensing NIM (MIM's six per body, each body's
//! mass the per-axis mass with the smallest σ), its σ scaled on calibration arms as the NIM's.
//!
//! What it has to learn that the closed form gets for free: the products of regressor and
//! wrench entries whose sums are the normal equations, and a 3 × 3 solve per body from their
//! pooled means.
//!
//! **Measured, and the choice** (`cargo xtask reproduce --only paper_sensing`, the
//! paper-sensing chapter; 4800 training arms, 200 held out): its median moment error is
//! 6.1–6.9 % in every noise band (0.05…50 × 10⁻³ of the signals' RMS), where the closed-form
//! encoder's NIM has 0.73 / 2.0 / 4.4 / 6.6 % and MIM-GLS 1.0 / 3.0 / 12 / 27 %: as good as the
//! NIM only where the noise is largest (with a smaller 90th percentile there, 9.9 % against
//! 16 %), five to nine times worse where the run determines the moments. Trained twice as long
//! (16 000 steps, measured once while choosing) it stays at 6.2–7.0 %: the floor is what mean-
//! pooled learned features can compute, not the training length. Its σ is calibrated (±2σ
//! covers 97–98 %). The run-level NIM keeps the closed-form encoder.
//!
//! Not in the registry: it is trained and scored inside the study (method
//! [`SetNim::NAME`]), and saves no files.

pub mod network;
pub mod samples;

use nalgebra::DVector;

use samples::{SampleSet, Standardization};

use super::dense::Dense;
use super::joint::Prior;
use super::joint::bodies::answer;
use super::joint::sensing::body_parameters;
use super::{LOG_VARIANCE_BOUNDS, OUTPUT_BOUND};
use crate::estimate::Family;
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};

/// A trained set encoder's forward pass, without burn: `φ` per sample row, the mean over a
/// run's rows, `ρ` on the mean and the run's context.
#[derive(Clone, Debug, PartialEq)]
pub struct SetEncoder {
    phi: Dense,
    rho: Dense,
    samples: usize,
}

impl SetEncoder {
    /// The encoder of `φ` and `ρ` reading `samples` rows per run.
    pub fn new(phi: Dense, rho: Dense, samples: usize) -> Self {
        SetEncoder { phi, rho, samples }
    }

    /// The outputs (per arm: means, then log-variances) of arms' standardized `rows` (`samples`
    /// per arm) and `context` (one row per arm).
    pub fn outputs(&self, rows: &[f32], context: &[f32]) -> Vec<f32> {
        let h = self.phi.forward(rows);
        let width = *self.phi.widths().last().expect("φ has layers");
        let arms = h.len() / (width * self.samples).max(1);
        let c = context.len() / arms.max(1);
        let mut x = Vec::with_capacity(arms * (width + c));
        for (arm, block) in h.chunks_exact(width * self.samples).enumerate() {
            let sum = (block.chunks_exact(width)).fold(DVector::<f32>::zeros(width), |s, r| {
                s + DVector::from_column_slice(r)
            });
            x.extend((sum / self.samples as f32).iter());
            x.extend(&context[arm * c..(arm + 1) * c]);
        }
        self.rho.forward(&x)
    }

    /// The mean Gaussian NLL per target of `data`'s targets under its outputs (log-variances
    /// within [`LOG_VARIANCE_BOUNDS`]).
    pub fn nll(&self, data: &samples::SetData) -> f64 {
        let out = self.outputs(&data.rows, &data.context);
        let t = data.targets.len() / data.arms.max(1);
        let (lo, hi) = LOG_VARIANCE_BOUNDS;
        let mut sum = 0.0;
        for (o, y) in out.chunks_exact(2 * t).zip(data.targets.chunks_exact(t)) {
            for k in 0..t {
                let v = f64::from(o[t + k].clamp(lo, hi));
                let e = f64::from(o[k] - y[k]);
                sum += 0.5 * (v + e * e * (-v).exp());
            }
        }
        sum / (data.arms * t).max(1) as f64
    }
}

/// The learned set encoder as an estimator (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SetNim {
    /// The trained network.
    pub encoder: SetEncoder,
    /// The sample rows' standardization (fitted on the training arms).
    pub rows: Standardization,
    /// The context's.
    pub context: Standardization,
    /// The training arms' parameters (MIM's six per body): the targets' centre and scale.
    pub prior: Prior,
    /// Factor on the network's σ fitted on calibration arms (1: uncalibrated).
    pub sigma_scale: f64,
}

impl SetNim {
    /// Its method name.
    pub const NAME: &'static str = "nim_deep_sets";

    /// The network's standardized inputs of a run's set: rows and context.
    pub fn inputs(&self, set: &SampleSet) -> (Vec<f32>, Vec<f32>) {
        (self.rows.apply(&set.rows), self.context.apply(&set.context))
    }

    /// `(value, std)` of every parameter (MIM's six per body) from the network's `outputs`
    /// for one arm.
    pub(crate) fn decode(&self, outputs: &[f32]) -> Vec<(f64, f64)> {
        let n = self.prior.len();
        let (lo, hi) = LOG_VARIANCE_BOUNDS;
        (0..n)
            .map(|k| {
                let sd = target_scale(&self.prior, k);
                let r = f64::from(outputs[k].clamp(-OUTPUT_BOUND, OUTPUT_BOUND));
                let v = f64::from(outputs[n + k].clamp(lo, hi));
                (
                    self.prior.mean[k] + sd * r,
                    sd * (v / 2.0).exp() * self.sigma_scale,
                )
            })
            .collect()
    }
}

impl SetNim {
    /// The run of `experiment` and its set, or why the model does not apply: another body
    /// count, too few samples, no stated force/torque noise.
    fn read<'a>(
        &self,
        experiment: &Experiment<'a>,
    ) -> Result<(&'a sim::reading::Measurements, SampleSet), NotApplicable> {
        let data = crate::estimate::single(experiment)?;
        let n = body_parameters(data.bodies.len()).len();
        if n != self.prior.len() {
            return Err(NotApplicable::new(format!(
                "trained on arms with {} bodies, the run has {}",
                self.prior.len() / 6,
                data.bodies.len()
            )));
        }
        Ok((data, SampleSet::of(data)?))
    }
}

/// The scale of target `k`: the population's spread, 1 where it does not vary.
pub(crate) fn target_scale(prior: &Prior, k: usize) -> f64 {
    if prior.sd[k] > 0.0 { prior.sd[k] } else { 1.0 }
}

impl Estimator for SetNim {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn family(&self) -> Family {
        Family::Nim
    }

    fn needs(&self) -> &str {
        "a trained set encoder and a single run read by force/torque sensors"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        self.read(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, set) = self
            .read(experiment)
            .map_err(|e| e.into_error(self.name()))?;
        let (rows, context) = self.inputs(&set);
        let revised = self.decode(&self.encoder.outputs(&rows, &context));
        Ok(answer(&body_parameters(data.bodies.len()), &revised))
    }
}
