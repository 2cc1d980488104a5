//! NIM for joint-level sensing (issue 28): a run-level identifier of an arm's base parameters
//! from what real arms log (joint angles and drive torques or currents), trained on a
//! population of arms of one kinematic structure (`scenarios/population_panda.toml`).
//!
//! **Encoder.** A run is a set of samples; for a model linear in its parameters the statistics
//! a set encoder needs are known in closed form: the normal equations of the run's base
//! regressor, `AᵀA` and `Aᵀτ` (sum-pooled outer products of the regressor rows, a DeepSets
//! encoder with a fixed `φ`), which least squares reduces to its estimate `x̂` and the standard
//! deviations `s` ([`crate::estimate::idim::refined`]: IDIM-OLS with its friction columns, the
//! rates from a Fourier series of the measured angles). They sum over the run, so noise averages
//! out as it does for least squares — what a per-sample network cannot do.
//!
//! **Decoder.** Per base parameter `k`, the Gaussian posterior of `x̂_k ± s_k` and the training
//! population's `μ_k ± σ_k` ([`Prior::anchor`]: centre `c_k`, scale `d_k`) is where the network
//! starts; an MLP ([`super::Network`], β-NLL) reads every parameter's `z_k = (x̂_k − μ_k)/σ_k`
//! and `ln(s_k/σ_k)` at once and outputs, per parameter, a correction `r_k` and a log-variance
//! `v_k`, in units of `d_k`: the estimate is `c_k + d_k r_k`, its standard deviation
//! `d_k e^{v_k/2}`. A network that outputs zeros is that posterior; training teaches it what
//! the posterior gets wrong — least squares' stated `s` is too small where the rates come from
//! noisy angles (errors in the regressor, unmodelled friction), the population is not Gaussian,
//! the errors are correlated across parameters. Friction terms are IDIM-OLS's, unrevised.
//!
//! **Arms of many structures.** Random arms have different base parameters, so no vector of
//! them is shared: there the network reads and answers one parameter at a time (inputs
//! `(z_k, ln(s_k/σ_k))`, outputs `(r_k, v_k)`, the same weights for every parameter of every
//! arm) and each arm's prior comes from the training arms' links put on its kinematics
//! ([`LinkPopulation`], kept in the card): what it can learn is the shape of the posterior's
//! errors, not the correlations between parameters.
//!
//! **Paper sensing.** The same decoder reads MIM-GLS's body parameters and their Cramér–Rao σ
//! instead (the card's [`Sensing`]; [`sensing`], [`bodies`]): a force/torque sensor at every
//! joint, the MIM paper's arm family.
//!
//! **Ensemble.** A model is `members` networks of one architecture trained from different
//! seeds; their outputs are pooled as a mixture (mean correction; variance the members' mean
//! variance plus their corrections' spread). Where least squares already determines a
//! parameter the best answer is its own, and a single network's small errors in `r` would
//! make the model slightly worse than the estimator it reads; averaging members shrinks them.
//!
//! Files ([`JointNim::save`]): `joint.json` (the [`Card`]: sensing, widths, prior or links,
//! population, members) and the members' weights, `joint.safetensors`, `joint.1.safetensors`, …
//! ([`weights_file`]; [`super::Network::save`]'s layout).

pub mod bodies;
pub mod link_prior;
pub mod prior;
pub mod sensing;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use link_prior::LinkPopulation;
pub use prior::{Anchor, Prior};
pub use sensing::Sensing;

use std::borrow::Cow;

use sim::model::Chain;

use super::ensemble::{TWO_SIGMA_COVERAGE, conformal_quantile};
use super::network::{Network, Predictor, TrainConfig, TrainReport};
use super::{LOG_VARIANCE_BOUNDS, OUTPUT_BOUND};
use crate::estimate::NotApplicable;
use crate::estimate::idim::refined::{Refine, Solved};
use crate::param::ParamId;

/// The model's description file in its directory.
pub(crate) const CARD: &str = "joint.json";
/// The first member's weights in its directory ([`weights_file`]).
pub const WEIGHTS: &str = "joint.safetensors";

