//! A servo arm identified by simulation from some of its logs and judged on others: each
//! recording imported (`armid import`), the servos' terms fitted on the fit logs' rollouts
//! (`crate::estimate::simulation_fit`, from a stated start), and every held-out log rolled out
//! under its commands with the model file's own servos, with the fitted ones, and beside the
//! no-model baseline that each joint is where it was told to be (`sim::rollout`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::estimate::simulation_fit::command::{drive_train, joint_names, servo_terms};
use crate::estimate::simulation_fit::{Options, Prior, SimulationFit, TermKind, fit};
use sim::dataset::recorded::Lowpass;
use sim::rollout::{Windows, prepare};

/// What the study is given (paths resolved).
#[derive(Clone, Debug)]
pub struct ServoFitInput {
    /// The robot's model file (MJCF or URDF): the bodies, and the servos judged beside the fit.
    pub model: PathBuf,
    /// The recording configuration of every import.
    pub config: Option<PathBuf>,
    /// The import's low-pass.
    pub lowpass: Lowpass,
    /// The fit's start (`drives.toml` with a `[[servo]]` per joint).
    pub start: PathBuf,
    /// The terms fitted on every servo-driven joint.
    pub terms: Vec<TermKind>,
    /// The logs fitted on.
    pub fit: Vec<PathBuf>,
    /// The logs judged on (held out of the fit).
    pub judge: Vec<PathBuf>,
    /// The fit's windows (the judged rollouts take the servo default, [`Windows::SERVO`]).
    pub windows: Windows,
    /// Most Levenberg–Marquardt iterations.
    pub iterations: usize,
    /// The prior toward the start.
    pub prior: Prior,
}

/// One held-out log's 1 s rollouts: mean joint error at the horizon (rad), overall and per
/// joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// The log's name (its file stem).
    pub log: String,
    /// Windows rolled out.
    pub windows: usize,
    /// The model file's own servos.
    pub model: Vec<f64>,
    /// The fitted servos.
    pub fitted: Vec<f64>,
    /// Each command taken for the position.
    pub commanded: Vec<f64>,
}

impl Judged {
    /// The mean over joints of one of the rows above.
    pub fn mean(row: &[f64]) -> f64 {
        row.iter().sum::<f64>() / row.len().max(1) as f64
    }

    /// The mean over `logs` of each log's mean over joints of `row`.
    pub fn mean_over(logs: &[Judged], row: Row) -> f64 {
        let all: Vec<f64> = logs.iter().map(|j| Judged::mean(row(j))).collect();
        Judged::mean(&all)
    }
}

/// One of a held-out log's rows: [`Judged::model`], [`Judged::fitted`] or [`Judged::commanded`].
pub type Row = fn(&Judged) -> &Vec<f64>;

/// The study's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServoFitStudy {
    /// The joints' names (chain order).
    pub joints: Vec<String>,
    /// The logs fitted on (file stems).
    pub fit_logs: Vec<String>,
    /// The fit.
    pub fit: SimulationFit,
    /// Each term's start value (same order and units as `fit.values`).
    pub start: Vec<f64>,
    /// The fit's windows.
    pub windows: Windows,
    /// The prior's σ: a factor on positive terms, seconds on delays.
    pub prior: (f64, f64),
    /// Every held-out log.
    pub judged: Vec<Judged>,
}

/// Where the study writes what it fitted.
#[derive(Clone, Copy, Debug)]
pub struct Outputs<'a> {
    /// The imported runs' parent directory.
    pub runs: &'a Path,
    /// The fitted drive train (`drives.toml`).
    pub drives: &'a Path,
    /// The fitted model as MJCF (each servo a `<position>` actuator).
    pub mjcf: &'a Path,
}

impl ServoFitStudy {
    /// The mean over the held-out logs of each log's mean over joints of `row`.
    pub fn mean(&self, row: Row) -> f64 {
        Judged::mean_over(&self.judged, row)
    }
}

