//! Reading and checking study files of every kind (the schema: [`super`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{IndustrialPlan, MultisinePlan, NimMotionPlan, NimPopulationPlan, Plan, TeachingPlan};
use crate::estimate::nim::Inputs;
use crate::study::file::{MAX_LEVELS, MAX_SEEDS, Study, StudyError};
use crate::study::industrial::Case;
use crate::study::teaching::NoiseLevel;
use sim::population::motion::FamilyId;

/// Most arms a NIM study may ask for (the project's populations are sharded beyond this).
const MAX_ARMS: usize = 1_000_000;
/// Most optimizer steps per network a NIM study may ask for.
const MAX_STEPS: usize = 100_000_000;

#[derive(Deserialize)]
struct Kind {
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MultisineFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    scenario: PathBuf,
    torque_scales: Vec<f64>,
    seeds: usize,
    periods: usize,
    noise_sweep: NoiseSweepFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoiseSweepFile {
    seeds: usize,
    levels: Vec<f64>,
    torque_scales: Vec<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TeachingFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    sweeps: Vec<PathBuf>,
    excitation: PathBuf,
    validation: PathBuf,
    seeds: usize,
    harmonics: usize,
    filter: usize,
    level: Vec<LevelFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelFile {
    name: String,
    #[serde(default)]
    encoder_bits: Option<u32>,
    sigma_q_deg: f64,
    sigma_tau: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndustrialFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    excitation: PathBuf,
    validation: PathBuf,
    seeds: usize,
    case: Vec<CaseFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    #[serde(default)]
    encoder_bits: Option<u32>,
    sigma_q_deg: f64,
    sigma_tau: f64,
    #[serde(default)]
    periods: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NimPopulationFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    paper: PathBuf,
    population: PathBuf,
    train: usize,
    test: usize,
    ood: usize,
    ood_density_scale: f64,
    steps: usize,
    #[serde(default)]
    curve: Vec<usize>,
    #[serde(default)]
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NimMotionFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    purpose: String,
    population: PathBuf,
    reference: PathBuf,
    named: Vec<PathBuf>,
    arms: usize,
    calibration: usize,
    heldout_family: usize,
    ood: usize,
    ood_density_scale: f64,
    holdout: String,
    steps: usize,
    learning_rate: f64,
    members: usize,
    seed_sets: usize,
    inputs: String,
    #[serde(default)]
    ft_noise: Vec<f64>,
}

/// Reads a study file of any kind; `known` are the registry's estimator names (for sweeps).
pub(super) fn from_path(path: &Path, known: &[String]) -> Result<Plan, StudyError> {
    let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
        path: path.to_owned(),
        source,
    })?;
    from_toml(&text, path, known)
}

/// Reads the text of a study file at `path` (its paths are relative to `path`'s folder).
pub(super) fn from_toml(text: &str, path: &Path, known: &[String]) -> Result<Plan, StudyError> {
    let parse = |message: String| StudyError::Parse {
        path: path.to_owned(),
        message,
    };
    let kind: Kind = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
    let checks = Checks { path };
    match kind.kind.as_deref().unwrap_or("sweep") {
        "sweep" => Study::from_toml(text, path, known).map(Plan::Sweep),
        "multisine" => {
            let file = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
            checks.multisine(file).map(Plan::Multisine)
        }
        "teaching" => {
            let file = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
            checks.teaching(file).map(Plan::Teaching)
        }
        "industrial" => {
            let file = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
            checks.industrial(file).map(Plan::Industrial)
        }
        "nim_population" => {
            let file = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
            checks.nim_population(file).map(Plan::NimPopulation)
        }
        "nim_motion" => {
            let file = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
            checks.nim_motion(file).map(Plan::NimMotion)
        }
        other => Err(checks.invalid(
            "kind",
            format!(
                "expected sweep, multisine, teaching, industrial, nim_population or nim_motion, \
                 got {other:?}"
            ),
        )),
    }
}

/// The checks of one file, naming it in every error.
struct Checks<'a> {
    path: &'a Path,
}