/// Member `i`'s weights file: [`WEIGHTS`] for the first, `joint.<i>.safetensors` after.
pub fn weights_file(i: usize) -> String {
    match i {
        0 => WEIGHTS.into(),
        i => format!("joint.{i}.safetensors"),
    }
}
/// The card's `kind`.
pub const KIND: &str = "nim_joint_level";

/// Bound on `|z_k|` (population standard deviations).
const Z_BOUND: f64 = 30.0;
/// Bounds on `ln(s_k/σ_k)`; a parameter without a stated `s_k` reads the upper one (the run
/// says nothing about it).
const LOG_SCALE_BOUNDS: (f64, f64) = (-12.0, 6.0);

/// What a trained joint-level model is, beside its weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Always [`KIND`].
    pub kind: String,
    /// What the model reads (absent in models saved before paper sensing: joint level).
    #[serde(default)]
    pub sensing: Sensing,
    /// The population scenario the model was trained on.
    pub population: String,
    /// Training arms.
    pub training_arms: usize,
    /// Layer widths: `2n` inputs, hidden…, `2n` outputs (`n` base parameters); 2 and 2 for a
    /// model of arms of many structures.
    pub widths: Vec<usize>,
    /// The training population's base parameters (empty for a model of many structures).
    pub prior: Prior,
    /// The training arms' links, for a model of arms of many structures (module docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<LinkPopulation>,
    /// The factor on the network's standard deviations fitted on calibration arms
    /// ([`JointNim::calibrate`]; 1: uncalibrated).
    #[serde(default = "unit")]
    pub sigma_scale: f64,
    /// Networks in the ensemble (module docs; absent in models saved before: one).
    #[serde(default = "one")]
    pub members: usize,
}

fn one() -> usize {
    1
}

fn unit() -> f64 {
    1.0
}

/// One arm's training example.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The encoder's estimates `(x̂_k, s_k)` ([`Sensing`]: IDIM-OLS's base parameters or
    /// MIM-GLS's body parameters; value or std NaN where none is stated).
    pub ols: Vec<(f64, f64)>,
    /// The arm's true parameters.
    pub truth: Vec<f64>,
}

/// An example with the prior of its arm's base parameters.
pub type Labeled<'a> = (&'a Prior, &'a Example);

/// A trained joint-level identifier: the networks and its card.
pub struct JointNim<N> {
    /// The ensemble's networks (inputs and outputs of the module docs), `card.members` of them.
    pub networks: Vec<N>,
    /// What it is.
    pub card: Card,
}

/// The members' outputs `(r, v)` for one parameter pooled as an equal-weight Gaussian mixture:
/// the mean correction and the mixture's variance (anchor units), each output clamped to its
/// bounds first.
fn mixture(members: impl Iterator<Item = (f32, f32)>) -> (f64, f64) {
    let (lo, hi) = LOG_VARIANCE_BOUNDS;
    let (mut count, mut sum, mut squares, mut variance) = (0.0, 0.0, 0.0, 0.0);
    for (r, v) in members {
        let r = f64::from(r.clamp(-OUTPUT_BOUND, OUTPUT_BOUND));
        count += 1.0;
        sum += r;
        squares += r * r;
        variance += f64::from(v.clamp(lo, hi)).exp();
    }
    let mean = sum / count;
    (
        mean,
        variance / count + (squares / count - mean * mean).max(0.0),
    )
}

/// `z_k` (module docs).
fn z(prior: &Prior, k: usize, x: f64) -> f32 {
    let sd = prior.sd[k];
    let z = if x.is_finite() && sd > 0.0 {
        (x - prior.mean[k]) / sd
    } else {
        0.0
    };
    z.clamp(-Z_BOUND, Z_BOUND) as f32
}

/// `ln(s_k/σ_k)` (module docs).
fn log_scale(prior: &Prior, k: usize, s: f64) -> f32 {
    let (lo, hi) = LOG_SCALE_BOUNDS;
    let sd = prior.sd[k];
    let l = if s.is_finite() && s > 0.0 && sd > 0.0 {
        (s / sd).ln()
    } else {
        hi
    };
    l.clamp(lo, hi) as f32
}

