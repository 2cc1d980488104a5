//! Measurement noise, added to recorded columns after the simulation.
//!
//! Each noisy column gets its own random stream, seeded from the scenario seed, the column name
//! and the joint id ([`stream_seed`]), with the ChaCha8 generator (its output is fixed by its
//! specification, so the same scenario and seed give the same noise on every platform and
//! version). Noise never feeds back into the simulation: a Monte-Carlo over seeds re-noises one
//! clean recording.
//!
//! The sensor chain's laws act on the whole series: an anti-aliasing filter
//! ([`Noise::AntiAliasing`]), a delay of whole samples ([`Noise::Delay`]); with the converter's
//! saturation ([`Noise::Saturate`]) and the per-sample laws they are applied in the order
//! given, so `[anti_aliasing, delay, gaussian, quantize, saturate]` is an analog filter, a
//! transport delay, then the converter's noise, resolution and range.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal, Uniform};
use serde::{Deserialize, Serialize};

use crate::param::{ParamError, finite, non_negative, positive};

/// One noise process, applied to a sample value `x`. Several are applied in the order given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Noise {
    /// The frequency-domain paper's `d = a·rand()`: uniform on `[0, a)`, so biased by `a/2`.
    PaperUniform {
        /// Upper bound `a` (column units).
        amplitude: f64,
    },
    /// Zero-mean Gaussian with standard deviation `sigma`.
    Gaussian {
        /// Standard deviation (column units).
        sigma: f64,
    },
    /// Zero-mean uniform on `[−a, a)`.
    Uniform {
        /// Half-width `a` (column units).
        amplitude: f64,
    },
    /// Rounding to the nearest multiple of an encoder resolution.
    Quantize {
        /// Resolution (column units).
        resolution: f64,
    },
    /// A constant offset.
    Bias {
        /// The offset (column units).
        value: f64,
    },
    /// The converter's range: readings clipped to `[min, max]` (column units).
    Saturate {
        /// Lowest reading.
        min: f64,
        /// Highest reading.
        max: f64,
    },
    /// A delay of whole samples: the reading at sample `k` is the value at `k − samples` (the
    /// first `samples` readings repeat the first value: the sensor was at rest before the run).
    Delay {
        /// The delay in samples of the recording.
        samples: usize,
    },
    /// An anti-aliasing filter before the converter: a Butterworth low-pass of `order` and
    /// −3 dB `cutoff` (Hz), causal, starting settled on the first value ([`crate::butterworth`]).
    /// The recording holds its signals at the sample times only, so the filter runs on the
    /// samples (designed by the bilinear map, pre-warped at its cut-off: exact there, and the
    /// analog response at `tan(π f / f_s) / tan(π f_c / f_s)` in place of `f / f_c` elsewhere):
    /// it puts the analog filter's in-band attenuation and phase lag into the readings; there
    /// is no aliasing for it to remove, the simulator's columns being exact at each sample.
    AntiAliasing {
        /// Order `N` (1..=12).
        order: usize,
        /// −3 dB cut-off (Hz), below the sample rate's Nyquist frequency.
        cutoff: f64,
    },
}

impl Noise {
    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        match *self {
            Noise::PaperUniform { amplitude } | Noise::Uniform { amplitude } => {
                positive("amplitude", amplitude, "finite number")
            }
            Noise::Gaussian { sigma } => non_negative("sigma", sigma),
            Noise::Quantize { resolution } => positive("resolution", resolution, "finite number"),
            Noise::Bias { value } => finite("value", value),
            Noise::Saturate { min, max } => {
                finite("min", min)?;
                finite("max", max)?;
                if min < max {
                    Ok(())
                } else {
                    Err((
                        "max".into(),
                        format!("expected max > min = {min}, got {max}"),
                    ))
                }
            }
            Noise::Delay { .. } => Ok(()),
            Noise::AntiAliasing { order, cutoff } => {
                positive("cutoff", cutoff, "cut-off in Hz")?;
                if (1..=12).contains(&order) {
                    Ok(())
                } else {
                    Err(("order".into(), format!("expected 1..=12, got {order}")))
                }
            }
        }
    }

    /// Checks what the law needs of the sample period `sample_period` (s): an anti-aliasing
    /// filter's cut-off below the Nyquist frequency; `Err` names the field.
    pub(crate) fn check_rate(&self, sample_period: f64) -> Result<(), ParamError> {
        match *self {
            Noise::AntiAliasing { order, cutoff } => {
                crate::butterworth::Butterworth::new(order, cutoff, 1.0 / sample_period).map(|_| ())
            }
            _ => Ok(()),
        }
    }

    /// Whether the law acts on the whole series (a filter, a delay) rather than per sample.
    pub(crate) fn is_series(&self) -> bool {
        matches!(self, Noise::Delay { .. } | Noise::AntiAliasing { .. })
    }

    /// Applies a series law to `x` sampled every `period` seconds (per-sample laws: unchanged).
    pub(crate) fn apply_series(&self, x: &[f64], period: f64) -> Vec<f64> {
        match *self {
            Noise::Delay { samples } => {
                let first = x.first().copied().unwrap_or(0.0);
                (0..x.len())
                    .map(|k| if k < samples { first } else { x[k - samples] })
                    .collect()
            }
            Noise::AntiAliasing { order, cutoff } => {
                crate::butterworth::Butterworth::new(order, cutoff, 1.0 / period)
                    .expect("checked with the scenario's sample period")
                    .filter(x)
            }
            _ => x.to_vec(),
        }
    }

    fn apply(&self, x: f64, rng: &mut ChaCha8Rng) -> f64 {
        match *self {
            Noise::PaperUniform { amplitude } => x + amplitude * rng.random::<f64>(),
            Noise::Gaussian { sigma } => {
                if sigma == 0.0 {
                    x
                } else {
                    x + Normal::new(0.0, sigma).expect("valid sigma").sample(rng)
                }
            }
            Noise::Uniform { amplitude } => {
                x + Uniform::new(-amplitude, amplitude)
                    .expect("valid amplitude")
                    .sample(rng)
            }
            Noise::Quantize { resolution } => (x / resolution).round() * resolution,
            Noise::Bias { value } => x + value,
            Noise::Saturate { min, max } => x.clamp(min, max),
            Noise::Delay { .. } | Noise::AntiAliasing { .. } => x,
        }
    }
}

