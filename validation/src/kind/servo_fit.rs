//! `kind = "servo_fit"`: a servo arm identified by simulation from some of its logs and judged
//! on others ([`crate::study::servo_fit`]); report `<name>.md`, the fitted drive train
//! `<name>_drives.toml` and the fitted model `<name>_model.xml` (MJCF, each servo a
//! `<position>` actuator) beside it.
//!
//! ```toml
//! kind = "servo_fit"
//! name = "so101_servos"
//! model = "../models/menagerie/robotstudio_so101/so101.nomesh.xml"
//! config = "../models/so101/so101.toml"   # the imports' configuration (optional)
//! lowpass = { type = "auto", order = 4 }   # the imports' low-pass (default: auto, order 4)
//! start = "../models/so101/start.toml"     # drives.toml: every servo's start
//! terms = ["kp", "kd", "delay", "coulomb"] # fitted on every servo-driven joint
//! fit = ["../models/so101/recording/single_joint_elbow.parquet"]   # logs fitted on
//! judge = ["../models/so101/recording/square_pattern.parquet"]     # logs held out
//! horizon = 1.0                            # the fit's windows (s)
//! spacing = 4.0
//! iterations = 10
//! prior = { factor = 3.0, delay = 0.05 }   # one σ toward the start
//! source = "…"                             # where the logs come from, said in the report
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sim::dataset::recorded::Lowpass;
use sim::rollout::Windows;

use super::{Checks, Context, StudyKind};
use crate::estimate::simulation_fit::{Prior, TermKind};
use crate::study::file::StudyError;
use crate::study::servo_fit::{Outputs, ServoFitInput, ServoFitStudy};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    model: PathBuf,
    #[serde(default)]
    config: Option<PathBuf>,
    #[serde(default = "auto")]
    lowpass: Lowpass,
    start: PathBuf,
    terms: Vec<TermKind>,
    fit: Vec<PathBuf>,
    judge: Vec<PathBuf>,
    horizon: f64,
    spacing: f64,
    iterations: usize,
    prior: PriorFile,
    source: String,
}

fn auto() -> Lowpass {
    Lowpass::Auto { order: 4 }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriorFile {
    factor: f64,
    delay: f64,
}

/// A servo-fit study.
#[derive(Clone, Debug)]
pub struct ServoFitPlan {
    name: String,
    input: ServoFitInput,
    source: String,
}

/// The study with what its report says beside it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServoFitReport {
    /// The study.
    #[serde(flatten)]
    pub study: ServoFitStudy,
    /// The model file's name.
    pub model: String,
    /// Where the logs come from.
    pub source: String,
}

impl StudyKind for ServoFitPlan {
    const NAME: &'static str = "servo_fit";
    type Result = ServoFitReport;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        let logs = |field: &str, paths: &[PathBuf]| -> Result<Vec<PathBuf>, StudyError> {
            if paths.is_empty() {
                return Err(at.invalid(field, "at least one recording".into()));
            }
            (paths.iter().enumerate())
                .map(|(i, p)| at.existing(&format!("{field}[{i}]"), p, "recording"))
                .collect()
        };
        let mut stems: Vec<_> = f
            .fit
            .iter()
            .chain(&f.judge)
            .map(|p| p.file_stem())
            .collect();
        stems.sort();
        if stems.windows(2).any(|w| w[0] == w[1]) {
            return Err(at.invalid(
                "fit, judge",
                "recordings of distinct file names (each is imported as the run of its name)"
                    .into(),
            ));
        }
        at.positive("horizon", &[f.horizon])?;
        at.positive("spacing", &[f.spacing])?;
        if f.terms.is_empty() {
            return Err(at.invalid(
                "terms",
                "at least one of kp, kd, delay, torque_limit, damping, coulomb, armature".into(),
            ));
        }
        if !(f.prior.factor > 1.0 && f.prior.factor.is_finite()) {
            return Err(at.invalid("prior.factor", "a finite factor above 1".into()));
        }
        at.positive("prior.delay", &[f.prior.delay])?;
        Ok(ServoFitPlan {
            input: ServoFitInput {
                model: at.existing("model", &f.model, "MJCF or URDF file")?,
                config: (f.config.as_ref())
                    .map(|c| at.existing("config", c, "recording configuration"))
                    .transpose()?,
                lowpass: f.lowpass,
                start: at.existing("start", &f.start, "drive-train file (drives.toml)")?,
                terms: f.terms,
                fit: logs("fit", &f.fit)?,
                judge: logs("judge", &f.judge)?,
                windows: Windows {
                    horizon: f.horizon,
                    spacing: f.spacing,
                },
                iterations: f.iterations,
                prior: Prior {
                    factor: f.prior.factor,
                    delay: f.prior.delay,
                },
            },
            name: f.name,
            source: f.source,
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<ServoFitReport> {
        let runs = ctx.runs().join(&self.name);
        let drives = ctx.report().join(format!("{}_drives.toml", self.name));
        let mjcf = ctx.report().join(format!("{}_model.xml", self.name));
        let out = Outputs {
            runs: &runs,
            drives: &drives,
            mjcf: &mjcf,
        };
        let study = crate::study::servo_fit::study(&self.input, out)?;
        Ok(ServoFitReport {
            study,
            model: file_name(&self.input.model),
            source: self.source.clone(),
        })
    }

    fn markdown(r: &ServoFitReport) -> String {
        crate::report::servo_fit::render(&r.study, &r.source, &format!("`{}`", r.model))
    }

    fn summary(r: &ServoFitReport) -> String {
        let s = &r.study;
        format!(
            "held-out 1 s rollouts: model file {:.4e} rad, fitted {:.4e}, commands {:.4e}",
            s.mean(|j| &j.model),
            s.mean(|j| &j.fitted),
            s.mean(|j| &j.commanded)
        )
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}