/// The network's inputs for one arm of a one-structure model: `z_k` then `ln(s_k/σ_k)` per
/// parameter (module docs).
pub fn inputs(prior: &Prior, ols: &[(f64, f64)]) -> Vec<f32> {
    let z = (0..prior.len()).map(|k| z(prior, k, ols[k].0));
    let scale = (0..prior.len()).map(|k| log_scale(prior, k, ols[k].1));
    z.chain(scale).collect()
}

/// The inputs of one arm for a model of many structures: one row `(z_k, ln(s_k/σ_k))` per
/// parameter.
fn parameter_inputs(prior: &Prior, ols: &[(f64, f64)]) -> Vec<f32> {
    (0..prior.len())
        .flat_map(|k| [z(prior, k, ols[k].0), log_scale(prior, k, ols[k].1)])
        .collect()
}

/// The network's targets for one arm: `(θ_k − c_k)/d_k` per parameter.
fn targets(prior: &Prior, ols: &[(f64, f64)], truth: &[f64]) -> Vec<f32> {
    (0..prior.len())
        .map(|k| {
            let a = prior.anchor(k, ols[k].0, ols[k].1);
            ((truth[k] - a.centre) / a.scale) as f32
        })
        .collect()
}

impl<N: Network> JointNim<N> {
    /// Trains a model of `sensing` for arms of one structure, `members` networks with `hidden`
    /// layer widths, on `examples` (arms of `population`, whose truths also make the prior);
    /// `Err` if the examples do not share one structure.
    pub fn train(
        sensing: Sensing,
        population: &str,
        examples: &[Example],
        hidden: &[usize],
        members: usize,
        config: &TrainConfig,
    ) -> crate::Result<(Self, TrainReport)> {
        let truths: Vec<Vec<f64>> = examples.iter().map(|e| e.truth.clone()).collect();
        let within = || format!("joint-level NIM on {population}");
        let prior = Prior::of(&truths).map_err(|e| e.within(within()))?;
        let n = prior.len();
        if let Some(e) = examples.iter().find(|e| e.ols.len() != n) {
            return Err(crate::Error::invalid(
                format!("an arm's least squares ({} base parameters)", e.ols.len()),
                format!("its truth's {n} base parameters"),
            )
            .within(within()));
        }
        let labeled: Vec<Labeled> = examples.iter().map(|e| (&prior, e)).collect();
        let widths: Vec<usize> = std::iter::once(2 * n)
            .chain(hidden.iter().copied())
            .chain([2 * n])
            .collect();
        let card = Card {
            kind: KIND.into(),
            sensing,
            population: population.into(),
            training_arms: examples.len(),
            widths,
            prior: prior.clone(),
            links: None,
            sigma_scale: 1.0,
            members,
        };
        Ok(Self::fit(card, &labeled, config))
    }

    /// Trains a model of arms of many structures ([`LinkPopulation`], module docs), `members`
    /// networks, on `labeled` examples, each with its arm's prior from `links`.
    pub(crate) fn train_per_parameter(
        population: &str,
        links: LinkPopulation,
        labeled: &[Labeled],
        hidden: &[usize],
        members: usize,
        config: &TrainConfig,
    ) -> (Self, TrainReport) {
        let widths: Vec<usize> = std::iter::once(2)
            .chain(hidden.iter().copied())
            .chain([2])
            .collect();
        let card = Card {
            kind: KIND.into(),
            sensing: Sensing::JointLevel,
            population: population.into(),
            training_arms: labeled.len(),
            widths,
            prior: Prior {
                mean: Vec::new(),
                sd: Vec::new(),
            },
            links: Some(links),
            sigma_scale: 1.0,
            members,
        };
        Self::fit(card, labeled, config)
    }

