//! `kind = "nim_motion"`: the generalizing NIM trained on arms of every motion family but one,
//! calibrated, scored on held-out arms, the held-out family, denser arms and named runs
//! ([`crate::study::nim_motion`]; schema: [`crate::study::plan`]); report `<name>.md`, `.csv`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::population::motion::FamilyId;

use super::checks::{MAX_ARMS, MAX_STEPS};
use super::tables::Tables;
use super::{Checks, Context, StudyKind};
use crate::estimate::nim::Inputs;
use crate::study::file::StudyError;
use crate::study::plan::NimMotionPlan;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NimMotionFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    purpose: String,
    population: PathBuf,
    reference: PathBuf,
    named: Vec<PathBuf>,
    arms: usize,
    calibration: usize,
    heldout_family: usize,
    ood: usize,
    ood_density_scale: f64,
    holdout: String,
    steps: usize,
    learning_rate: f64,
    members: usize,
    seed_sets: usize,
    inputs: String,
    #[serde(default)]
    ft_noise: Vec<f64>,
}

fn check(at: &Checks, f: NimMotionFile) -> Result<NimMotionPlan, StudyError> {
    let holdout = f
        .holdout
        .parse::<FamilyId>()
        .map_err(|e| at.invalid("holdout", e.to_string()))?;
    let inputs = Inputs::from_id(&f.inputs).ok_or_else(|| {
        at.invalid(
            "inputs",
            format!("expected one of {}, got {:?}", Inputs::known(), f.inputs),
        )
    })?;
    if !(f.learning_rate.is_finite() && f.learning_rate > 0.0) {
        return Err(at.invalid(
            "learning_rate",
            format!("expected a positive number, got {}", f.learning_rate),
        ));
    }
    if !crate::study::plan::ft_noise_valid(&f.ft_noise) {
        return Err(at.invalid(
            "ft_noise",
            format!(
                "expected {}, got {:?}",
                crate::study::plan::FT_NOISE_EXPECTED,
                f.ft_noise
            ),
        ));
    }
    let named = f
        .named
        .iter()
        .enumerate()
        .map(|(k, p)| at.scenario(&format!("named[{k}]"), p))
        .collect::<Result<_, _>>()?;
    Ok(NimMotionPlan {
        name: f.name,
        purpose: f.purpose,
        population: at.scenario("population", &f.population)?,
        reference: at.scenario("reference", &f.reference)?,
        named,
        arms: at.count("arms", f.arms, MAX_ARMS)?,
        calibration: at.count("calibration", f.calibration, MAX_ARMS)?,
        heldout_family: at.count("heldout_family", f.heldout_family, MAX_ARMS)?,
        ood: at.count("ood", f.ood, MAX_ARMS)?,
        ood_density_scale: at.denser("ood_density_scale", f.ood_density_scale)?,
        holdout,
        steps: at.count("steps", f.steps, MAX_STEPS)?,
        learning_rate: f.learning_rate,
        members: at.count("members", f.members, 100)?,
        seed_sets: at.count("seed_sets", f.seed_sets, 100)?,
        inputs,
        ft_noise: f.ft_noise,
    })
}

impl StudyKind for NimMotionPlan {
    const NAME: &'static str = "nim_motion";
    type Result = Tables;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        check(at, at.parse(text)?)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<Tables> {
        let (study, description) = self.compute(ctx.out())?;
        let mut summary = format!(
            "{} arms, {} calibration arms, {} seed sets × {} members",
            self.arms, self.calibration, self.seed_sets, self.members
        );
        for c in study.categories() {
            for k in 0..study.seeds.len() {
                let (m, j) = study.worst(&c, k);
                let (cov, n) = study.coverage(&c, k);
                summary += &format!(
                    "\n  {:<28} seed set {k}: max mass {:.2} %, moments {:.2} %, ±2σ coverage {:.1} % of {n}",
                    c.id(),
                    100.0 * m,
                    100.0 * j,
                    100.0 * cov
                );
            }
        }
        Ok(Tables {
            markdown: crate::report::nim_motion::markdown(&study, &description),
            csv: crate::report::nim_motion::csv(&study),
            summary,
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
