//! `identify` on a servo arm's logs (commanded and measured positions, no torque): the servos'
//! terms fitted by simulation on the first part of every log and judged on the rest.
//!
//! Every log is imported (into `run/`, or `runs/<id>` where there are several). The fit starts
//! from a stated `--start drives.toml`, or else from the model file's bodies and joint terms
//! with a hobby servo's loop scaled to each servo's torque limit ([`HOBBY_SERVO`]; for the
//! SO-101's 2.94 N·m, the values `models/so101/start.toml` argues from its logs): a model
//! file's own servo gains are often far from the arm's (Menagerie's SO-101 has `kp` 998 N·m/rad
//! where the real arm's are 10–17), and a start that stiff costs rollouts a hundred steps a
//! sample. The prior ([`Prior::default`]) keeps each term near the start unless the logs demand
//! otherwise. It fits the `--terms` of every commanded
//! joint on the rollouts of the logs' first `1 − holdout` of their time (windows of 1 s every
//! `--spacing` s, never across two logs, never into the held-out part). Each log's held-out end is then
//! rolled out ([`Windows::SERVO`]: 1 s every 0.5 s) with the model file's own servos (where it
//! has them), with the fitted ones, and beside taking each command for the position. Written:
//! `model.xml` (the model's bodies, each servo a `<position kp kv forcerange>` actuator, the
//! joints' armature, damping and friction loss; delay in a comment), `drives.toml` (what `armid
//! rollout --drives` reads, the delay included), `identification.json` and the report.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sim::rollout::{Logged, Model, Windows, command_baseline, fidelity, prepare};

use crate::estimate::simulation_fit::command::{drive_train, joint_names, servo_terms};
use crate::estimate::simulation_fit::{
    Options as FitOptions, Prior, SimulationFit, Term, TermKind, fit,
};
use crate::study::servo_fit::Judged;

/// What `identify` found on a servo arm's logs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServoIdentification {
    /// The files given: logs, model, configuration.
    pub inputs: Vec<String>,
    /// The imported runs' ids (`runs/<id>`).
    pub runs: Vec<String>,
    /// The joints' names (chain order).
    pub joints: Vec<String>,
    /// The share of each log's time span held out, at its end.
    pub holdout: f64,
    /// The start: `the model file's servos`, or the drive train given.
    pub start_from: String,
    /// Each fitted term's start value (the order of `fit.terms`).
    pub start: Vec<f64>,
    /// The fit.
    pub fit: SimulationFit,
    /// The fit's windows.
    pub windows: Windows,
    /// Every log's held-out end, rolled out (NaN in `model` where the file has no servos).
    pub judged: Vec<Judged>,
    /// The files written, relative to the output directory.
    pub files: Vec<String>,
}

impl ServoIdentification {
    /// The mean over logs of each log's mean over joints of `row`.
    pub fn mean(&self, row: crate::study::servo_fit::Row) -> f64 {
        Judged::mean_over(&self.judged, row)
    }
}

/// Whether the run `manifest` describes is a servo arm's: commands on its joints, and no
/// torque.
pub fn is_servo_run(manifest: &sim::dataset::recorded::RecordedManifest) -> bool {
    (manifest.joints.iter()).all(|j| j.columns.torque.is_none())
        && manifest.joints.iter().any(|j| j.columns.command.is_some())
}

/// Identifies the servos of the runs in `runs` (imported into `work`), writing the model files
/// into `work`; `report` the file the report will be written to there (`identification.json`
/// is the caller's).
pub(super) fn identify(
    o: &super::options::Options,
    runs: &[PathBuf],
    (work, report): (&Path, &str),
) -> crate::Result<ServoIdentification> {
    let mut file_model = None;
    let mut logs = Vec::with_capacity(runs.len());
    for run in runs {
        let p = prepare(run, Some(&o.model), None)
            .map_err(|e| crate::Error::from(e).within(run.display().to_string()))?;
        file_model.get_or_insert(p.model);
        logs.push(p.log);
    }
    let file_model = file_model.ok_or_else(|| crate::Error::invalid("logs", "at least one"))?;
    let start_model = match &o.start {
        Some(start) => {
            prepare(&runs[0], Some(&o.model), Some(start))
                .map_err(|e| crate::Error::from(e).within(start.display().to_string()))?
                .model
        }
        None => hobby_servos(&file_model)?,
    };
    let splits: Vec<f64> = logs.iter().map(|l| split_at(l, o.holdout)).collect();
    let fit_logs: Vec<Logged> = (logs.iter().zip(&splits))
        .map(|(l, &s)| l.before(s))
        .collect();
    let terms = servo_terms(&start_model, &fit_logs, &o.terms)?;
    let start = (terms.iter())
        .map(|t| t.value(&start_model).unwrap_or(f64::NAN))
        .collect();
    let windows = Windows {
        horizon: Windows::SERVO.horizon,
        spacing: o.spacing,
    };
    let options = FitOptions {
        windows,
        iterations: o.iterations,
        tolerance: 1e-6,
        prior: Some(Prior::default()),
        verbose: false,
    };
    let fitted = fit(&start_model, &terms, &fit_logs, options)?;
    let mut model = start_model.clone();
    for (t, v) in fitted.terms.iter().zip(&fitted.values) {
        t.set(&mut model, *v);
    }
    let judged = (runs.iter().zip(&logs).zip(&splits))
        .map(|((run, log), &from)| judge(run, log, from, (&file_model, &model)))
        .collect::<crate::Result<_>>()?;
    let joints = joint_names(&runs[0])?;
    let mut files = write(work, &fitted, &start_model, &joints)?;
    files.push(report.into());
    let mut inputs: Vec<String> = o.logs.iter().map(|l| l.display().to_string()).collect();
    inputs.push(o.model.display().to_string());
    inputs.extend(o.reading.config.as_ref().map(|c| c.display().to_string()));
    let found = ServoIdentification {
        inputs,
        runs: runs.iter().map(|r| super::sources::run_id(r)).collect(),
        joints,
        holdout: o.holdout,
        start_from: (o.start.as_ref()).map_or(HOBBY_SERVO.into(), |p| p.display().to_string()),
        start,
        fit: fitted,
        windows,
        judged,
        files,
    };
    Ok(found)
}

