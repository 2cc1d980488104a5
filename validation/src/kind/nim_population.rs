//! `kind = "nim_population"`: the NIM paper's protocol on its run, then networks trained on a
//! population and scored on held-out and denser arms ([`crate::study::nim`]; schema:
//! [`crate::study::plan`]); report `<name>.md`, `.csv`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::checks::{MAX_ARMS, MAX_STEPS};
use super::tables::Tables;
use super::{Checks, Context, StudyKind};
use crate::study::file::StudyError;
use crate::study::plan::NimPopulationPlan;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NimPopulationFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    paper: PathBuf,
    population: PathBuf,
    train: usize,
    test: usize,
    ood: usize,
    ood_density_scale: f64,
    steps: usize,
    #[serde(default)]
    curve: Vec<usize>,
    #[serde(default)]
    seed: u64,
}

fn check(at: &Checks, f: NimPopulationFile) -> Result<NimPopulationPlan, StudyError> {
    let train = at.count("train", f.train, MAX_ARMS)?;
    if let Some(n) = f.curve.iter().find(|&&n| n == 0 || n >= train) {
        return Err(at.invalid(
            "curve",
            format!(
                "expected training-set sizes between 1 and train − 1 = {}, got {n}",
                train - 1
            ),
        ));
    }
    Ok(NimPopulationPlan {
        name: f.name,
        paper: at.scenario("paper", &f.paper)?,
        population: at.scenario("population", &f.population)?,
        train,
        test: at.count("test", f.test, MAX_ARMS)?,
        ood: at.count("ood", f.ood, MAX_ARMS)?,
        ood_density_scale: at.denser("ood_density_scale", f.ood_density_scale)?,
        steps: at.count("steps", f.steps, MAX_STEPS)?,
        curve: f.curve,
        seed: f.seed,
    })
}

impl StudyKind for NimPopulationPlan {
    const NAME: &'static str = "nim_population";
    type Result = Tables;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        check(at, at.parse(text)?)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<Tables> {
        let study = self.compute(ctx.out())?;
        let (m, j) = study.heldout_error().unwrap_or((f64::NAN, f64::NAN));
        Ok(Tables {
            markdown: crate::report::nim::markdown(&study),
            csv: crate::report::nim::csv(&study),
            summary: format!(
                "paper protocol largest relative error {:.1e} ({:.1e} with shuffled inputs); \
                 population NIM on held-out arms: mass {:.2} %, identifiable moments {:.2} %",
                study.max_rel_error("paper"),
                study.max_rel_error("paper_inputs_shuffled"),
                100.0 * m,
                100.0 * j,
            ),
        })
    }

    fn render(&self, result: &Tables, report: &Path) -> crate::Result<()> {
        result.write(&self.name, report)
    }

    fn markdown(result: &Tables) -> String {
        result.markdown.clone()
    }

    fn summary(result: &Tables) -> String {
        result.summary.clone()
    }
}
