//! `kind = "sweep"` (or no kind): sensor-noise sweeps and effect sweeps of the generator over
//! scenarios ([`crate::study::file`]), run resumably in the sweep's directory
//! ([`crate::study::run_into`]: `sweep.json`, `.md`, `.csv`, `.png`); the report is the sweep's
//! tables, or, where the study swept effects, which identifier survives what
//! ([`crate::report::survival`]: `<name>.md`, `<name>_effects.csv` and its figure).

use std::path::Path;

use super::{Checks, Context, StudyKind};
use crate::report::{survival, sweep};
use crate::study::file::{Study, StudyError};
use crate::study::sweep::SweepResult;

/// Draws of a study: every level of every sweep and effect, per seed and scenario.
pub(super) fn draws(study: &Study) -> usize {
    let levels = study.sweeps.iter().map(|s| s.levels.len());
    let severities = study.effects.iter().map(|e| e.levels.len());
    levels.chain(severities).sum::<usize>() * study.seeds * study.scenarios.len()
}

/// A progress bar over `study`'s draws.
pub(super) fn progress(study: &Study) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(draws(study) as u64);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} draws, ETA {eta}")
            .expect("template")
            .progress_chars("=> "),
    );
    pb.set_message(study.name.clone());
    pb
}

impl StudyKind for Study {
    const NAME: &'static str = "sweep";
    type Result = SweepResult;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        Study::from_toml(text, at.path, at.known)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<SweepResult> {
        println!(
            "{}: {} measured runs, each identified by up to {} estimators",
            self.name,
            draws(self),
            self.estimators.len()
        );
        let pb = progress(self);
        let dir = ctx.sweep_dir(&self.name);
        let result = crate::study::run_into(self, &dir, Some(&pb), &sweep::write)?;
        pb.finish_and_clear();
        println!("wrote {}/sweep.md, .csv, .json", dir.display());
        Ok(result)
    }

    fn render(&self, result: &SweepResult, report: &Path) -> crate::Result<()> {
        if result.survival.is_empty() {
            return sweep::write_as(result, report, &self.name);
        }
        let md = report.join(format!("{}.md", self.name));
        crate::files::write_atomic(&md, &survival::markdown(result))
            .map_err(crate::Error::io(&md))?;
        let csv = report.join(format!("{}_effects.csv", self.name));
        crate::files::write_atomic(&csv, &survival::effects_csv(result))
            .map_err(crate::Error::io(&csv))?;
        survival::plot(result, &report.join(survival::figure(result)))
    }

    fn markdown(result: &SweepResult) -> String {
        match result.survival.is_empty() {
            true => sweep::markdown(result),
            false => survival::markdown(result),
        }
    }

    fn summary(result: &SweepResult) -> String {
        format!(
            "{} sweep rows, {} effect rows, {} skipped",
            result.rows.len(),
            result.effects.len(),
            result.skipped.len()
        )
    }
}
