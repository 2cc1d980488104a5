//! The NIM models of the noise study: the generalizing NIM trained, as a user would with
//! `cargo xtask nim-train`, on a clean population and on the same population measured by
//! force/torque sensors at 1 % of each body's signal RMS (noise augmentation).

use std::path::{Path, PathBuf};

use sim::scenario::Scenario;

/// Arms of each training population, and Adam steps per body network (the small study's).
const ARMS: usize = 80;
const STEPS: usize = 3000;
/// The augmentation's relative force/torque noise.
const LEVEL: f64 = 1e-2;

/// What the models of `label` were trained on.
pub fn describe(label: &str) -> String {
    match label {
        "clean" => format!("{ARMS} arms of population_rail, clean, {STEPS} Adam steps per body"),
        _ => format!(
            "{ARMS} arms of population_rail measured by force/torque sensors at σ = {LEVEL} × each body's RMS on paper_rail, {STEPS} Adam steps per body"
        ),
    }
}

/// Trains (or retrains) both model sets; `(label, model directory)`.
pub fn models(
    root: &Path,
    out: &Path,
) -> Result<Vec<(&'static str, PathBuf)>, Box<dyn std::error::Error>> {
    let path = root.join("scenarios/population_rail.toml");
    let text = std::fs::read_to_string(&path)?;
    // The sensors at LEVEL, their σ from the paper arm's clean signals.
    let rail = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let clean = sim::simulate(&rail, None);
    #[derive(serde::Serialize)]
    struct Sensors {
        sensor: Vec<sim::sensor::Sensor>,
    }
    let sensors = validation::study::sweep::measurement(
        validation::study::file::SensorFamily::ForceTorque,
        LEVEL,
        &clean.recording,
    )
    .sensors;
    let augmented = format!("{text}\n{}", toml::to_string(&Sensors { sensor: sensors })?);
    let pops = out.join("populations");
    let mut out_models = Vec::new();
    for (label, scenario, dir) in [
        ("clean", text, pops.join("population_rail_nim_clean")),
        ("ft", augmented, pops.join("population_rail_nim_ft")),
    ] {
        crate::nim::population(&scenario, &path, ARMS, &dir)?;
        let models = out.join("models").join(format!("nim_{label}"));
        crate::nim::train_cli(&dir, &models, STEPS, "centroidal")?;
        out_models.push((label, models));
    }
    Ok(out_models)
}