/// The start where none is stated, in words.
pub const HOBBY_SERVO: &str = "a hobby servo's loop scaled to the file's torque limit τ_max: \
    kp = τ_max / 0.6 rad, kd = 0.1 τ_max s, delay 50 ms, Coulomb 0.1 τ_max";

/// `file` with a hobby servo's loop on every servo ([`HOBBY_SERVO`]); the bodies, armature,
/// damping and torque limits the file's. `Err` where a servo has no torque limit to scale from.
fn hobby_servos(file: &Model) -> crate::Result<Model> {
    let mut start = file.clone();
    for j in 0..start.servos.len() {
        let Some(limit) = file.servo(j).map(|s| s.torque_limit) else {
            continue;
        };
        if !limit.is_finite() {
            return Err(crate::Error::invalid(
                format!("--model: joint {}", file.chain.links[j].name),
                "a servo with a torque limit (MJCF forcerange) to scale the fit's start from, \
                 or a start stated with --start drives.toml",
            ));
        }
        let joint = j as u8 + 1;
        for (kind, value) in [
            (TermKind::Kp, limit / 0.6),
            (TermKind::Kd, 0.1 * limit),
            (TermKind::Delay, 0.05),
            (TermKind::Coulomb, 0.1 * limit),
        ] {
            Term { joint, kind }.set(&mut start, value);
        }
    }
    Ok(start)
}

/// Where `log`'s held-out end starts (s).
fn split_at(log: &Logged, holdout: f64) -> f64 {
    let (t0, t1) = (log.t[0], log.t[log.t.len() - 1]);
    t0 + (1.0 - holdout) * (t1 - t0)
}

/// The held-out end of `log` (from `from`, s) rolled out with the file's servos and the fitted
/// ones, beside the commands.
fn judge(
    run: &Path,
    log: &Logged,
    from: f64,
    (file, fitted): (&Model, &Model),
) -> crate::Result<Judged> {
    let within =
        |e: sim::rollout::RolloutError| crate::Error::from(e).within(run.display().to_string());
    let windows = Windows::SERVO;
    let ours = fidelity(fitted, log, windows, from).map_err(within)?;
    let commanded = command_baseline(log, windows, from).ok_or_else(|| {
        crate::Error::invalid(
            run.display().to_string(),
            "a held-out end of at least one 1 s window, with commands (qcmd_)",
        )
    })?;
    let has_servos = (0..log.q.len()).all(|j| log.q_cmd[j].is_none() || file.servo(j).is_some());
    let theirs = match has_servos {
        true => fidelity(file, log, windows, from).map_err(within)?.horizon,
        false => vec![f64::NAN; log.q.len()],
    };
    Ok(Judged {
        log: super::sources::run_id(run),
        windows: ours.per_window.len(),
        model: theirs,
        fitted: ours.horizon,
        commanded: commanded.horizon,
    })
}

/// Writes `drives.toml` and `model.xml`; returns the files written here and next
/// (`identification.json`), relative to `work`.
fn write(
    work: &Path,
    fitted: &SimulationFit,
    start: &Model,
    joints: &[String],
) -> crate::Result<Vec<String>> {
    let train = drive_train(fitted, start);
    let text = toml::to_string(&train).expect("a drive train serializes");
    let header = format!(
        "# armid identify: the servos fitted by simulation ({} terms on {} windows; RMS residual \
         {:.4e} rad)\n",
        fitted.terms.len(),
        fitted.windows,
        fitted.rms
    );
    let path = work.join("drives.toml");
    crate::files::write_atomic(&path, &(header + &text)).map_err(crate::Error::io(&path))?;
    let actuation = sim::mjcf::Actuation {
        drives: &train,
        transmission: None,
    };
    let xml = sim::mjcf::export::with_drives(&start.chain, Some(joints), Some(&actuation));
    let path = work.join("model.xml");
    crate::files::write_atomic(&path, &xml).map_err(crate::Error::io(&path))?;
    Ok(["model.xml", "drives.toml", "identification.json"]
        .map(String::from)
        .to_vec())
}
