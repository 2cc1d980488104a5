//! The NIM models of the noise study: the generalizing NIM trained, as a user would with
//! `cargo xtask nim-train`, on a clean population and on the same population measured by
//! force/torque sensors at 1 % of each body's signal RMS (noise augmentation).

use std::path::{Path, PathBuf};

use sim::scenario::Scenario;
use validation::study::plan::populations;

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
    let rail = Scenario::from_path(&root.join("scenarios/population_rail.toml"))?;
    let reference = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let augmented = populations::with_ft_sensors(&reference, &rail, LEVEL)?;
    let pops = out.join("populations");
    let mut sets = Vec::new();
    for (label, scenario, dir) in [
        ("clean", rail, pops.join("population_rail_nim_clean")),
        ("ft", augmented, pops.join("population_rail_nim_ft")),
    ] {
        populations::population(&scenario, ARMS, &dir)?;
        sets.push((label, dir, out.join("models").join(format!("nim_{label}"))));
    }
    // NIM training runs on one core; the two sets train side by side as two `nim-train`
    // processes (not threads: burn seeds its device globally, so threads could race).
    let exe = std::env::current_exe()?;
    let children: Vec<_> = sets
        .iter()
        .map(|(_, pop, models)| {
            std::process::Command::new(&exe)
                .arg("nim-train")
                .arg("--population")
                .arg(pop)
                .arg("--model-dir")
                .arg(models)
                .args(["--steps", &STEPS.to_string(), "--inputs", "centroidal"])
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    for (child, (label, _, _)) in children.into_iter().zip(&sets) {
        let status = child.wait_with_output()?.status;
        if !status.success() {
            return Err(format!("training the `{label}` NIM models failed ({status})").into());
        }
    }
    Ok(sets
        .into_iter()
        .map(|(label, _, models)| (label, models))
        .collect())
}
