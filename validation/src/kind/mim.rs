//! `kind = "mim"`: the MIM paper's estimator on its run (Table 2), with the second cylinder arm
//! of its appendix ([`crate::study::mim`]); report `<name>.md`, `.csv`. Its fields: `name`,
//! `scenario` (the paper's run) and `appendix` (the appendix's), scenario files relative to the
//! study file (`studies/mim.toml`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::study::file::StudyError;
use crate::study::mim::MimStudy;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    scenario: PathBuf,
    appendix: PathBuf,
}

/// A MIM study: its run and its appendix run.
#[derive(Clone, Debug)]
pub struct MimPlan {
    /// Its name.
    pub name: String,
    /// The paper's run (resolved).
    pub scenario: PathBuf,
    /// The appendix's run (resolved).
    pub appendix: PathBuf,
}

impl StudyKind for MimPlan {
    const NAME: &'static str = "mim";
    type Result = MimStudy;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        Ok(MimPlan {
            name: f.name,
            scenario: at.scenario("scenario", &f.scenario)?,
            appendix: at.scenario("appendix", &f.appendix)?,
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<MimStudy> {
        let run = ctx.simulated(&self.scenario)?;
        let appendix = ctx.simulated(&self.appendix)?;
        Ok(MimStudy::new(&run)?.with_appendix(&appendix)?)
    }

    fn render(&self, result: &MimStudy, report: &Path) -> crate::Result<()> {
        crate::report::mim::write(result, report).map_err(crate::Error::io(report))
    }

    fn markdown(result: &MimStudy) -> String {
        crate::report::mim::markdown(result)
    }

    fn summary(result: &MimStudy) -> String {
        format!(
            "MIM largest relative error {:.1e} (single instant), {:.1e} (stacked); not identifiable: {:?}",
            result.max_rel_error(EstimatorId::MimSingle),
            result.max_rel_error(EstimatorId::MimStacked),
            (result.unidentifiable(EstimatorId::MimSingle).iter())
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        )
    }
}
