//! Computing a reproduction study file: its scenarios simulated once each into run directories
//! (on rayon; each directory written atomically), read back, the study computed by the one
//! Monte-Carlo engine. Its report is rendered above this layer ([`crate::kind`]).

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sim::scenario::Scenario;

use super::{IndustrialPlan, MultisinePlan, TeachingPlan};
use crate::study::industrial::IndustrialStudy;
use crate::study::multisine::{MultisineStudy, ScaleRun};
use crate::study::teaching::{TeachingRuns, TeachingStudy};
use sim::reading::{Run, read_run};

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

/// A scenario file's stem: the name of its run (or population) directory.
pub(super) fn stem(path: &Path) -> String {
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
    /// Simulates the scenario at every torque scale into `out/runs/<stem>_x<scale>` and
    /// computes the study.
    pub fn compute(&self, out: &Path) -> crate::Result<MultisineStudy> {
        let runs = &out.join("runs");
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
        MultisineStudy::new(&scale_runs, self.config.clone())
    }
}

impl TeachingPlan {
    /// Simulates the sweeps, the excitation and the validation trajectory into
    /// `out/runs/<stem>` and computes the study.
    pub fn compute(&self, out: &Path) -> crate::Result<TeachingStudy> {
        let runs = &out.join("runs");
        let paths: Vec<&PathBuf> = self
            .sweeps
            .iter()
            .chain([&self.excitation, &self.validation])
            .collect();
        let mut all = simulate_files(&paths, runs)?;
        let validation = all.pop().expect("the validation run");
        let excitation = all.pop().expect("the excitation run");
        let teaching_runs = TeachingRuns {
            sweeps: all,
            excitation,
            validation,
        };
        TeachingStudy::new(&teaching_runs, self.config.clone())
    }
}

impl IndustrialPlan {
    /// Simulates the excitation and validation runs into `out/runs/<stem>` and computes the
    /// study (the prior and identified URDFs it states are written into `out/report`).
    pub fn compute(&self, out: &Path) -> crate::Result<IndustrialStudy> {
        let both = simulate_files(&[&self.excitation, &self.validation], &out.join("runs"))?;
        IndustrialStudy::new(
            &both[0],
            &both[1],
            &self.cases,
            self.seeds,
            &out.join("report"),
        )
    }
}
