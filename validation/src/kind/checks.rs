//! The checks every study file's fields share, each error naming the file and the field.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::study::file::{MAX_LEVELS, MAX_SEEDS, StudyError};
use crate::study::teaching::NoiseLevel;

/// Most arms a study may ask for (the project's populations are sharded beyond this).
pub const MAX_ARMS: usize = 1_000_000;
/// Most optimizer steps per network a study may ask for.
pub const MAX_STEPS: usize = 100_000_000;

/// The checks of one file, naming it in every error.
pub struct Checks<'a> {
    /// The study file.
    pub path: &'a Path,
    /// The estimator names its lists may use.
    pub known: &'a [String],
}

impl Checks<'_> {
    /// The file's text as `T` (its schema), or the parser's message naming the key and line.
    pub fn parse<T: DeserializeOwned>(&self, text: &str) -> Result<T, StudyError> {
        toml::from_str(text).map_err(|e| StudyError::Parse {
            path: self.path.to_owned(),
            message: e.to_string(),
        })
    }

    /// The error for `field`, saying what was expected.
    pub fn invalid(&self, field: &str, expected: String) -> StudyError {
        StudyError::Invalid {
            path: self.path.to_owned(),
            field: field.into(),
            expected,
        }
    }

    /// An existing file or folder (`what`, for the error) relative to the study file.
    pub fn existing(
        &self,
        field: &str,
        relative: &Path,
        what: &str,
    ) -> Result<PathBuf, StudyError> {
        let resolved = self.path.parent().unwrap_or(Path::new(".")).join(relative);
        if !resolved.exists() {
            return Err(self.invalid(
                field,
                format!("expected an existing {what}, got {}", resolved.display()),
            ));
        }
        Ok(resolved)
    }

    /// A path relative to the study file, which need not exist yet.
    pub fn resolve(&self, relative: &Path) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(relative)
    }

    /// An existing scenario file relative to the study file.
    pub fn scenario(&self, field: &str, relative: &Path) -> Result<PathBuf, StudyError> {
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

    /// 1 to [`MAX_SEEDS`] seeds.
    pub fn seeds(&self, field: &str, seeds: usize) -> Result<usize, StudyError> {
        if seeds == 0 || seeds > MAX_SEEDS {
            return Err(self.invalid(
                field,
                format!("expected 1 to {MAX_SEEDS} seeds, got {seeds}"),
            ));
        }
        Ok(seeds)
    }

    /// 1 to [`MAX_LEVELS`] finite positive numbers.
    pub fn positive(&self, field: &str, values: &[f64]) -> Result<Vec<f64>, StudyError> {
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
    pub fn level(
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

    /// A count in `1..=max`.
    pub fn count(&self, field: &str, n: usize, max: usize) -> Result<usize, StudyError> {
        if n == 0 || n > max {
            return Err(self.invalid(field, format!("expected 1 to {max}, got {n}")));
        }
        Ok(n)
    }

    /// A density factor above 1 (denser arms, out of the training distribution).
    pub fn denser(&self, field: &str, scale: f64) -> Result<f64, StudyError> {
        if !(scale.is_finite() && scale > 1.0) {
            return Err(self.invalid(
                field,
                format!("expected a finite factor above 1, got {scale}"),
            ));
        }
        Ok(scale)
    }
}
