//! `kind = "recorded"`: a real robot's recording through the path a user takes with their own
//! ([`crate::study::recorded`]): imported (`validation import`), identified by the IDIM family
//! and a joint-level NIM trained on a simulated family of the robot, validated by prediction on
//! the held-out end and replayed in Rapier, beside published values; report `<name>.md` and
//! `<name>_torque.png`.
//!
//! ```toml
//! kind = "recorded"
//! name = "real_tx40"
//! run = "tx40"                               # the imported run's id and directory (runs/tx40)
//! recording = "../models/tx40/recording"    # a file `validation import` reads, or with
//!                                            # [figaroh] a folder of FIGAROH's CSVs
//! urdf = "../models/tx40/tx40_mdh_modified.urdf"
//! config = "../models/tx40/recording.toml"   # gear ratios, couplings, offsets (optional)
//! rate = 5000.0                              # Hz, where the recording has no time column
//! lowpass = { type = "butterworth", order = 4, cutoff = 25.0 }
//! holdout = 0.3                              # the end share held out for validation
//! source = "…"                               # where the data come from, said in the report
//!
//! [figaroh]                                  # FIGAROH's layout: two CSVs, `Joint_1..n` each
//! angles = "pos_read_data.csv"               # motor angles (rad)
//! torques = "curr_data.csv"                  # motor torques (N·m)
//! published = "TX40_ep_5.csv"                # its essential parameters (WLS column)
//!
//! [nim]                                      # the joint-level NIM of the robot's family
//! population = "../scenarios/population_tx40.toml"
//! arms = 1000
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sim::scenario::Scenario;

use super::checks::MAX_ARMS;
use super::trained::joint_nim;
use super::{Checks, Context, StudyKind};
use crate::estimate::EstimatorId;
use crate::estimate::nim::joint::Sensing;
use crate::report::recorded::Reference;
use crate::study::cache;
use crate::study::file::StudyError;
use crate::study::recorded::RecordedStudy;
use sim::dataset::recorded::Lowpass;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)]
    kind: String,
    name: String,
    run: String,
    recording: PathBuf,
    urdf: PathBuf,
    #[serde(default)]
    config: Option<PathBuf>,
    #[serde(default)]
    rate: Option<f64>,
    lowpass: Lowpass,
    holdout: f64,
    source: String,
    #[serde(default)]
    figaroh: Option<Figaroh>,
    #[serde(default)]
    nim: Option<NimFile>,
}

/// FIGAROH's recording layout: the angles and the torques in two CSVs (`Joint_1..n` each, no
/// time column), and its published essential parameters.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figaroh {
    /// Motor angles (rad), relative to the recording folder.
    pub angles: PathBuf,
    /// Motor torques (N·m), relative to the recording folder.
    pub torques: PathBuf,
    /// Essential parameters (name, …, WLS value in the fourth column), relative to it.
    pub published: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NimFile {
    population: PathBuf,
    arms: usize,
}

/// A recorded-run study.
#[derive(Clone, Debug)]
pub struct RecordedPlan {
    /// Its name.
    pub name: String,
    /// The imported run's id (and its directory's name under `runs/`).
    pub run: String,
    /// The recording (resolved).
    pub recording: PathBuf,
    /// The robot's URDF (resolved): the import's model and the identifiers' prior.
    pub urdf: PathBuf,
    /// The import's configuration (resolved).
    pub config: Option<PathBuf>,
    /// The sample rate where the recording has no time column (Hz).
    pub rate: Option<f64>,
    /// The import's low-pass.
    pub lowpass: Lowpass,
    /// The end share held out.
    pub holdout: f64,
    /// Where the data come from (the report's words).
    pub source: String,
    /// FIGAROH's layout, where the recording is one.
    pub figaroh: Option<Figaroh>,
    /// The NIM's population scenario (resolved) and arms.
    pub nim: Option<(PathBuf, usize)>,
}

/// The study with what its report says beside it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedReport {
    /// The study.
    #[serde(flatten)]
    pub study: RecordedStudy,
    /// The URDF's joint names, in order.
    pub joints: Vec<String>,
    /// Where the data come from.
    pub source: String,
    /// Published values beside ours: (our name, theirs, value).
    pub reference: Vec<Reference>,
    /// The torque figure's file, beside the report.
    pub figure: String,
}

