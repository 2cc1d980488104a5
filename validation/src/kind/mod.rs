//! Study kinds: every study is a file (`studies/*.toml`) that names its `kind`; each kind is one
//! module here implementing [`StudyKind`] — read and check its file, compute a serialized
//! result, render its report files and its guide chapter from that result alone — and one line
//! of the `kinds!` list below, which makes [`Plan`], the study file of any kind.
//!
//! `armid study FILE` and `cargo xtask reproduce` run files the same way ([`Plan::run`]: compute,
//! write `report/<name>.json`, render); which files `reproduce` runs, in its default tier and
//! under `--full`, is the list [`tiers`] reads (`studies/reproduce.toml`). Runs go to
//! `OUT/runs`, populations and trained models to `OUT/populations` and `OUT/models` under a hash
//! of what made them ([`crate::study::cache`]), reports to `OUT/report`.
//!
//! The top of the crate's layers: it imports studies and reports, neither imports it.

mod chapter;
mod checks;
mod context;
pub mod tiers;

mod industrial;
mod joint_level;
mod mim;
mod multisine;
mod nim_beside;
mod nim_motion;
mod nim_population;
mod paper_sensing;
mod recorded;
mod servo_fit;
mod sweep;
mod tables;
mod teaching;
mod trained;

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::study::file::StudyError;

pub use chapter::{banner, figures, render_into as render_chapter};
pub use checks::Checks;
pub use context::Context;
pub use joint_level::JointLevelPlan;
pub use mim::MimPlan;
pub use nim_beside::NimBesidePlan;
pub use paper_sensing::PaperSensingPlan;
pub use recorded::{RecordedPlan, RecordedReport};
pub use servo_fit::{ServoFitPlan, ServoFitReport};

/// One kind of study: its file, its computation and its rendering.
pub trait StudyKind: Sized {
    /// The file's `kind = "…"`.
    const NAME: &'static str;
    /// The serialized result: `report/<name>.json`, all `render` and `markdown` read.
    type Result: Serialize + DeserializeOwned;
    /// Reads and checks the file's text (its paths relative to the file's folder, `at`).
    fn read(text: &str, at: &Checks) -> Result<Self, StudyError>;
    /// The study's name: its result's and report's file stem.
    fn name(&self) -> &str;
    /// Computes the study: runs, populations and models into `ctx`'s folders.
    fn compute(&self, ctx: &Context) -> crate::Result<Self::Result>;
    /// Writes the report files (Markdown, CSV, figures) of `result` into `report`; by default
    /// its Markdown alone, as `<name>.md`.
    fn render(&self, result: &Self::Result, report: &Path) -> crate::Result<()> {
        let md = report.join(format!("{}.md", self.name()));
        crate::files::write_atomic(&md, &Self::markdown(result)).map_err(crate::Error::io(&md))
    }
    /// The guide chapter's body: the report's Markdown.
    fn markdown(result: &Self::Result) -> String;
    /// One line for the terminal: the study's headline figures.
    fn summary(result: &Self::Result) -> String;
}

/// Computes `plan`, writes its result as `report/<name>.json` and renders its report; the
/// summary line.
fn run_kind<K: StudyKind>(plan: &K, ctx: &Context) -> crate::Result<String> {
    let result = plan.compute(ctx)?;
    let report = ctx.report();
    let json = report.join(format!("{}.json", plan.name()));
    let text = serde_json::to_string_pretty(&result).expect("a study result serializes");
    crate::files::write_atomic(&json, &text).map_err(crate::Error::io(&json))?;
    plan.render(&result, &report)?;
    Ok(K::summary(&result))
}

