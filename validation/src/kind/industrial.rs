//! `kind = "industrial"`: an industrial arm's identification — the IDIM family on an excitation
//! run at several noise cases, validated on another trajectory ([`crate::study::industrial`];
//! schema: [`crate::study::plan`]); report `<name>.md` and the prior and identified URDFs.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::study::file::StudyError;
use crate::study::industrial::{Case, IndustrialStudy};
use crate::study::plan::IndustrialPlan;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndustrialFile {
    #[allow(dead_code)]
    kind: String,
    name: String,
    excitation: PathBuf,
    validation: PathBuf,
    seeds: usize,
    case: Vec<CaseFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    #[serde(default)]
    encoder_bits: Option<u32>,
    sigma_q_deg: f64,
    sigma_tau: f64,
    #[serde(default)]
    periods: Option<usize>,
}

fn check(at: &Checks, f: IndustrialFile) -> Result<IndustrialPlan, StudyError> {
    if f.case.is_empty() {
        return Err(at.invalid("case", "expected at least one [[case]]".into()));
    }
    let cases = f
        .case
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let field = format!("case[{k}]");
            if c.periods == Some(0) {
                return Err(at.invalid(
                    &format!("{field}.periods"),
                    "expected at least one period (or no `periods`: all)".into(),
                ));
            }
            let level = at.level(&field, &c.name, c.encoder_bits, c.sigma_q_deg, c.sigma_tau)?;
            Ok(Case {
                name: c.name.clone(),
                level,
                periods: c.periods,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(IndustrialPlan {
        name: f.name,
        excitation: at.scenario("excitation", &f.excitation)?,
        validation: at.scenario("validation", &f.validation)?,
        seeds: at.seeds("seeds", f.seeds)?,
        cases,
    })
}

impl StudyKind for IndustrialPlan {
    const NAME: &'static str = "industrial";
    type Result = IndustrialStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        check(at, at.parse(text)?)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<IndustrialStudy> {
        self.compute(ctx.out())
    }

    fn render(&self, result: &IndustrialStudy, report: &Path) -> crate::Result<()> {
        crate::report::industrial::write(result, report)
    }

    fn markdown(result: &IndustrialStudy) -> String {
        crate::report::industrial::markdown(result)
    }

    fn summary(s: &IndustrialStudy) -> String {
        let nrms = |case: usize, m: EstimatorId| {
            s.result(case, m.name()).map_or(f64::NAN, |r| {
                100.0 * r.nrms.iter().copied().fold(f64::NAN, f64::max)
            })
        };
        format!(
            "worst validation NRMS at BIRDy noise: OLS {:.3} %, WLS {:.3} %, consistent {:.3} %",
            nrms(0, EstimatorId::IdimOls),
            nrms(0, EstimatorId::IdimWls),
            nrms(0, EstimatorId::IdimConsistent),
        )
    }
}
