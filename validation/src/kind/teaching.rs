//! `kind = "teaching"`: the teaching paper's pipeline on `link2` — friction sweeps, the
//! excitation and validation trajectories, noise levels ([`crate::study::teaching`]; schema:
//! [`crate::study::plan`]); report `<name>.md`, `.csv` and its figures.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::study::file::StudyError;
use crate::study::plan::TeachingPlan;
use crate::study::teaching::TeachingStudy;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TeachingFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    sweeps: Vec<PathBuf>,
    excitation: PathBuf,
    validation: PathBuf,
    seeds: usize,
    harmonics: usize,
    filter: usize,
    level: Vec<LevelFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelFile {
    name: String,
    #[serde(default)]
    encoder_bits: Option<u32>,
    sigma_q_deg: f64,
    sigma_tau: f64,
}

fn check(at: &Checks, f: TeachingFile) -> Result<TeachingPlan, StudyError> {
    if f.sweeps.is_empty() {
        return Err(at.invalid("sweeps", "expected one sweep scenario per joint".into()));
    }
    if f.level.is_empty() {
        return Err(at.invalid("level", "expected at least one [[level]]".into()));
    }
    if f.harmonics == 0 || f.filter == 0 || f.filter > f.harmonics {
        return Err(at.invalid(
            "filter",
            format!(
                "expected 1 ≤ filter ≤ harmonics, got filter {} and harmonics {}",
                f.filter, f.harmonics
            ),
        ));
    }
    let sweeps = f
        .sweeps
        .iter()
        .enumerate()
        .map(|(k, s)| at.scenario(&format!("sweeps[{k}]"), s))
        .collect::<Result<_, _>>()?;
    let levels = f
        .level
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let field = format!("level[{k}]");
            at.level(&field, &l.name, l.encoder_bits, l.sigma_q_deg, l.sigma_tau)
        })
        .collect::<Result<_, _>>()?;
    Ok(TeachingPlan {
        name: f.name,
        sweeps,
        excitation: at.scenario("excitation", &f.excitation)?,
        validation: at.scenario("validation", &f.validation)?,
        config: crate::study::teaching::StudyConfig {
            levels,
            seeds: at.seeds("seeds", f.seeds)?,
            harmonics: f.harmonics,
            filter: f.filter,
        },
    })
}

impl StudyKind for TeachingPlan {
    const NAME: &'static str = "teaching";
    type Result = TeachingStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        check(at, at.parse(text)?)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<TeachingStudy> {
        self.compute(ctx.out())
    }

    fn render(&self, result: &TeachingStudy, report: &Path) -> crate::Result<()> {
        result.write(report)
    }

    fn markdown(result: &TeachingStudy) -> String {
        result.markdown()
    }

    fn summary(r: &TeachingStudy) -> String {
        let pct = |m: EstimatorId, n: &str| r.nrms(m, n).map_or(f64::NAN, |v| 100.0 * v);
        format!(
            "validation torque NRMS at low noise: IDIM-OLS {:.2} %, WLS {:.2} %, two-step {:.2} %, \
             adaptive {:.2} %; noise-free base error {:.1e}, friction {:.2} %",
            pct(EstimatorId::IdimOls, "low"),
            pct(EstimatorId::IdimWls, "low"),
            pct(EstimatorId::TwoStep, "low"),
            pct(EstimatorId::Adaptive, "low"),
            r.max_base_error(EstimatorId::IdimOls, "none")
                .unwrap_or(f64::NAN),
            100.0 * r.max_friction_error().unwrap_or(f64::NAN),
        )
    }
}
