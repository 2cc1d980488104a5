//! A reproduction study file end to end: computed by its plan ([`crate::study::plan`]: runs
//! simulated into `out/runs`, populations into `out/populations`, models into `out/models`),
//! then rendered ([`crate::report`]) into `out/report`. The top of the crate's layers: it imports
//! studies and reports, neither imports it. Noise sweeps run through [`crate::study::run_into`]
//! (resumable, with a progress bar) instead.

use std::path::Path;

use crate::study::industrial::IndustrialStudy;
use crate::study::multisine::MultisineStudy;
use crate::study::nim::NimStudy;
use crate::study::nim_motion::MotionStudy;
use crate::study::plan::{
    IndustrialPlan, MultisinePlan, NimMotionPlan, NimPopulationPlan, Plan, TeachingPlan,
};
use crate::study::teaching::TeachingStudy;

/// Computes the multisine study and writes `multisine.{json,md,csv,png}`.
pub fn multisine(plan: &MultisinePlan, out: &Path) -> crate::Result<MultisineStudy> {
    let study = plan.compute(out)?;
    study.write(&out.join("report"))?;
    Ok(study)
}

/// Computes the teaching study and writes `teaching.{json,md,csv}` and its plots.
pub fn teaching(plan: &TeachingPlan, out: &Path) -> crate::Result<TeachingStudy> {
    let study = plan.compute(out)?;
    study.write(&out.join("report"))?;
    Ok(study)
}

/// Computes the industrial study and writes `industrial.{json,md}`.
pub fn industrial(plan: &IndustrialPlan, out: &Path) -> crate::Result<IndustrialStudy> {
    let study = plan.compute(out)?;
    crate::report::industrial::write(&study, &out.join("report"))?;
    Ok(study)
}

/// Computes the NIM population study and writes `nim.{md,csv}`.
pub fn nim_population(plan: &NimPopulationPlan, out: &Path) -> crate::Result<NimStudy> {
    let study = plan.compute(out)?;
    crate::report::nim::write(&study, &out.join("report"))?;
    Ok(study)
}

/// Computes the NIM motion study and writes `nim_motions.{md,csv}`.
pub fn nim_motion(plan: &NimMotionPlan, out: &Path) -> crate::Result<MotionStudy> {
    let (study, description) = plan.compute(out)?;
    crate::report::nim_motion::write(&study, &description, &out.join("report"))?;
    Ok(study)
}

/// Runs a reproduction plan of any kind; `false` for a noise sweep, which it leaves to
/// [`crate::study::run_into`].
pub fn run(plan: &Plan, out: &Path) -> crate::Result<bool> {
    match plan {
        Plan::Sweep(_) => return Ok(false),
        Plan::Multisine(p) => drop(multisine(p, out)?),
        Plan::Teaching(p) => drop(teaching(p, out)?),
        Plan::Industrial(p) => drop(industrial(p, out)?),
        Plan::NimPopulation(p) => drop(nim_population(p, out)?),
        Plan::NimMotion(p) => drop(nim_motion(p, out)?),
    }
    Ok(true)
}
