//! The population variants the NIM studies train and score on (generated and cached by
//! [`crate::study::cache`]): denser out-of-distribution arms, another motion family, and
//! noise-augmented recordings.

use std::path::Path;

use sim::scenario::Scenario;

use crate::study::file::SensorFamily;

/// `scenario` (a population) with force/torque sensors on every body whose noise is `level` ×
/// that body's signal RMS on the clean run of `reference` (the paper's rail run), per channel:
/// noise-augmented training data.
pub fn with_ft_sensors(
    reference: &Scenario,
    scenario: &Scenario,
    level: f64,
) -> crate::Result<Scenario> {
    let clean = sim::simulate(reference, None);
    let sensors =
        crate::study::sweep::measurement(SensorFamily::ForceTorque, level, &clean).sensors;
    Ok(scenario.edited(|f| f.sensor.extend(sensors))?)
}

/// `scenario` (a population with `excitation = "fourier"`) with its arms on another Fourier
/// family — `base_frequency` (Hz) and `harmonics` in place of the file's, runs of `end` s — and
/// the next seed:
/// arms and motions none of the file's arms had, to score identifiers trained on the file's
/// arms on a motion family they never saw. Its seed, for reports.
pub fn other_fourier_family(
    scenario: &Scenario,
    base_frequency: f64,
    harmonics: usize,
    end: f64,
) -> crate::Result<(Scenario, u64)> {
    let needs = "a `[population]` seed and a `fourier` excitation (for another motion family)";
    next_arms(scenario, needs, |f| {
        f.time.end = end;
        let fourier = f.population.as_mut().and_then(|p| p.fourier.as_mut());
        fourier
            .map(|fourier| {
                fourier.base_frequency = base_frequency;
                fourier.harmonics = harmonics;
            })
            .is_some()
    })
}

/// `scenario` with its population's next seed (other arms: the seed the file states, plus one)
/// and `edit` applied to its file, `edit` saying whether it found what it edits; the seed, for
/// reports. `Err` naming the file and what the edit `needs` where there is no seed or nothing
/// to edit.
fn next_arms(
    scenario: &Scenario,
    needs: &str,
    edit: impl FnOnce(&mut sim::scenario::ScenarioFile) -> bool,
) -> crate::Result<(Scenario, u64)> {
    let file = scenario.path.as_deref().unwrap_or(Path::new("?")).display();
    let (mut edited, mut seed) = (false, None);
    let next = scenario.edited(|f| {
        if let Some(s) = f.population.as_mut().and_then(|p| p.seed.as_mut()) {
            *s += 1;
            seed = Some(*s);
        }
        edited = edit(f);
    })?;
    match seed {
        Some(seed) if edited => Ok((next, seed)),
        _ => Err(crate::Error::invalid(format!("scenario `{file}`"), needs)),
    }
}

/// A population with every drawn density `scale` times higher (bounds too) and the next seed:
/// arms out of the distribution `scenario`'s networks were trained on. Its seed, for reports.
pub fn denser(scenario: &Scenario, scale: f64) -> crate::Result<(Scenario, u64)> {
    let needs = "a `[population]` seed and a drawn density (for the out-of-distribution arms)";
    next_arms(scenario, needs, |f| {
        let mut scaled = false;
        if let Some(p) = f.population.as_mut() {
            let densities = p.body.iter_mut().map(|b| &mut b.density);
            for d in std::iter::once(&mut p.density).chain(densities) {
                if let Some(d) = d.as_mut() {
                    *d = d.scaled(scale);
                    scaled = true;
                }
            }
        }
        scaled
    })
}