impl Checks<'_> {
    fn invalid(&self, field: &str, expected: String) -> StudyError {
        StudyError::Invalid {
            path: self.path.to_owned(),
            field: field.into(),
            expected,
        }
    }

    /// An existing scenario file relative to the study file.
    fn scenario(&self, field: &str, relative: &Path) -> Result<PathBuf, StudyError> {
        let resolved = self.path.parent().unwrap_or(Path::new(".")).join(relative);
        if !resolved.is_file() {
            return Err(self.invalid(
                field,
                format!(
                    "expected an existing scenario file, got {}",
                    resolved.display()
                ),
            ));
        }
        Ok(resolved)
    }

    fn seeds(&self, field: &str, seeds: usize) -> Result<usize, StudyError> {
        if seeds == 0 || seeds > MAX_SEEDS {
            return Err(self.invalid(
                field,
                format!("expected 1 to {MAX_SEEDS} seeds, got {seeds}"),
            ));
        }
        Ok(seeds)
    }

    /// 1 to [`MAX_LEVELS`] finite positive numbers.
    fn positive(&self, field: &str, values: &[f64]) -> Result<Vec<f64>, StudyError> {
        let ok = values.iter().all(|v| v.is_finite() && *v > 0.0);
        if values.is_empty() || values.len() > MAX_LEVELS || !ok {
            return Err(self.invalid(
                field,
                format!(
                    "expected 1 to {MAX_LEVELS} finite positive numbers, got {:?}",
                    &values[..values.len().min(8)]
                ),
            ));
        }
        Ok(values.to_vec())
    }

    /// A noise level in the units the studies compute in (rad, N·m).
    fn level(
        &self,
        field: &str,
        name: &str,
        bits: Option<u32>,
        sigma_q_deg: f64,
        sigma_tau: f64,
    ) -> Result<NoiseLevel, StudyError> {
        let nonnegative = |v: f64| v.is_finite() && v >= 0.0;
        if !(nonnegative(sigma_q_deg) && nonnegative(sigma_tau)) {
            return Err(self.invalid(
                field,
                format!(
                    "expected finite σ_q ≥ 0 and σ_τ ≥ 0, got {sigma_q_deg} °, {sigma_tau} N·m"
                ),
            ));
        }
        let resolution = match bits {
            None => 0.0,
            Some(b @ 1..=52) => std::f64::consts::TAU / 2f64.powi(b as i32),
            Some(b) => {
                return Err(self.invalid(
                    &format!("{field}.encoder_bits"),
                    format!("expected 1 to 52 bits, got {b}"),
                ));
            }
        };
        Ok(NoiseLevel {
            name: name.to_string(),
            resolution,
            sigma_q: sigma_q_deg * std::f64::consts::PI / 180.0,
            sigma_tau,
        })
    }

    fn multisine(&self, f: MultisineFile) -> Result<MultisinePlan, StudyError> {
        let torque_scales = self.positive("torque_scales", &f.torque_scales)?;
        let sweep_scales =
            self.positive("noise_sweep.torque_scales", &f.noise_sweep.torque_scales)?;
        if let Some(s) = sweep_scales.iter().find(|s| !torque_scales.contains(s)) {
            return Err(self.invalid(
                "noise_sweep.torque_scales",
                format!("expected scales of `torque_scales` {torque_scales:?}, got {s}"),
            ));
        }
        if f.periods == 0 {
            return Err(self.invalid("periods", "expected at least one period".into()));
        }
        Ok(MultisinePlan {
            name: f.name,
            scenario: self.scenario("scenario", &f.scenario)?,
            torque_scales,
            config: crate::study::multisine::StudyConfig {
                seeds: self.seeds("seeds", f.seeds)?,
                sweep_seeds: self.seeds("noise_sweep.seeds", f.noise_sweep.seeds)?,
                sweep_levels: self.positive("noise_sweep.levels", &f.noise_sweep.levels)?,
                sweep_scales,
                periods: f.periods,
            },
        })
    }

    fn teaching(&self, f: TeachingFile) -> Result<TeachingPlan, StudyError> {
        if f.sweeps.is_empty() {
            return Err(self.invalid("sweeps", "expected one sweep scenario per joint".into()));
        }
        if f.level.is_empty() {
            return Err(self.invalid("level", "expected at least one [[level]]".into()));
        }
        if f.harmonics == 0 || f.filter == 0 || f.filter > f.harmonics {
            return Err(self.invalid(
                "filter",
                format!(
                    "expected 1 ≤ filter ≤ harmonics, got filter {} and harmonics {}",
                    f.filter, f.harmonics
                ),
            ));
        }
        let sweeps = f
            .sweeps
            .iter()
            .enumerate()
            .map(|(k, s)| self.scenario(&format!("sweeps[{k}]"), s))
            .collect::<Result<_, _>>()?;
        let levels = f
            .level
            .iter()
            .enumerate()
            .map(|(k, l)| {
                let field = format!("level[{k}]");
                self.level(&field, &l.name, l.encoder_bits, l.sigma_q_deg, l.sigma_tau)
            })
            .collect::<Result<_, _>>()?;
        Ok(TeachingPlan {
            name: f.name,
            sweeps,
            excitation: self.scenario("excitation", &f.excitation)?,
            validation: self.scenario("validation", &f.validation)?,
            config: crate::study::teaching::StudyConfig {
                levels,
                seeds: self.seeds("seeds", f.seeds)?,
                harmonics: f.harmonics,
                filter: f.filter,
            },
        })
    }

    fn industrial(&self, f: IndustrialFile) -> Result<IndustrialPlan, StudyError> {
        if f.case.is_empty() {
            return Err(self.invalid("case", "expected at least one [[case]]".into()));
        }
        let cases = f
            .case
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let field = format!("case[{k}]");
                if c.periods == Some(0) {
                    return Err(self.invalid(
                        &format!("{field}.periods"),
                        "expected at least one period (or no `periods`: all)".into(),
                    ));
                }
                let level =
                    self.level(&field, &c.name, c.encoder_bits, c.sigma_q_deg, c.sigma_tau)?;
                Ok(Case {
                    name: c.name.clone(),
                    level,
                    periods: c.periods,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(IndustrialPlan {
            name: f.name,
            excitation: self.scenario("excitation", &f.excitation)?,
            validation: self.scenario("validation", &f.validation)?,
            seeds: self.seeds("seeds", f.seeds)?,
            cases,
        })
    }

    /// A count in `1..=max`.
    fn count(&self, field: &str, n: usize, max: usize) -> Result<usize, StudyError> {
        if n == 0 || n > max {
            return Err(self.invalid(field, format!("expected 1 to {max}, got {n}")));
        }
        Ok(n)
    }

    /// A density factor above 1 (denser arms, out of the training distribution).
    fn denser(&self, field: &str, scale: f64) -> Result<f64, StudyError> {
        if !(scale.is_finite() && scale > 1.0) {
            return Err(self.invalid(
                field,
                format!("expected a finite factor above 1, got {scale}"),
            ));
        }
        Ok(scale)
    }

    fn nim_population(&self, f: NimPopulationFile) -> Result<NimPopulationPlan, StudyError> {
        let train = self.count("train", f.train, MAX_ARMS)?;
        if let Some(n) = f.curve.iter().find(|&&n| n == 0 || n >= train) {
            return Err(self.invalid(
                "curve",
                format!(
                    "expected training-set sizes between 1 and train − 1 = {}, got {n}",
                    train - 1
                ),
            ));
        }
        Ok(NimPopulationPlan {
            name: f.name,
            paper: self.scenario("paper", &f.paper)?,
            population: self.scenario("population", &f.population)?,
            train,
            test: self.count("test", f.test, MAX_ARMS)?,
            ood: self.count("ood", f.ood, MAX_ARMS)?,
            ood_density_scale: self.denser("ood_density_scale", f.ood_density_scale)?,
            steps: self.count("steps", f.steps, MAX_STEPS)?,
            curve: f.curve,
            seed: f.seed,
        })
    }

    fn nim_motion(&self, f: NimMotionFile) -> Result<NimMotionPlan, StudyError> {
        let holdout = f
            .holdout
            .parse::<FamilyId>()
            .map_err(|e| self.invalid("holdout", e.to_string()))?;
        let inputs = Inputs::ALL
            .into_iter()
            .find(|i| i.id() == f.inputs)
            .ok_or_else(|| {
                let ids: Vec<&str> = Inputs::ALL.iter().map(|i| i.id()).collect();
                self.invalid(
                    "inputs",
                    format!("expected one of {ids:?}, got {:?}", f.inputs),
                )
            })?;
        if !(f.learning_rate.is_finite() && f.learning_rate > 0.0) {
            return Err(self.invalid(
                "learning_rate",
                format!("expected a positive number, got {}", f.learning_rate),
            ));
        }
        if !super::ft_noise_valid(&f.ft_noise) {
            return Err(self.invalid(
                "ft_noise",
                format!(
                    "expected {}, got {:?}",
                    super::FT_NOISE_EXPECTED,
                    f.ft_noise
                ),
            ));
        }
        let named = f
            .named
            .iter()
            .enumerate()
            .map(|(k, p)| self.scenario(&format!("named[{k}]"), p))
            .collect::<Result<_, _>>()?;
        Ok(NimMotionPlan {
            name: f.name,
            purpose: f.purpose,
            population: self.scenario("population", &f.population)?,
            reference: self.scenario("reference", &f.reference)?,
            named,
            arms: self.count("arms", f.arms, MAX_ARMS)?,
            calibration: self.count("calibration", f.calibration, MAX_ARMS)?,
            heldout_family: self.count("heldout_family", f.heldout_family, MAX_ARMS)?,
            ood: self.count("ood", f.ood, MAX_ARMS)?,
            ood_density_scale: self.denser("ood_density_scale", f.ood_density_scale)?,
            holdout,
            steps: self.count("steps", f.steps, MAX_STEPS)?,
            learning_rate: f.learning_rate,
            members: self.count("members", f.members, 100)?,
            seed_sets: self.count("seed_sets", f.seed_sets, 100)?,
            inputs,
            ft_noise: f.ft_noise,
        })
    }
}