/// Noise on one recorded column (a joint column) or 3-vector group (a body column).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnNoise {
    /// A column of `joints.parquet` (one of [`crate::recording::JointColumn`]; the noisy copy is
    /// `<column>_meas`) or a 3-vector group of `bodies.parquet`
    /// ([`crate::recording::BodyGroup::NOISY`]: `f`, `n`, `acc`, `vel`, `pos`, `omega`,
    /// `omega_dot`, `euler`, `euler_d`, `euler_dd`; each component gets its copy, `f_x_meas`, …,
    /// the processes applied per component in the column's own frame).
    pub column: String,
    /// Joints it applies to (joint columns; all joints when absent); other joints'
    /// `<column>_meas` are clean.
    #[serde(default)]
    pub joints: Option<Vec<u8>>,
    /// Bodies it applies to (body groups; all bodies when absent).
    #[serde(default)]
    pub bodies: Option<Vec<u8>>,
    /// The processes, applied in order.
    pub model: Vec<Noise>,
}

/// The seed of the stream of `column` on `joint`: a fixed mix (FNV-1a) of the run seed, the
/// column name and the joint id.
pub fn stream_seed(seed: u64, column: &str, joint: u8) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed
        .to_le_bytes()
        .iter()
        .chain(column.as_bytes())
        .chain(&[joint])
    {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Applies the per-sample laws of `model` to one value, drawing from `rng` (series laws pass
/// it unchanged: [`series`] applies them).
pub fn apply(model: &[Noise], x: f64, rng: &mut ChaCha8Rng) -> f64 {
    model.iter().fold(x, |v, n| n.apply(v, rng))
}

/// Applies `model` to the series `x` in order: each run of per-sample laws through
/// `per_sample(run, x)`, each series law through `whole(law, x)`. A model without series laws
/// is one run, so its draws are those of a per-sample loop.
pub fn series<T>(
    model: &[Noise],
    mut x: Vec<T>,
    mut per_sample: impl FnMut(&[Noise], Vec<T>) -> Vec<T>,
    mut whole: impl FnMut(&Noise, Vec<T>) -> Vec<T>,
) -> Vec<T> {
    for run in model.split_inclusive(Noise::is_series) {
        let (laws, last) = match run.split_last() {
            Some((l, rest)) if l.is_series() => (rest, Some(l)),
            _ => (run, None),
        };
        if !laws.is_empty() {
            x = per_sample(laws, x);
        }
        if let Some(l) = last {
            x = whole(l, x);
        }
    }
    x
}

/// Adds the noise `model` to a clean series sampled every `period` seconds, drawing from the
/// stream `stream_seed(seed, column, joint)`.
pub fn noisy(
    clean: &[f64],
    model: &[Noise],
    seed: u64,
    column: &str,
    joint: u8,
    period: f64,
) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(stream_seed(seed, column, joint));
    series(
        model,
        clean.to_vec(),
        |laws, x| x.into_iter().map(|v| apply(laws, v, &mut rng)).collect(),
        |law, x| law.apply_series(&x, period),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt())
    }

    #[test]
    fn noise_has_the_requested_statistics() {
        let zeros = vec![0.0; 200_000];
        let (m, s) = stats(&noisy(
            &zeros,
            &[Noise::PaperUniform { amplitude: 0.1 }],
            7,
            "q",
            1,
            0.01,
        ));
        assert!(
            (m - 0.05).abs() < 5e-4 && (s - 0.1 / 12f64.sqrt()).abs() < 5e-4,
            "{m} {s}"
        );
        let (m, s) = stats(&noisy(
            &zeros,
            &[Noise::Gaussian { sigma: 0.02 }],
            7,
            "q",
            1,
            0.01,
        ));
        assert!(m.abs() < 3e-4 && (s - 0.02).abs() < 3e-4, "{m} {s}");
        let (m, s) = stats(&noisy(
            &zeros,
            &[Noise::Uniform { amplitude: 0.3 }],
            7,
            "q",
            1,
            0.01,
        ));
        assert!(
            m.abs() < 3e-3 && (s - 0.3 / 3f64.sqrt()).abs() < 2e-3,
            "{m} {s}"
        );
        let v = noisy(
            &[0.1234, -0.26],
            &[
                Noise::Bias { value: 0.01 },
                Noise::Quantize { resolution: 0.05 },
            ],
            7,
            "q",
            1,
            0.01,
        );
        assert_eq!(v, vec![0.15000000000000002, -0.25]);
    }

    #[test]
    fn noise_is_reproducible_per_seed_and_independent_across_streams() {
        let x = vec![1.0; 1000];
        let g = [Noise::Gaussian { sigma: 1.0 }];
        assert_eq!(
            noisy(&x, &g, 3, "q", 1, 0.01),
            noisy(&x, &g, 3, "q", 1, 0.01)
        );
        assert_ne!(
            noisy(&x, &g, 3, "q", 1, 0.01),
            noisy(&x, &g, 4, "q", 1, 0.01)
        );
        assert_ne!(
            noisy(&x, &g, 3, "q", 1, 0.01),
            noisy(&x, &g, 3, "q", 2, 0.01)
        );
        assert_ne!(
            noisy(&x, &g, 3, "q", 1, 0.01),
            noisy(&x, &g, 3, "tau", 1, 0.01)
        );
    }

    /// The sensor chain's laws: a delay shifts by whole samples, saturation clips, and the
    /// anti-aliasing filter gives a sine the analog Butterworth's gain `1/√(1 + (f/f_c)^{2N})`
    /// and phase lag (the sum of its pole pairs' `atan2(2ζ u, 1 − u²)` and, for odd `N`, the
    /// real pole's `atan(u)`) in steady state, computed here from the analog prototype at the
    /// bilinear map's warped frequency `u`.
    #[test]
    fn the_sensor_chain_delays_clips_and_filters_like_its_analog_model() {
        let x: Vec<f64> = (0..6).map(f64::from).collect();
        let delayed = noisy(&x, &[Noise::Delay { samples: 2 }], 1, "q", 1, 0.01);
        assert_eq!(delayed, vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0]);
        let clipped = noisy(
            &x,
            &[Noise::Saturate { min: 1.0, max: 3.5 }],
            1,
            "q",
            1,
            0.01,
        );
        assert_eq!(clipped, vec![1.0, 1.0, 2.0, 3.0, 3.5, 3.5]);
        let (rate, f, fc) = (1000.0, 5.0, 50.0);
        let sine: Vec<f64> = (0..4000)
            .map(|k| (2.0 * std::f64::consts::PI * f * k as f64 / rate).sin())
            .collect();
        for order in [1usize, 2, 3, 4] {
            let law = [Noise::AntiAliasing { order, cutoff: fc }];
            let y = noisy(&sine, &law, 1, "q", 1, 1.0 / rate);
            // The bilinear map pre-warped at the cut-off: the analog prototype at
            // u = tan(π f / f_s) / tan(π f_c / f_s) (0.8 % below f / f_c here).
            let warp = |f: f64| (std::f64::consts::PI * f / rate).tan();
            let u = warp(f) / warp(fc);
            let gain = 1.0 / (1.0 + u.powi(2 * order as i32)).sqrt();
            let mut phase = if order % 2 == 1 { u.atan() } else { 0.0 };
            for k in 0..order / 2 {
                let zeta = (std::f64::consts::PI * (2 * k + 1) as f64 / (2 * order) as f64).sin();
                phase += (2.0 * zeta * u).atan2(1.0 - u * u);
            }
            let worst = (2000..4000)
                .map(|k| {
                    let t = k as f64 / rate;
                    let w = 2.0 * std::f64::consts::PI * f;
                    (y[k] - gain * (w * t - phase).sin()).abs()
                })
                .fold(0.0, f64::max);
            assert!(worst < 1e-9, "order {order}: {worst:e}");
        }
    }
}
