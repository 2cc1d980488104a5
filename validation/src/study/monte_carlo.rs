//! The Monte-Carlo engine of every study: a clean run is simulated once and measured again per
//! seed through [`sim::measurement`] (the same sensors and per-column laws, the same random
//! streams, as `sim run` would give with that seed), and every (case, seed) is one job.
//!
//! Jobs run on rayon and their results are collected in job order, so a study's output does
//! not depend on the thread count. What a job computes (which estimators, which scores) is the
//! study's; how the noise is drawn and stated is this module's, so one estimator sees the same
//! sensor datasheet whatever study runs it: the measured runs state the model that measured
//! them ([`Measurements::stated`]), and estimators get the sensors' view
//! ([`Measurements::sensed`]: every measured column in place of the clean one).

use rayon::prelude::*;
use sim::measurement::{MeasurementModel, measure, measure_joint};

use sim::reading::{Measurements, Run, Stated};
use sim::recording::JointColumn;

/// Runs `job(case, seed)` for every case and every seed `0..seeds(case)` in parallel; the
/// results, per case in seed order, do not depend on the thread count. `tick` is called after
/// each job (progress).
pub fn run<C, R>(
    cases: &[C],
    seeds: impl Fn(&C) -> usize,
    job: impl Fn(&C, u64) -> R + Sync,
    tick: &(dyn Fn() + Sync),
) -> Vec<Vec<R>>
where
    C: Sync,
    R: Send,
{
    let jobs: Vec<(usize, u64)> = cases
        .iter()
        .enumerate()
        .flat_map(|(c, case)| (0..seeds(case) as u64).map(move |s| (c, s)))
        .collect();
    let results: Vec<R> = jobs
        .par_iter()
        .map(|&(c, seed)| {
            let r = job(&cases[c], seed);
            tick();
            r
        })
        .collect();
    let mut per_case: Vec<Vec<R>> = cases.iter().map(|_| Vec::new()).collect();
    for ((c, _), r) in jobs.into_iter().zip(results) {
        per_case[c].push(r);
    }
    per_case
}

/// No progress to report.
pub fn quiet() {}

/// A run's measurements as `stated` measures them with `seed`, from its clean joint columns:
/// each joint column a law names (and `q` where an encoder covers the joint) measured by
/// [`measure_joint`], the model stated, the sensors' view returned. `None` gives the ideal
/// sensors' view (no measured column, nothing stated).
///
/// Only joint-level measurement can be drawn from columns; a model with body sensors, body-column
/// laws or a clock needs the recording ([`remeasure_simulated`]) and is refused.
pub fn remeasure(
    clean: &Measurements,
    stated: Option<(&Stated, u64)>,
) -> crate::Result<Measurements> {
    let mut m = clean.clone().ideal();
    let Some((stated, seed)) = stated else {
        m.stated.sensors.clear();
        m.stated.noise.clear();
        return Ok(m);
    };
    let joint_level = |s: &sim::sensor::Sensor| matches!(s, sim::sensor::Sensor::Encoder { .. });
    if let Some(s) = stated.sensors.iter().find(|s| !joint_level(s)) {
        return Err(crate::Error::invalid(
            "measurement model",
            format!("joint encoders and joint-column laws only (a run held as columns), got {s:?}"),
        ));
    }
    let period = match clean.t.as_slice() {
        [a, b, ..] => b - a,
        _ => 1.0,
    };
    let model = MeasurementModel {
        noise: &stated.noise,
        sensors: &stated.sensors,
        seed,
        period,
        gravity: m.geometry.gravity,
    };
    for j in &mut m.joints {
        let mut columns: Vec<JointColumn> = Vec::new();
        for law in &stated.noise {
            let column = JointColumn::from_name(&law.column).ok_or_else(|| {
                crate::Error::invalid(
                    "measurement model",
                    format!(
                        "laws on joint columns (q, qd, qdd, tau, i), got `{}`",
                        law.column
                    ),
                )
            })?;
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
        let encoded = stated.sensors.iter().any(|s| s.covers_joint(j.id));
        if encoded && !columns.contains(&JointColumn::Q) {
            columns.push(JointColumn::Q);
        }
        for column in columns {
            let measured = measure_joint(j.column(column), column, j.id, &model);
            j.measured.insert(column, measured);
        }
    }
    m.stated.sensors = stated.sensors.clone();
    m.stated.noise = stated.noise.clone();
    Ok(m.sensed())
}

/// A simulated run measured by `stated` with `seed` ([`measure`] on its recording: body sensors,
/// body-column laws and clocks included), read as a dataset run stating the model.
pub fn remeasure_simulated(clean: &sim::Run, stated: &Stated, seed: u64) -> crate::Result<Run> {
    let model = MeasurementModel {
        noise: &stated.noise,
        sensors: &stated.sensors,
        seed,
        period: clean.manifest.sample_period,
        gravity: clean.manifest.model.gravity,
    };
    let m = measure(&clean.recording, &model);
    let mut recording = clean.recording.clone();
    (recording.measured, recording.measured_bodies) = (m.joints, m.bodies);
    let sim_run = sim::Run {
        recording,
        manifest: clean.manifest.clone(),
    };
    let mut run = sim::reading::from_simulated(&sim_run, std::path::Path::new("."))?;
    for m in [&mut run.measurements, &mut run.clean] {
        m.stated.sensors = stated.sensors.clone();
        m.stated.noise = stated.noise.clone();
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_grouped_per_case_in_seed_order() {
        let cases = [3usize, 0, 2];
        let out = run(&cases, |&n| n, |&n, seed| (n, seed), &quiet);
        assert_eq!(
            out,
            vec![vec![(3, 0), (3, 1), (3, 2)], vec![], vec![(2, 0), (2, 1)]]
        );
    }
}
