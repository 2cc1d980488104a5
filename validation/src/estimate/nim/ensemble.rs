//! Ensembles of generalizing NIMs: several sets of body networks trained from different
//! initialization seeds on the same arms, pooled sample by sample (a mixture of the members),
//! with a predicted standard deviation calibrated on arms held out for that purpose.
//!
//! **Estimate.** The members' per-sample predictions are pooled into one estimate per body
//! ([`super::pooling`]): each sample's mixture over the members (their mean, with their mean
//! predicted variance plus their disagreement), then Huber's robust weighted location of the
//! samples, with the samples' variances averaged as if fully correlated (a run's samples are one
//! arm and one motion). That variance is decoded to the values' standard deviations to first
//! order ([`super::Parametrization::decode_variance`]) and multiplied per output by a scale
//! fitted on calibration arms ([`Calibration`]): the smallest factor that puts 95.45 % of the
//! calibration arms' errors (every identifiable parameter of every body) within ±2σ, the
//! finite-sample split-conformal quantile. On arms exchangeable with the calibration arms the
//! ±2σ interval then covers at least 95.45 % on average; on arms of another motion family or
//! density it is a claim that the studies test.

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::features::rows;
use super::pooling::{mixture, pool};
use super::population::{identifiable, training_set};
use super::{Inputs, Network, Nim, Prediction, Predictor, TrainConfig, TrainReport};
use sim::reading::{Measurements, Run};

/// The probability of a normal variable within ±2σ: what the calibrated ±2σ interval aims at.
pub const TWO_SIGMA_COVERAGE: f64 = 0.954_499_736_103_641_6;

/// The factors on the predicted standard deviations, per output `(m, J11, J22, J33)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Factor per output (1: uncalibrated).
    pub scale: [f64; 4],
    /// Arm-bodies it was fitted on, per output (0: uncalibrated).
    pub samples: [usize; 4],
}

impl Calibration {
    /// Whether it was fitted (every output on some arms).
    pub fn is_fitted(&self) -> bool {
        self.samples.iter().all(|&n| n > 0)
    }

    /// No calibration: the predicted standard deviations as they are.
    pub(crate) const NONE: Calibration = Calibration {
        scale: [1.0; 4],
        samples: [0; 4],
    };
}

/// One body's estimate from one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyEstimate {
    /// `(m, J11, J22, J33)` (kg, kg·m²): a physically valid body.
    pub value: [f64; 4],
    /// Their standard deviations (kg, kg·m²), calibrated where the ensemble is.
    pub sigma: [f64; 4],
}

/// An ensemble: `members[i][b]` is member `i`'s network of body `b + 1`.
pub struct Ensemble<N: Predictor> {
    /// The members' body networks.
    pub members: Vec<Vec<Nim<N>>>,
    /// The scale of the predicted standard deviations.
    pub calibration: Calibration,
}

/// What `ensemble.json` holds beside the members' model files.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    members: usize,
    bodies: usize,
    calibration: Calibration,
    /// How the calibration was obtained, for whoever reads the file.
    note: String,
}

/// File of member `i`'s network of body `b` (1-based) in an ensemble directory.
pub fn member_file(dir: &Path, i: usize, b: usize) -> std::path::PathBuf {
    dir.join(format!("member{i}"))
        .join(format!("body{b}.safetensors"))
}