    fn fit(card: Card, labeled: &[Labeled], config: &TrainConfig) -> (Self, TrainReport) {
        let x: Vec<f32> = (labeled.iter())
            .flat_map(|(prior, e)| card.rows(prior, &e.ols))
            .collect();
        let y: Vec<f32> = (labeled.iter())
            .flat_map(|(prior, e)| targets(prior, &e.ols, &e.truth))
            .collect();
        let mut reports = Vec::with_capacity(card.members);
        let networks = (0..card.members.max(1))
            .map(|i| {
                let config = TrainConfig {
                    seed: config.seed + i as u64,
                    ..config.clone()
                };
                let mut network = N::new(&card.widths, config.seed);
                reports.push(network.train(&x, &y, &config));
                network
            })
            .collect();
        (JointNim { networks, card }, reports.swap_remove(0))
    }

    /// Writes `dir/joint.json` and the members' weights (the directory created).
    pub fn save(&self, dir: &Path) -> crate::Result<()> {
        std::fs::create_dir_all(dir).map_err(crate::Error::io(dir))?;
        let card = serde_json::to_string_pretty(&self.card).expect("a card serializes");
        for (i, network) in self.networks.iter().enumerate() {
            network.save(&dir.join(weights_file(i)), &card)?;
        }
        let path = dir.join(CARD);
        crate::files::write_atomic(&path, &card).map_err(crate::Error::io(&path))
    }
}

impl Card {
    /// Whether the model reads arms of many structures, one parameter at a time.
    pub(crate) fn per_parameter(&self) -> bool {
        self.links.is_some()
    }

    /// The network's input rows for one arm.
    fn rows(&self, prior: &Prior, ols: &[(f64, f64)]) -> Vec<f32> {
        if self.per_parameter() {
            parameter_inputs(prior, ols)
        } else {
            inputs(prior, ols)
        }
    }
}

impl<N: Predictor> JointNim<N> {
    /// Whether `dir` holds a joint-level model.
    pub(crate) fn is_in(dir: &Path) -> bool {
        dir.join(CARD).is_file()
    }

