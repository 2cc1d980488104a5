//! `kind = "multisine"`: the frequency-domain paper's study on `link2`
//! ([`crate::study::multisine`]; schema: [`crate::study::plan`]); report `<name>.md`, `.csv`,
//! `.png`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Checks, Context, StudyKind};
use crate::study::file::StudyError;
use crate::study::multisine::MultisineStudy;
use crate::study::plan::MultisinePlan;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MultisineFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    scenario: PathBuf,
    torque_scales: Vec<f64>,
    seeds: usize,
    periods: usize,
    noise_sweep: NoiseSweepFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoiseSweepFile {
    seeds: usize,
    levels: Vec<f64>,
    torque_scales: Vec<f64>,
}

fn check(at: &Checks, f: MultisineFile) -> Result<MultisinePlan, StudyError> {
    let torque_scales = at.positive("torque_scales", &f.torque_scales)?;
    let sweep_scales = at.positive("noise_sweep.torque_scales", &f.noise_sweep.torque_scales)?;
    if let Some(s) = sweep_scales.iter().find(|s| !torque_scales.contains(s)) {
        return Err(at.invalid(
            "noise_sweep.torque_scales",
            format!("expected scales of `torque_scales` {torque_scales:?}, got {s}"),
        ));
    }
    if f.periods == 0 {
        return Err(at.invalid("periods", "expected at least one period".into()));
    }
    Ok(MultisinePlan {
        name: f.name,
        scenario: at.scenario("scenario", &f.scenario)?,
        torque_scales,
        config: crate::study::multisine::StudyConfig {
            seeds: at.seeds("seeds", f.seeds)?,
            sweep_seeds: at.seeds("noise_sweep.seeds", f.noise_sweep.seeds)?,
            sweep_levels: at.positive("noise_sweep.levels", &f.noise_sweep.levels)?,
            sweep_scales,
            periods: f.periods,
        },
    })
}

impl StudyKind for MultisinePlan {
    const NAME: &'static str = "multisine";
    type Result = MultisineStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        check(at, at.parse(text)?)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<MultisineStudy> {
        self.compute(ctx.out())
    }

    fn render(&self, result: &MultisineStudy, report: &Path) -> crate::Result<()> {
        result.write(report)
    }

    fn markdown(result: &MultisineStudy) -> String {
        result.markdown()
    }

    fn summary(result: &MultisineStudy) -> String {
        result.best_at_paper_noise().map_or_else(String::new, |(method, m1, m2)| {
            format!(
                "best at the paper's amplitude and noise: {method}, RMSE m1 {m1:.4} kg, m2 {m2:.4} kg (paper: 1.0568, 1.5420)"
            )
        })
    }
}