impl<N: Network + Send> Ensemble<N> {
    /// Trains one member per seed (each body network with `config` and that seed) on `arms`,
    /// the networks in parallel on rayon's threads (initializations are serialized,
    /// [`super::mlp::BurnMlp`], so the networks are the same whatever the thread count:
    /// tested); uncalibrated. Reports per member and body.
    pub fn train(
        arms: &[&Run],
        inputs: Inputs,
        config: &TrainConfig,
        seeds: &[u64],
    ) -> (Self, Vec<Vec<TrainReport>>) {
        let bodies = arms.first().map_or(0, |r| r.measurements.bodies.len());
        let sets: Vec<(Vec<f32>, Vec<f32>)> = (1..=bodies)
            .map(|b| training_set(arms, b, inputs))
            .collect();
        let jobs: Vec<(usize, usize)> = (0..seeds.len())
            .flat_map(|i| (0..bodies).map(move |b| (i, b)))
            .collect();
        let mut trained: Vec<Option<(Nim<N>, TrainReport)>> = jobs
            .par_iter()
            .map(|&(i, b)| {
                let c = TrainConfig {
                    seed: seeds[i],
                    ..config.clone()
                };
                Some(Nim::<N>::train(inputs, &sets[b].0, &sets[b].1, &c))
            })
            .collect();
        let (mut members, mut reports) = (Vec::new(), Vec::new());
        for chunk in trained.chunks_mut(bodies.max(1)) {
            let (nims, r): (Vec<_>, Vec<_>) = chunk.iter_mut().map(|t| t.take().unwrap()).unzip();
            members.push(nims);
            reports.push(r);
        }
        (
            Ensemble {
                members,
                calibration: Calibration::NONE,
            },
            reports,
        )
    }

    /// Saves the members' networks and `ensemble.json` as the directory `dir`, replacing it,
    /// whole or not at all ([`crate::files::write_dir_atomic`]).
    pub fn save(&self, dir: &Path) -> crate::Result<()> {
        crate::files::write_dir_atomic(dir, |work| self.write(work))
    }

