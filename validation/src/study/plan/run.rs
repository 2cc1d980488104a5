//! Running a reproduction study file: its scenarios simulated once each into run directories
//! (on rayon; each directory written atomically), read back, the study computed by the one
//! Monte-Carlo engine, its report written.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sim::scenario::Scenario;

use super::{IndustrialPlan, MultisinePlan, TeachingPlan};
use crate::dataset::{Run, read_run};
use crate::study::industrial::IndustrialStudy;
use crate::study::multisine::{MultisineStudy, ScaleRun};
use crate::study::teaching::{TeachingRuns, TeachingStudy};

/// Simulates `scenarios` into `dirs` (replacing what is there), in parallel, and reads the runs
/// back; the first error, if any.
pub fn simulate_into(scenarios: &[Scenario], dirs: &[PathBuf]) -> crate::Result<Vec<Run>> {
    scenarios
        .par_iter()
        .zip(dirs)
        .map(|(scenario, dir)| {
            let result = sim::simulate(scenario, None);
            sim::dataset::write_run(dir, &result.recording, &result.manifest, true)?;
            Ok(read_run(dir)?)
        })
        .collect()
}

/// A scenario file's stem: the name of its run directory.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "run".into(), |s| s.to_string_lossy().into_owned())
}

/// Reads scenario files and simulates them into `runs/<stem>`.
fn simulate_files(paths: &[&PathBuf], runs: &Path) -> crate::Result<Vec<Run>> {
    let scenarios = paths
        .iter()
        .map(|p| Scenario::from_path(p))
        .collect::<Result<Vec<_>, _>>()?;
    let dirs: Vec<PathBuf> = paths.iter().map(|p| runs.join(stem(p))).collect();
    simulate_into(&scenarios, &dirs)
}

impl MultisinePlan {
    /// Simulates the scenario at every torque scale into `runs/<stem>_x<scale>`, computes the
    /// study and writes `multisine.{json,md,csv,png}` into `report`.
    pub fn run(&self, runs: &Path, report: &Path) -> crate::Result<MultisineStudy> {
        let paper = Scenario::from_path(&self.scenario)?;
        let scenarios = self
            .torque_scales
            .iter()
            .map(|&scale| paper.edited(|f| f.torque_scale = scale))
            .collect::<Result<Vec<_>, _>>()?;
        let dirs: Vec<PathBuf> = self
            .torque_scales
            .iter()
            .map(|s| runs.join(format!("{}_x{s}", stem(&self.scenario))))
            .collect();
        let scale_runs: Vec<ScaleRun> = self
            .torque_scales
            .iter()
            .zip(simulate_into(&scenarios, &dirs)?)
            .map(|(&scale, run)| ScaleRun { scale, run })
            .collect();
        let study = MultisineStudy::new(&scale_runs, self.config.clone())?;
        study.write(report)?;
        Ok(study)
    }
}

impl TeachingPlan {
    /// Simulates the sweeps, the excitation and the validation trajectory into `runs/<stem>`,
    /// computes the study and writes `teaching.{json,md,csv}` and its plots into `report`.
    pub fn run(&self, runs: &Path, report: &Path) -> crate::Result<TeachingStudy> {
        let paths: Vec<&PathBuf> = self
            .sweeps
            .iter()
            .chain([&self.excitation, &self.validation])
            .collect();
        let mut all = simulate_files(&paths, runs)?;
        let validation = all.pop().expect("the validation run");
        let excitation = all.pop().expect("the excitation run");
        let runs = TeachingRuns {
            sweeps: all,
            excitation,
            validation,
        };
        let study = TeachingStudy::new(&runs, self.config.clone())?;
        study.write(report)?;
        Ok(study)
    }
}

impl IndustrialPlan {
    /// Simulates the excitation and validation runs into `runs/<stem>`, computes the study and
    /// writes `industrial.{json,md}` and the prior and identified URDFs into `report`.
    pub fn run(&self, runs: &Path, report: &Path) -> crate::Result<IndustrialStudy> {
        let both = simulate_files(&[&self.excitation, &self.validation], runs)?;
        let study = IndustrialStudy::new(&both[0], &both[1], &self.cases, self.seeds, report)?;
        crate::report::industrial::write(&study, report)?;
        Ok(study)
    }
}
