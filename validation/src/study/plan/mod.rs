//! The checked settings of the reproduction study kinds and their computation: runs simulated
//! into `out/runs`, populations into `out/populations`, models into `out/models`. The files are
//! read, and the kinds listed, by [`crate::kind`] (one module per kind); a user runs the same
//! study on other seeds, levels or scenarios by editing a copy of its file.
//!
//! ```toml
//! kind = "teaching"
//! name = "teaching"
//! sweeps = ["../scenarios/teaching_sweep_j1.toml", "../scenarios/teaching_sweep_j2.toml"]
//! excitation = "../scenarios/teaching_excitation.toml"   # relative to the study file
//! validation = "../scenarios/teaching_validation.toml"
//! seeds = 16                # noise seeds per level
//! harmonics = 200           # Fourier harmonics of the measured q for q̇, q̈
//! filter = 50               # harmonics kept by the parallel filter
//!
//! [[level]]                 # a noise level: every run measured again per seed
//! name = "low"
//! encoder_bits = 20         # q quantized to 2π / 2^bits first (absent: no quantization)
//! sigma_q_deg = 1e-3        # Gaussian angle noise after it (degrees)
//! sigma_tau = 0.05          # Gaussian torque noise (N·m), on the current as σ_τ / K
//! ```
//!
//! A multisine study names its `scenario`, the `torque_scales` it is simulated at, `seeds` at
//! the paper's noise, `periods`, and a `[noise_sweep]` (`seeds`, `levels` in rad,
//! `torque_scales`, each one of the study's); an industrial study its `excitation` and
//! `validation` scenarios, `seeds`, and `[[case]]`s, each a level as above (`name`,
//! `encoder_bits`, `sigma_q_deg`, `sigma_tau`) and the excitation `periods` it uses (absent:
//! all). Every error names the file and the field.

mod nim;
pub mod populations;
mod run;

use std::path::PathBuf;

use crate::study::industrial::Case;

pub use nim::{FT_NOISE_EXPECTED, NimMotionPlan, NimPopulationPlan, ft_noise_valid};
pub use run::simulate_into;

/// A multisine study: its scenario at each torque scale and the study's settings.
#[derive(Clone, Debug)]
pub struct MultisinePlan {
    /// Its name.
    pub name: String,
    /// The scenario (resolved against the study file's folder).
    pub scenario: PathBuf,
    /// Torque scales it is simulated at (× the scenario's amplitudes).
    pub torque_scales: Vec<f64>,
    /// The study's settings.
    pub config: crate::study::multisine::StudyConfig,
}

/// A teaching-pipeline study: its runs and settings.
#[derive(Clone, Debug)]
pub struct TeachingPlan {
    /// Its name.
    pub name: String,
    /// One friction sweep scenario per joint (resolved).
    pub sweeps: Vec<PathBuf>,
    /// The identification trajectory's scenario (resolved).
    pub excitation: PathBuf,
    /// The validation trajectory's scenario (resolved).
    pub validation: PathBuf,
    /// The study's settings, its noise levels included.
    pub config: crate::study::teaching::StudyConfig,
}

/// An industrial-arm study: its two runs, seeds and cases.
#[derive(Clone, Debug)]
pub struct IndustrialPlan {
    /// Its name.
    pub name: String,
    /// The excitation scenario (resolved).
    pub excitation: PathBuf,
    /// The validation scenario (resolved).
    pub validation: PathBuf,
    /// Noise seeds per case.
    pub seeds: usize,
    /// The cases.
    pub cases: Vec<Case>,
}