    fn write(&self, dir: &Path) -> crate::Result<()> {
        for (i, member) in self.members.iter().enumerate() {
            for (b, nim) in member.iter().enumerate() {
                let path = member_file(dir, i, b + 1);
                let parent = path.parent().expect("in a member directory");
                std::fs::create_dir_all(parent).map_err(crate::Error::io(parent))?;
                nim.save(&path)?;
            }
        }
        let stored = Stored {
            members: self.members.len(),
            bodies: self.members.first().map_or(0, Vec::len),
            calibration: self.calibration,
            note: "sigma = scale × the ensemble's predicted standard deviation (validation::estimate::nim::ensemble); \
                   scale fitted so that 95.45 % of calibration arms' errors lie within ±2 sigma"
                .into(),
        };
        let path = dir.join("ensemble.json");
        let text = serde_json::to_string_pretty(&stored).expect("serializes") + "\n";
        crate::files::write_atomic(&path, &text).map_err(|e| crate::Error::Format {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}

impl<N: Predictor> Ensemble<N> {
    /// Loads an ensemble saved by [`Ensemble::save`], or a single set of body networks
    /// (`body<k>.safetensors`, what `nim-train` writes) as a one-member, uncalibrated ensemble.
    pub fn load(dir: &Path) -> crate::Result<Self> {
        let path = dir.join("ensemble.json");
        if !path.exists() {
            let mut member = Vec::new();
            for b in 1.. {
                let file = dir.join(format!("body{b}.safetensors"));
                if !file.exists() {
                    break;
                }
                member.push(Nim::load(&file)?);
            }
            if member.is_empty() {
                return Err(crate::Error::Format {
                    path: dir.to_path_buf(),
                    message: "neither ensemble.json nor body1.safetensors (expected a directory \
                              written by `studies/nim_full.toml` or `armid nim-train`)"
                        .into(),
                });
            }
            return Ok(Ensemble {
                members: vec![member],
                calibration: Calibration::NONE,
            });
        }
        let text = std::fs::read_to_string(&path).map_err(crate::Error::io(&path))?;
        let stored: Stored = serde_json::from_str(&text).map_err(|e| crate::Error::Format {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let members = (0..stored.members)
            .map(|i| {
                (1..=stored.bodies)
                    .map(|b| Nim::load(&member_file(dir, i, b)))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        same_schemas(dir, &members)?;
        Ok(Ensemble {
            members,
            calibration: stored.calibration,
        })
    }

    /// Number of bodies.
    pub fn bodies(&self) -> usize {
        self.members.first().map_or(0, Vec::len)
    }

    /// Every member's per-sample predictions of body `b` (1-based), one batch each, on the same
    /// samples and input rows (every member of a body has the same schema: trained so, checked
    /// by [`Ensemble::load`]).
    fn predictions(&self, data: &Measurements, b: usize) -> Vec<Vec<Prediction>> {
        let schema = self.members[0][b - 1].schema;
        let x = rows(data, b, schema, &schema.pooled_samples(data, b));
        self.members.iter().map(|m| m[b - 1].predict(&x)).collect()
    }

    /// The estimate of body `b` (1-based) from a run's measurements, with its standard
    /// deviations before calibration.
    pub(crate) fn estimate_uncalibrated(&self, data: &Measurements, b: usize) -> BodyEstimate {
        let parametrization = self.members[0][b - 1].parametrization;
        let (z, var) = pool(&mixture(&self.predictions(data, b)));
        BodyEstimate {
            value: parametrization.decode(z),
            sigma: parametrization.decode_variance(z, var).map(f64::sqrt),
        }
    }

    /// The estimate of body `b` (1-based) from a run's measurements, calibrated.
    pub fn estimate(&self, data: &Measurements, b: usize) -> BodyEstimate {
        let mut e = self.estimate_uncalibrated(data, b);
        for (s, k) in e.sigma.iter_mut().zip(self.calibration.scale) {
            *s *= k;
        }
        e
    }

    /// Fits [`Calibration`] on `arms` (their truths, which nothing else of the ensemble saw).
    pub fn calibrate(&mut self, arms: &[&Run]) {
        let mut ratios: [Vec<f64>; 4] = Default::default();
        for run in arms {
            for b in 1..=self.bodies() {
                let e = self.estimate_uncalibrated(&run.measurements, b);
                let t = &run.truth.bodies[b - 1];
                let truth = [t.mass, t.j[0], t.j[1], t.j[2]];
                for o in (0..4).filter(|&o| identifiable(b, o)) {
                    ratios[o].push((e.value[o] - truth[o]).abs() / e.sigma[o]);
                }
            }
        }
        let mut c = Calibration::NONE;
        for (o, r) in ratios.iter_mut().enumerate() {
            if let Some(q) = conformal_quantile(r, TWO_SIGMA_COVERAGE) {
                c.scale[o] = q / 2.0;
                c.samples[o] = r.len();
            }
        }
        self.calibration = c;
    }
}

/// Checks that every member's network of a body reads member 0's input schema: the members'
/// predictions are pooled sample by sample ([`super::pooling::mixture`]).
fn same_schemas<N: Predictor>(dir: &Path, members: &[Vec<Nim<N>>]) -> crate::Result<()> {
    for (i, member) in members.iter().enumerate().skip(1) {
        for (b, nim) in member.iter().enumerate() {
            let expected = members[0][b].schema;
            if nim.schema != expected {
                return Err(crate::Error::Format {
                    path: member_file(dir, i, b + 1),
                    message: format!(
                        "input schema `{}`, expected `{}` as member 0's body {} (an ensemble's \
                         members read the same inputs)",
                        nim.schema.id(),
                        expected.id(),
                        b + 1
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The split-conformal quantile of `values` at `level`: the `⌈(n + 1) level⌉`-th smallest
/// (`None` when there are too few values for that rank; then the largest is no bound).
pub fn conformal_quantile(values: &mut [f64], level: f64) -> Option<f64> {
    let n = values.len();
    let rank = ((n as f64 + 1.0) * level).ceil() as usize;
    if rank == 0 || rank > n {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conformal_quantile_is_the_finite_sample_rank() {
        let mut v: Vec<f64> = (1..=99).map(f64::from).rev().collect();
        // ⌈100 · 0.9545⌉ = 96: the 96th smallest.
        assert_eq!(conformal_quantile(&mut v, TWO_SIGMA_COVERAGE), Some(96.0));
        assert_eq!(
            conformal_quantile(&mut [1.0, 2.0], TWO_SIGMA_COVERAGE),
            None
        );
    }
}