impl RecordedPlan {
    /// The file `validation import` reads: the recording itself, or FIGAROH's CSVs written as
    /// one wide CSV into `runs/`.
    fn importable(&self, ctx: &Context) -> crate::Result<PathBuf> {
        let Some(f) = &self.figaroh else {
            return Ok(self.recording.clone());
        };
        let to = ctx.runs().join(format!("{}_recording.csv", self.run));
        wide_csv(
            &self.recording.join(&f.angles),
            &self.recording.join(&f.torques),
            &to,
        )?;
        Ok(to)
    }

    /// The joint-level NIM of the robot's family (cached); its models' directory.
    fn nim(&self, ctx: &Context) -> crate::Result<Option<PathBuf>> {
        let Some((population, arms)) = &self.nim else {
            return Ok(None);
        };
        let scenario = Scenario::from_path(population)?;
        let (runs, _) = cache::population(&ctx.populations(), &scenario, *arms)?;
        let key = cache::population_key(&scenario);
        let label = format!(
            "nim_joint_{}",
            scenario.file.name.trim_start_matches("population_")
        );
        let (t, models) = joint_nim(
            ctx,
            &label,
            Sensing::JointLevel,
            &scenario.file.name,
            &key,
            &runs,
        )?;
        println!(
            "trained the joint-level NIM of {} on {} arms ({} kept out, {} steps, σ × {:.2}) into {}",
            scenario.file.name,
            t.arms,
            t.calibration_arms,
            t.steps,
            t.sigma_scale,
            models.display()
        );
        Ok(Some(models))
    }
}

impl StudyKind for RecordedPlan {
    const NAME: &'static str = "recorded";
    type Result = RecordedReport;

