//! Reading and checking study files of every kind (the schema: [`super`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{IndustrialPlan, MultisinePlan, Plan, TeachingPlan};
use crate::study::file::{MAX_LEVELS, MAX_SEEDS, Study, StudyError};
use crate::study::industrial::Case;
use crate::study::teaching::NoiseLevel;

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

/// Reads a study file of any kind; `known` are the registry's estimator names (for sweeps).
pub(super) fn from_path(path: &Path, known: &[&str]) -> Result<Plan, StudyError> {
    let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
        path: path.to_owned(),
        source,
    })?;
    let parse = |message: String| StudyError::Parse {
        path: path.to_owned(),
        message,
    };
    let kind: Kind = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
    let checks = Checks { path };
    match kind.kind.as_deref().unwrap_or("sweep") {
        "sweep" => Study::from_toml(&text, path, known).map(Plan::Sweep),
        "multisine" => {
            let file = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
            checks.multisine(file).map(Plan::Multisine)
        }
        "teaching" => {
            let file = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
            checks.teaching(file).map(Plan::Teaching)
        }
        "industrial" => {
            let file = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
            checks.industrial(file).map(Plan::Industrial)
        }
        other => Err(checks.invalid(
            "kind",
            format!("expected sweep, multisine, teaching or industrial, got {other:?}"),
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
}