/// The chapter body of a serialized result of kind `K`; `source` names the file in errors.
fn markdown_of<K: StudyKind>(json: &str, source: &Path) -> crate::Result<String> {
    let result: K::Result = serde_json::from_str(json).map_err(|e| crate::Error::Format {
        path: source.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(K::markdown(&result))
}

/// Makes [`Plan`] of the kinds listed: a new kind is one module and one line here.
macro_rules! kinds {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// A study file of any kind, checked.
        #[derive(Clone, Debug)]
        pub enum Plan {
            $($(#[$doc])* $variant($ty),)*
        }

        impl Plan {
            /// The kinds' names (`kind = "…"`), in the list's order.
            pub const KINDS: &[&str] = &[$(<$ty as StudyKind>::NAME),*];

            fn read_kind(kind: &str, text: &str, at: &Checks) -> Option<Result<Plan, StudyError>> {
                $(if kind == <$ty as StudyKind>::NAME {
                    return Some(<$ty as StudyKind>::read(text, at).map(Plan::$variant));
                })*
                None
            }

            /// The study's name: its result's and report's file stem.
            pub fn name(&self) -> &str {
                match self { $(Plan::$variant(p) => p.name(),)* }
            }

            /// The file's kind.
            pub fn kind(&self) -> &'static str {
                match self { $(Plan::$variant(_) => <$ty as StudyKind>::NAME,)* }
            }

            /// Computes the study into `ctx`, writes `report/<name>.json` and its report files;
            /// the headline line.
            pub fn run(&self, ctx: &Context) -> crate::Result<String> {
                match self { $(Plan::$variant(p) => run_kind(p, ctx),)* }
            }

            /// The guide chapter's body from the text of its serialized result (`source`, named
            /// in errors).
            pub fn markdown(&self, json: &str, source: &Path) -> crate::Result<String> {
                match self { $(Plan::$variant(_) => markdown_of::<$ty>(json, source),)* }
            }
        }
    };
}

kinds! {
    /// Noise and effect sweeps (`kind = "sweep"`, or no kind).
    Sweep(crate::study::file::Study),
    /// MIM on a run, with its appendix run.
    Mim(MimPlan),
    /// The frequency-domain paper's study.
    Multisine(crate::study::plan::MultisinePlan),
    /// The teaching paper's pipeline.
    Teaching(crate::study::plan::TeachingPlan),
    /// An industrial arm's identification.
    Industrial(crate::study::plan::IndustrialPlan),
    /// The NIM population study.
    NimPopulation(crate::study::plan::NimPopulationPlan),
    /// The NIM motion study.
    NimMotion(crate::study::plan::NimMotionPlan),
    /// A sweep with NIM beside it, its models trained on populations.
    NimBeside(NimBesidePlan),
    /// Joint-level identification across a population of robots.
    JointLevel(JointLevelPlan),
    /// The run-level NIM under the MIM paper's sensing.
    PaperSensing(PaperSensingPlan),
    /// A real robot's recording, imported, identified and validated by prediction.
    Recorded(RecordedPlan),
    /// A servo arm identified by simulation from some logs, judged on others.
    ServoFit(ServoFitPlan),
}

/// The `kind` key alone.
#[derive(serde::Deserialize)]
struct KindKey {
    #[serde(default)]
    kind: Option<String>,
}

impl Plan {
    /// Reads and checks a study file of any kind; `known` are the estimator names its lists
    /// may use (the registry's).
    pub fn from_path(path: &Path, known: &[String]) -> Result<Plan, StudyError> {
        let text = std::fs::read_to_string(path).map_err(|source| StudyError::Io {
            path: path.to_owned(),
            source,
        })?;
        Plan::from_toml(&text, path, known)
    }

    /// Reads and checks the text of a study file at `path` (its paths are relative to `path`'s
    /// folder).
    pub fn from_toml(text: &str, path: &Path, known: &[String]) -> Result<Plan, StudyError> {
        let at = Checks { path, known };
        let key: KindKey = at.parse(text)?;
        let kind = key
            .kind
            .as_deref()
            .unwrap_or(<crate::study::file::Study as StudyKind>::NAME);
        Plan::read_kind(kind, text, &at).unwrap_or_else(|| {
            Err(at.invalid(
                "kind",
                format!("expected one of {}, got {kind:?}", Plan::KINDS.join(", ")),
            ))
        })
    }
}
