//! `cargo xtask excite` for `link2` (the teaching study, `studies/teaching.toml`): designs its
//! excitation and validation trajectories and writes them as scenarios.

use std::path::Path;

use serde::Serialize;
use sim::drive::{Control, Servo};
use sim::scenario::Scenario;
use validation::excitation::{self, FourierDesign};

/// The friction experiment and the two trajectories, in `scenarios/`.
pub const SWEEPS: [&str; 2] = ["teaching_sweep_j1", "teaching_sweep_j2"];
/// The identification trajectory.
pub const EXCITATION: &str = "teaching_excitation";
/// The validation trajectory (never used for identification).
pub const VALIDATION: &str = "teaching_validation";

/// The family of trajectories: 0.1 Hz fundamental, five harmonics, within ±1.5 rad, 1.5 rad/s and
/// 6 rad/s².
pub fn design() -> FourierDesign {
    FourierDesign {
        base_frequency: 0.1,
        harmonics: 5,
        position_limit: 1.5,
        velocity_limit: 1.5,
        acceleration_limit: 6.0,
        samples: 100,
        centres: Vec::new(),
    }
}

/// A flat serializable value as a TOML inline table.
pub fn inline(value: &impl Serialize) -> Result<String, toml::ser::Error> {
    let body = toml::to_string(value)?;
    Ok(format!(
        "{{ {} }}",
        body.lines()
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Writes the two trajectory scenarios, with the same arm, friction, gains and sensors as the
/// sweeps, and prints the condition numbers.
pub fn excite(root: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let sweep = Scenario::from_path(&root.join(format!("scenarios/{}.toml", SWEEPS[0])))?;
    let chain = &sweep.chain;
    let design = design();
    let base = validation::regressor::BaseParameters::of_chain(chain);
    let (optimized, cond) =
        excitation::optimize(chain, &design, excitation::Criterion::Condition, 2026, 60);
    let random = excitation::random(chain, &design, 7);
    let cond_random = excitation::condition_number(chain, &base, &design, &random);
    let noise = std::fs::read_to_string(root.join(format!("scenarios/{}.toml", SWEEPS[0])))?;
    let sensors = &noise[noise
        .find("# Sensors")
        .ok_or("sweep scenario has no # Sensors block")?..];
    for (name, profiles, what, c) in [
        (
            EXCITATION,
            &optimized,
            "minimizes the condition number of the base regressor",
            cond,
        ),
        (
            VALIDATION,
            &random,
            "is random (seed 7), for validation only",
            cond_random,
        ),
    ] {
        let mut text = format!(
            "# Written by `cargo xtask excite`: do not edit by hand.\n\
             # A periodic finite-Fourier-series trajectory of link2 (Swevers et al. 1997) whose \
             coefficient set\n# {what}: cond(W_b) = {c:.2} over 100 instants of a period.\n\
             # Computed-torque servos track it; friction, drive gains and sensors as in the sweeps.\n\
             # Five periods of 10 s: the first is dropped as transient.\n\
             name = \"{name}\"\n\
             description = \"Teaching pipeline on link2: Fourier trajectory, computed torque, eq. 15 friction\"\n\
             model = \"link2\"\nseed = {seed}\n\n\
             [time]\nend = 50.0\n\
             # Integrator step: Rapier integrates the servo dynamics at first order; at 5e-4 s the\n\
             # trajectory is within 6e-5 rad of the step-halved run (measured over 30 s of both runs). The\n\
             # recorded columns are exact at the recorded state whatever the step.\n\
             step = 5e-4\nsample_period = 0.01\n\n",
            seed = if name == EXCITATION { 21 } else { 22 },
        );
        for (d, p) in sweep.drives.iter().zip(profiles.iter()) {
            let servo = Servo {
                reference: p.clone(),
                control: Control::ComputedTorque {
                    kp: 400.0,
                    kd: 40.0,
                },
            };
            text += &format!(
                "[[joint]]\nid = {}\nservo = {{ reference = {}, control = {} }}\ngain = {:?}\nfriction = {}\n\n",
                d.id,
                inline(&servo.reference)?,
                inline(&servo.control)?,
                d.gain,
                inline(d.friction.as_ref().ok_or("sweep joint without friction")?)?,
            );
        }
        text += sensors;
        let path = root.join(format!("scenarios/{name}.toml"));
        Scenario::from_toml(&text, &path.display().to_string())?;
        std::fs::write(&path, text)?;
        println!("wrote {}: cond(W_b) = {c:.2}", path.display());
    }
    Ok(())
}