/// Runs the study into `out`.
pub fn study(input: &ServoFitInput, out: Outputs) -> crate::Result<ServoFitStudy> {
    let (runs, drives) = (out.runs, out.drives);
    let import = |recording: &PathBuf| -> crate::Result<PathBuf> {
        let stem = stem(recording);
        let out = runs.join(&stem);
        crate::import::import(&crate::import::Options {
            recording: recording.clone(),
            urdf: input.model.clone(),
            reading: crate::import::Reading {
                config: input.config.clone(),
                rate: None,
                lowpass: input.lowpass.clone(),
                topics: Vec::new(),
            },
            episode: None,
            run_id: Some(stem),
            out: out.clone(),
            force: true,
        })?;
        Ok(out)
    };
    let fit_runs: Vec<PathBuf> = input.fit.iter().map(import).collect::<Result<_, _>>()?;
    let judge_runs: Vec<PathBuf> = input.judge.iter().map(import).collect::<Result<_, _>>()?;
    let (model, start, fitted) = fit_on(input, &fit_runs)?;
    let train = drive_train(&fitted, &model);
    let text = toml::to_string(&train).expect("a drive train serializes");
    crate::files::write_atomic(drives, &text).map_err(crate::Error::io(drives))?;
    let joints = joint_names(&fit_runs[0])?;
    let actuation = sim::mjcf::Actuation {
        drives: &train,
        transmission: None,
    };
    let xml = sim::mjcf::export::with_drives(&model.chain, Some(&joints), Some(&actuation));
    crate::files::write_atomic(out.mjcf, &xml).map_err(crate::Error::io(out.mjcf))?;
    let judged = (judge_runs.iter())
        .map(|run| judge(run, &input.model, drives))
        .collect::<crate::Result<_>>()?;
    Ok(ServoFitStudy {
        joints,
        fit_logs: input.fit.iter().map(|p| stem(p)).collect(),
        fit: fitted,
        start,
        windows: input.windows,
        prior: (input.prior.factor, input.prior.delay),
        judged,
    })
}

/// The model with the start's drives, each term's start value, and the fit on `runs`.
fn fit_on(
    input: &ServoFitInput,
    runs: &[PathBuf],
) -> crate::Result<(sim::rollout::Model, Vec<f64>, SimulationFit)> {
    let mut logs = Vec::with_capacity(runs.len());
    let mut model = None;
    for run in runs {
        let p = prepare(run, Some(&input.model), Some(&input.start))
            .map_err(|e| crate::Error::from(e).within(run.display().to_string()))?;
        model.get_or_insert(p.model);
        logs.push(p.log);
    }
    let model = model.ok_or_else(|| crate::Error::invalid("fit", "at least one log"))?;
    let terms = servo_terms(&model, &logs, &input.terms)?;
    let options = Options {
        windows: input.windows,
        iterations: input.iterations,
        // Tight: a weakly excited joint's term moves the cost little per step; the file's
        // `iterations` bounds the time.
        tolerance: 1e-9,
        prior: Some(input.prior),
        verbose: true,
    };
    let start = (terms.iter())
        .map(|t| t.value(&model).unwrap_or(f64::NAN))
        .collect();
    let fitted = fit(&model, &terms, &logs, options)?;
    Ok((model, start, fitted))
}

/// The held-out run's rollouts with the model's servos and with the fitted ones.
fn judge(run: &Path, model: &Path, drives: &Path) -> crate::Result<Judged> {
    let rollout = |drives: Option<&Path>| {
        sim::rollout::rollout(&sim::rollout::Options {
            run: run.to_path_buf(),
            model: Some(model.to_path_buf()),
            drives: drives.map(Path::to_path_buf),
            holdout: None,
            horizon: None,
            spacing: None,
            out: None,
        })
        .map_err(|e| crate::Error::from(e).within(run.display().to_string()))
    };
    let own = rollout(None)?;
    let fitted = rollout(Some(drives))?;
    let commanded = (own.commanded.as_ref()).ok_or_else(|| {
        crate::Error::invalid(run.display().to_string(), "a log with commands (qcmd_)")
    })?;
    Ok(Judged {
        log: stem(run),
        windows: own.fidelity.per_window.len(),
        model: own.fidelity.horizon,
        fitted: fitted.fidelity.horizon,
        commanded: commanded.horizon.clone(),
    })
}

/// A path's file stem, as text.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}