    /// The model [`JointNim::save`] wrote into `dir`.
    pub fn load(dir: &Path) -> crate::Result<Self> {
        let path = dir.join(CARD);
        let text = std::fs::read_to_string(&path).map_err(crate::Error::io(&path))?;
        let card: Card = serde_json::from_str(&text).map_err(|e| crate::Error::Format {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let n = card.prior.len();
        let inputs = if card.per_parameter() { 2 } else { 2 * n };
        let last = card.widths.last().copied();
        if card.kind != KIND
            || card.widths.first() != Some(&inputs)
            || last != Some(inputs)
            || card.prior.sd.len() != n
            || card.members == 0
            || (card.sensing == Sensing::Paper && (card.per_parameter() || !n.is_multiple_of(6)))
        {
            return Err(crate::Error::Format {
                path,
                message: format!(
                    "expected kind `{KIND}` and widths from 2n to 2n with a prior of n \
                     parameters (2 to 2 with `links`, joint-level sensing only; n = 6 per body \
                     with paper sensing), at least one member"
                ),
            });
        }
        let networks = (0..card.members)
            .map(|i| N::load(&dir.join(weights_file(i)), &card.widths))
            .collect::<crate::Result<_>>()?;
        Ok(JointNim { networks, card })
    }

    /// The prior of the base parameters of an arm of kinematics `geometry` with `n` base
    /// parameters; `Err` with the reason where the model does not apply to it.
    pub(crate) fn prior_for(&self, geometry: &Chain, n: usize) -> crate::Result<Cow<'_, Prior>> {
        let prior = match &self.card.links {
            Some(links) => Cow::Owned(links.prior_for(geometry)?),
            None => Cow::Borrowed(&self.card.prior),
        };
        if prior.len() != n {
            return Err(crate::Error::invalid(
                format!("an arm of {n} base parameters"),
                format!(
                    "an arm like the model's training arms ({}): {} base parameters",
                    self.card.population,
                    prior.len()
                ),
            ));
        }
        Ok(prior)
    }

    /// Each arm's revised base parameters `(value, std)` from its prior and its least squares
    /// `(x̂_k, s_k)`, the arms in one batch.
    pub fn predict(&self, arms: &[(&Prior, &[(f64, f64)])]) -> Vec<Vec<(f64, f64)>> {
        let x: Vec<f32> = (arms.iter())
            .flat_map(|(prior, ols)| self.card.rows(prior, ols))
            .collect();
        let outs: Vec<Vec<f32>> = self.networks.iter().map(|n| n.predict(&x)).collect();
        let mut offset = 0;
        (arms.iter())
            .map(|(prior, ols)| {
                let n = prior.len();
                let rows: Vec<&[f32]> = outs.iter().map(|o| &o[offset..offset + 2 * n]).collect();
                offset += 2 * n;
                (0..n)
                    .map(|k| {
                        let members = rows.iter().map(|row| {
                            if self.card.per_parameter() {
                                (row[2 * k], row[2 * k + 1])
                            } else {
                                (row[k], row[n + k])
                            }
                        });
                        let (r, variance) = mixture(members);
                        let a = prior.anchor(k, ols[k].0, ols[k].1);
                        let std = a.scale * variance.sqrt() * self.card.sigma_scale;
                        (a.centre + a.scale * r, std)
                    })
                    .collect()
            })
            .collect()
    }

    /// [`JointNim::predict`] of labeled examples.
    fn predict_labeled(&self, arms: &[Labeled]) -> Vec<Vec<(f64, f64)>> {
        let batch: Vec<(&Prior, &[(f64, f64)])> =
            arms.iter().map(|(p, e)| (*p, e.ols.as_slice())).collect();
        self.predict(&batch)
    }

    /// The mean Gaussian negative log-likelihood of the examples' truths under the model's
    /// estimates, each parameter's error and σ in units of its anchor's scale
    /// ([`Prior::anchor`]), the constant `½ ln 2π` left out: how well the model's estimates and
    /// σ together fit arms it did not train on (lower is better).
    pub fn nll(&self, arms: &[Labeled]) -> f64 {
        let (mut sum, mut count) = (0.0, 0usize);
        for ((prior, e), revised) in arms.iter().zip(self.predict_labeled(arms)) {
            for (k, (value, std)) in revised.into_iter().enumerate() {
                let d = prior.anchor(k, e.ols[k].0, e.ols[k].1).scale;
                let (z, s) = ((e.truth[k] - value) / d, std / d);
                sum += s.ln() + 0.5 * z * z / (s * s);
                count += 1;
            }
        }
        sum / count.max(1) as f64
    }

    /// Scales the network's standard deviations so that 95.45 % of the calibration arms'
    /// errors `|estimate − truth|` (every base parameter of every arm) lie within ±2σ: the
    /// finite-sample split-conformal quantile ([`super::ensemble::conformal_quantile`]), as the
    /// per-body ensembles are calibrated. The arms must be ones the network did not train on;
    /// on arms exchangeable with them the ±2σ interval then covers at least 95.45 %. Too few
    /// arms for that rank leave the model uncalibrated.
    pub fn calibrate(&mut self, arms: &[Labeled]) {
        self.card.sigma_scale = 1.0;
        let mut ratios: Vec<f64> = (arms.iter().zip(self.predict_labeled(arms)))
            .flat_map(|((_, e), revised)| {
                (e.truth.iter().zip(revised)).map(|(t, (v, s))| (t - v).abs() / s)
            })
            .filter(|r| r.is_finite())
            .collect();
        if let Some(q) = conformal_quantile(&mut ratios, TWO_SIGMA_COVERAGE) {
            self.card.sigma_scale = q / 2.0;
        }
    }
}

impl<N: Predictor + Send + Sync> Refine for JointNim<N> {
    /// The base parameters revised, the friction terms IDIM-OLS's.
    fn refine(&self, geometry: &Chain, ols: &[Solved]) -> Result<Vec<(f64, f64)>, NotApplicable> {
        let base: Vec<(f64, f64)> = (ols.iter())
            .filter(|s| matches!(s.id, ParamId::Base(_)))
            .map(|s| (s.value, s.std))
            .collect();
        let prior = (self.prior_for(geometry, base.len()))
            .map_err(|e| NotApplicable::new(e.to_string()))?;
        let revised = self.predict(&[(&prior, &base)]).remove(0);
        let mut revised = revised.into_iter();
        Ok((ols.iter())
            .map(|s| match s.id {
                ParamId::Base(_) => revised.next().expect("n base parameters"),
                _ => (s.value, s.std),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A network answering zeros: no correction, unit variance.
    struct Zeros(usize);

    impl Predictor for Zeros {
        fn predict(&self, x: &[f32]) -> Vec<f32> {
            vec![0.0; x.len() / self.0 * self.0]
        }
        fn load(_: &Path, widths: &[usize]) -> crate::Result<Self> {
            Ok(Zeros(widths[0]))
        }
    }

    fn model() -> JointNim<Zeros> {
        let prior = Prior::of(&[vec![1.0, -2.0], vec![3.0, -4.0], vec![2.0, -3.0]]).unwrap();
        JointNim {
            networks: vec![Zeros(4)],
            card: Card {
                kind: KIND.into(),
                sensing: Sensing::JointLevel,
                population: "test".into(),
                training_arms: 3,
                widths: vec![4, 8, 4],
                prior,
                links: None,
                sigma_scale: 1.0,
                members: 1,
            },
        }
    }

    #[test]
    fn a_network_without_corrections_answers_the_gaussian_posterior() {
        let m = model();
        let arms = [
            vec![(2.5, 0.5), (-3.0, f64::NAN)],
            vec![(9.0, 1e-3), (-1.0, 2.0)],
        ];
        let prior = &m.card.prior;
        let batch: Vec<(&Prior, &[(f64, f64)])> =
            arms.iter().map(|a| (prior, a.as_slice())).collect();
        let out = m.predict(&batch);
        for (ols, revised) in arms.iter().zip(&out) {
            for k in 0..2 {
                let a = m.card.prior.anchor(k, ols[k].0, ols[k].1);
                assert!((revised[k].0 - a.centre).abs() < 1e-12, "{revised:?}");
                assert!((revised[k].1 - a.scale).abs() < 1e-12, "{revised:?}");
            }
        }
        // A precise estimate stays itself; an unstated one is the prior's mean.
        assert!((out[1][0].0 - 9.0).abs() < 1e-5 && out[0][1].0 == -3.0);
        // Inputs: z then ln(s/σ), the unstated σ at the bound.
        let x = inputs(&m.card.prior, &arms[0]);
        assert_eq!(x.len(), 4);
        assert!((x[0] - 0.5).abs() < 1e-6 && x[3] == LOG_SCALE_BOUNDS.1 as f32);
    }

    #[test]
    fn members_pool_as_a_mixture() {
        // Two members at ±1 with unit variance: mean 0, variance 1 + 1 (their spread).
        let (r, v) = mixture([(1.0, 0.0), (-1.0, 0.0)].into_iter());
        assert!(r.abs() < 1e-12 && (v - 2.0).abs() < 1e-12, "{r} {v}");
        // One member is itself; outputs beyond the bounds are clamped.
        let (r, v) = mixture([(0.5, 2.0f32.ln())].into_iter());
        assert!((r - 0.5).abs() < 1e-12 && (v - 2.0).abs() < 1e-6, "{r} {v}");
        let (r, _) = mixture([(1e9, 0.0)].into_iter());
        assert_eq!(r, f64::from(OUTPUT_BOUND));
    }

    #[test]
    fn refinement_revises_base_parameters_and_keeps_friction() {
        let m = model();
        let solved = |id, value, std| Solved { id, value, std };
        let friction = ParamId::Friction {
            joint: 1,
            term: crate::param::FrictionTerm::Offset,
        };
        let ols = [
            solved(ParamId::Base(1), 2.5, 0.5),
            solved(ParamId::Base(2), -3.0, 0.1),
            solved(friction, 0.3, 0.01),
        ];
        // A model of one structure reads no kinematics: any arm's.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let geometry = sim::urdf::read(&root.join("models/panda.urdf")).unwrap();
        let revised = m.refine(&geometry, &ols).unwrap();
        assert_eq!(revised[2], (0.3, 0.01));
        assert!((revised[0].0 - m.card.prior.anchor(0, 2.5, 0.5).centre).abs() < 1e-12);
        let err = m.refine(&geometry, &ols[..1]).unwrap_err();
        assert!(err.0.contains("2 base parameters"), "{err}");
    }
}
