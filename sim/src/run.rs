//! A whole run: a scenario simulated ([`crate::simulation`]), measured
//! ([`crate::measurement`]), checked ([`crate::checks`], [`crate::validity`]) and described by
//! its manifest.

use crate::dataset::manifest::{FORMAT_VERSION, Manifest, engine_versions};
use crate::{checks, measurement, readout, recording, scenario, simulation, validity};

/// A simulated run: its recording and the manifest that describes it.
pub struct Run {
    /// What was recorded.
    pub recording: recording::Recording,
    /// How it was produced, and its checks.
    pub manifest: Manifest,
}

/// Simulates a scenario and checks the result (see [`checks`]).
pub fn simulate(scenario: &scenario::Scenario, progress: Option<&indicatif::ProgressBar>) -> Run {
    let simulation::Simulated {
        mut recording,
        integrator,
        consistency,
        steps,
        residuals,
        unevaluable,
    } = simulation::run(scenario, progress);
    let measured = measurement::measure(&recording, &scenario.measurement_model());
    recording.measured = measured.joints;
    recording.measured_bodies = measured.bodies;
    let checks = checks::Checks {
        rapier: Some(consistency),
        ..checks::checks(scenario, &recording, &residuals)
    };
    let evidence = validity::Evidence {
        residuals: &residuals,
        steps: &steps,
        checks: &checks,
    };
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        run_id: recording.run_id.clone(),
        scenario_path: scenario.path.as_ref().map(|p| p.display().to_string()),
        scenario: scenario.source.clone(),
        model: scenario.chain.clone(),
        seed: scenario.file.seed,
        motor_gains: scenario.gains(),
        integrator,
        sample_period: scenario.file.time.sample_period,
        samples: recording.samples(),
        engine: engine_versions(),
        noise: (!scenario.measurement_model().is_empty()).then(|| {
            serde_json::json!({
                "seed": scenario.file.seed,
                "generator": "ChaCha8, one stream per source and joint or body (sim::measurement)",
                "columns": scenario.file.noise,
                "sensors": scenario.file.sensor,
            })
        }),
        columns: readout::provenance(),
        motion_family: scenario.motion_family,
        noise_scale: scenario.noise_scale,
        checks: checks.clone(),
        invalid: match unevaluable {
            Some(u) => Some(validity::unevaluable(&recording.run_id, u)),
            None => validity::validate(scenario, &recording, &evidence).err(),
        },
        valid: true,
        replay: None,
    };
    Run {
        recording,
        manifest,
    }
}