    fn read(text: &str, at: &Checks) -> Result<Self, StudyError> {
        let f: File = at.parse(text)?;
        if !(f.holdout > 0.0 && f.holdout < 1.0) {
            return Err(at.invalid(
                "holdout",
                format!("expected a share in (0, 1), got {}", f.holdout),
            ));
        }
        if f.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(at.invalid(
                "rate",
                format!("expected a positive rate (Hz), got {:?}", f.rate),
            ));
        }
        let nim = match f.nim {
            None => None,
            Some(n) => Some((
                at.scenario("nim.population", &n.population)?,
                at.count("nim.arms", n.arms, MAX_ARMS)?,
            )),
        };
        Ok(RecordedPlan {
            name: f.name,
            run: f.run,
            // Checked when run: a recording outside the workspace may be absent where the
            // study is only listed (`reproduce` skips it, saying so).
            recording: at.resolve(&f.recording),
            urdf: at.existing("urdf", &f.urdf, "URDF file")?,
            config: (f.config.as_ref())
                .map(|c| at.existing("config", c, "recording configuration"))
                .transpose()?,
            rate: f.rate,
            lowpass: f.lowpass,
            holdout: f.holdout,
            source: f.source,
            figaroh: f.figaroh,
            nim,
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute(&self, ctx: &Context) -> crate::Result<RecordedReport> {
        if !self.recording.exists() {
            return Err(crate::Error::Invalid {
                what: format!(
                    "study `{}`: recording `{}`",
                    self.name,
                    self.recording.display()
                ),
                expected: "an existing recording (a file, or with [figaroh] a folder)".into(),
            });
        }
        let run = ctx.runs().join(&self.run);
        let manifest = crate::import::import(&crate::import::Options {
            recording: self.importable(ctx)?,
            urdf: self.urdf.clone(),
            reading: crate::import::Reading {
                config: self.config.clone(),
                rate: self.rate,
                lowpass: self.lowpass.clone(),
                topics: Vec::new(),
            },
            episode: None,
            run_id: Some(self.run.clone()),
            out: run.clone(),
            force: true,
        })?;
        println!("wrote {} ({} samples)", run.display(), manifest.samples);
        let options = crate::estimate::Options {
            prior: Some(self.urdf.clone()),
            nim_models: self.nim(ctx)?,
        };
        let replay = ctx.runs().join(format!("{}_replay", self.run));
        let study = crate::study::recorded::study(&run, self.holdout, &options, Some(&replay))?;
        let reference = match &self.figaroh {
            Some(f) => published(&self.recording.join(&f.published))?,
            None => Vec::new(),
        };
        Ok(RecordedReport {
            study,
            joints: manifest.joints.iter().map(|j| j.name.clone()).collect(),
            source: self.source.clone(),
            reference,
            figure: format!("{}_torque.png", self.name),
        })
    }

    fn render(&self, r: &RecordedReport, report: &Path) -> crate::Result<()> {
        let path = report.join(format!("{}.md", self.name));
        crate::files::write_atomic(&path, &Self::markdown(r)).map_err(crate::Error::io(&path))?;
        crate::files::write_atomic_with(&report.join(&r.figure), |tmp| {
            crate::report::recorded::plot(&r.study, &r.joints, tmp)
        })
    }

    fn markdown(r: &RecordedReport) -> String {
        crate::report::recorded::render(
            &r.study,
            &r.joints,
            &r.source,
            &r.reference,
            Some(&r.figure),
        )
    }

    fn summary(r: &RecordedReport) -> String {
        let nrms = |method: EstimatorId, p: &str| {
            RecordedStudy::value(&r.study.holdout_rows, method.name(), p)
                .map_or(f64::NAN, |x| 100.0 * x)
        };
        let mut line = format!(
            "holdout torque NRMS idim_wls {:.1} % (moving joints {:.1} %), idim_ols {:.1} %, nim {:.1} %",
            nrms(EstimatorId::IdimWls, "torque_nrms"),
            nrms(EstimatorId::IdimWls, "torque_nrms.moving"),
            nrms(EstimatorId::IdimOls, "torque_nrms"),
            nrms(EstimatorId::Nim, "torque_nrms"),
        );
        for replay in &r.study.replays {
            line += &format!(
                "; replayed in Rapier ({}): {:.2} %",
                replay.method,
                100.0 * replay.residual.torque_nrms
            );
        }
        let own = crate::study::recorded::REPLAYED;
        line + &format!("; {own}'s own prediction {:.2} %", nrms(own, "torque_nrms"))
    }
}

/// FIGAROH's two CSVs (`Joint_1..n` each, a header, no time column) as one wide table:
/// `qm_joint_k` (motor angles, rad) and `taum_joint_k` (motor torques, N·m).
fn wide_csv(angles: &Path, torques: &Path, to: &Path) -> crate::Result<()> {
    let read = |path: &Path| -> crate::Result<Vec<String>> {
        let text = std::fs::read_to_string(path).map_err(crate::Error::io(path))?;
        Ok(text.lines().skip(1).map(String::from).collect())
    };
    let (a, t) = (read(angles)?, read(torques)?);
    let joints = a.first().map_or(0, |l| l.split(',').count());
    if a.len() != t.len() || t.first().map_or(0, |l| l.split(',').count()) != joints {
        return Err(crate::Error::Format {
            path: torques.to_path_buf(),
            message: format!(
                "expected the rows and columns of `{}` ({} rows of {joints} angles), got {} rows \
                 of {} torques",
                angles.display(),
                a.len(),
                t.len(),
                t.first().map_or(0, |l| l.split(',').count())
            ),
        });
    }
    let mut text: String = (1..=joints).map(|k| format!("qm_joint_{k},")).collect();
    text += &(1..=joints)
        .map(|k| format!("taum_joint_{k}"))
        .collect::<Vec<_>>()
        .join(",");
    text += "\n";
    for (a, t) in a.iter().zip(&t) {
        text += &format!("{a},{t}\n");
    }
    crate::files::write_atomic(to, &text).map_err(crate::Error::io(to))
}

/// FIGAROH's essential parameters that name one drive term of joints 1–5 (`fv<j>`, `fs<j>`,
/// `Ia<j>`; WLS column), as ours are named. Its joint-6 terms are split otherwise (`fv6`
/// beside `fvm6`, `Iam6`: ours are one drive on the coupled wrist), so joint 6 is not compared.
fn published(path: &Path) -> crate::Result<Vec<Reference>> {
    let text = std::fs::read_to_string(path).map_err(crate::Error::io(path))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split(',').collect();
        let (Some(name), Some(value)) = (cells.first(), cells.get(3)) else {
            continue;
        };
        let term = [("fv", "viscous"), ("fs", "coulomb"), ("Ia", "armature")]
            .iter()
            .find_map(|(prefix, ours)| {
                let joint: u8 = name.strip_prefix(prefix)?.parse().ok()?;
                (1..=5).contains(&joint).then(|| format!("O{joint}.{ours}"))
            });
        if let Some(ours) = term {
            let value: f64 = value.trim().parse().map_err(|_| crate::Error::Format {
                path: path.to_owned(),
                message: format!("`{name}`: expected a number in the fourth column"),
            })?;
            out.push((ours, name.to_string(), value));
        }
    }
    Ok(out)
}
