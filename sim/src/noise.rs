//! Measurement noise, added to recorded columns after the simulation.
//!
//! Each noisy column gets its own random stream, seeded from the scenario seed, the column name
//! and the joint id ([`stream_seed`]), with the ChaCha8 generator (its output is fixed by its
//! specification, so the same scenario and seed give the same noise on every platform and
//! version). Noise never feeds back into the simulation: a Monte-Carlo over seeds re-noises one
//! clean recording.

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

/// Applies `model` to one value, drawing from `rng` (one sample of [`noisy`]).
pub fn apply(model: &[Noise], x: f64, rng: &mut ChaCha8Rng) -> f64 {
    model.iter().fold(x, |v, n| n.apply(v, rng))
}

/// Adds the noise `model` to a clean series, drawing from the stream `stream_seed(seed, column,
/// joint)`.
pub fn noisy(clean: &[f64], model: &[Noise], seed: u64, column: &str, joint: u8) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(stream_seed(seed, column, joint));
    clean.iter().map(|&x| apply(model, x, &mut rng)).collect()
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
        ));
        assert!(m.abs() < 3e-4 && (s - 0.02).abs() < 3e-4, "{m} {s}");
        let (m, s) = stats(&noisy(
            &zeros,
            &[Noise::Uniform { amplitude: 0.3 }],
            7,
            "q",
            1,
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
        );
        assert_eq!(v, vec![0.15000000000000002, -0.25]);
    }

    #[test]
    fn noise_is_reproducible_per_seed_and_independent_across_streams() {
        let x = vec![1.0; 1000];
        let g = [Noise::Gaussian { sigma: 1.0 }];
        assert_eq!(noisy(&x, &g, 3, "q", 1), noisy(&x, &g, 3, "q", 1));
        assert_ne!(noisy(&x, &g, 3, "q", 1), noisy(&x, &g, 4, "q", 1));
        assert_ne!(noisy(&x, &g, 3, "q", 1), noisy(&x, &g, 3, "q", 2));
        assert_ne!(noisy(&x, &g, 3, "q", 1), noisy(&x, &g, 3, "tau", 1));
    }
}
