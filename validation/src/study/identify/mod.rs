//! From a robot's log to a model (`armid identify LOG --model ROBOT --out DIR`): the log
//! imported ([`crate::import`]), cut into an identification part and a held-out end
//! ([`crate::estimate::engine::Loaded::split`]), every estimator that applies run on it and
//! scored by prediction on the held-out end and by its rollouts there
//! ([`crate::estimate::drift`]), one model chosen by a stated rule ([`crate::estimate::choice`]), written for the simulators people use, replayed in Rapier,
//! and every choice made put in the report.
//!
//! `DIR` holds, whole or not at all (built in `DIR.partial`, renamed at the end):
//! * `model.urdf`: the chosen model's links (the file's kinematics, the identified bodies);
//! * `model.xml`: the same arm in MJCF with the identified drives ([`sim::mjcf::with_drives`]:
//!   armature, damping, friction loss, a tendon per coupled drive, a motor per drive where the
//!   transmission is stated);
//! * `drives.toml`: the drive terms ([`sim::replay::DriveTrain`]), what `sim replay --drives`
//!   reads and what MJCF cannot state (the reading's offset, the Coulomb term's dead band);
//! * `estimates.csv`: every estimator's estimates with σ, and its holdout NRMS rows;
//! * `identification.json`: what the report draws ([`Identification`]);
//! * `run/` (the imported run) and `replay/` (Rapier's replay of the log on the file as given
//!   and on the chosen model).
//!
//! The model written is the one identified on the first part, whose holdout NRMS the report
//! states: refitting it on the whole log would give a model no figure describes.
//!
//! **A servo arm** (logs with commands `qcmd_` and no torque: LeRobot's SO-100/SO-101, Koch) takes
//! another route ([`servo`]): its logs, one or several (files, or a LeRobot dataset's episodes), each imported into `runs/<id>` (one log: `run/`), its servos fitted by
//! simulation on the first part of every log and judged on the rest, `model.xml` with a
//! `<position>` actuator per servo. Several logs of a torque-logging arm are refused: its route
//! takes one log.

mod estimators;
mod fit;
mod model;
mod options;
pub mod servo;
mod sources;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::estimate::choice::{self, Choice};
use crate::estimate::engine::Loaded;
use crate::estimate::score::Row;
use crate::study::recorded::{PRIOR, ReplayCheck, Traces};
use crate::study::run_view::RunView;

pub use fit::{JointFit, LinkFit, ParameterFit};
pub use options::Options;
pub use servo::ServoIdentification;

/// What `identify` found (serialized into `identification.json` and the report).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Identification {
    /// The files given: log, model, configuration.
    pub inputs: Vec<String>,
    /// The run's id.
    pub run_id: String,
    /// The signal chain as applied at import (grid, low-pass, derivatives).
    pub signal: sim::dataset::recorded::Chain,
    /// Samples after import (past the filter's end transients: the estimators' samples).
    pub samples: usize,
    /// The share of the log's time span held out, at its end.
    pub holdout: f64,
    /// Start of the held-out stretch (s).
    pub split_at: f64,
    /// Estimators run.
    pub ran: Vec<String>,
    /// `(estimator, reason)` of those that did not apply or failed.
    pub skipped: Vec<(String, String)>,
    /// Every estimate, with σ, and each torque model's prediction rows on the held-out end.
    pub rows: Vec<Row>,
    /// The rule, and what it chose.
    pub rule: String,
    /// The choice.
    pub choice: Choice,
    /// The chosen model per joint.
    pub joints: Vec<JointFit>,
    /// The chosen model's links beside the file's.
    pub links: Vec<LinkFit>,
    /// The chosen estimator's parameters, with σ.
    pub parameters: Vec<ParameterFit>,
    /// The chosen model's torque over the held-out stretch.
    pub traces: Traces,
    /// Rapier's replays over the held-out stretch: the file as given, then the chosen model.
    pub replays: Vec<ReplayCheck>,
    /// The files written, relative to the output directory.
    pub files: Vec<String>,
    /// The arm moving through the log: Rapier's replay on the chosen model.
    pub arm: RunView,
}

/// The report's file in the output directory.
pub const REPORT: &str = "report.html";

/// What `identify` found: a torque-logging arm's bodies and drives chosen among estimators, or
/// a servo arm's servos fitted by simulation.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "arm", rename_all = "snake_case")]
pub enum Found {
    /// From a torque (or current) log.
    Torque(Box<Identification>),
    /// From a servo arm's logs.
    Servo(Box<ServoIdentification>),
}

/// Runs `identify` (module docs) and `render` (which writes the report, [`REPORT`], into the
/// directory it is given); returns what it found.
pub fn identify(
    o: &Options,
    render: &dyn Fn(&Found, &Path) -> crate::Result<()>,
) -> crate::Result<Found> {
    if o.out.exists() && !o.force {
        return Err(crate::Error::invalid(
            format!("--out {}", o.out.display()),
            "a directory that does not exist yet (or --force to replace it)",
        ));
    }
    let work = partial(&o.out);
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(crate::Error::io(&work))?;
    }
    std::fs::create_dir_all(&work).map_err(crate::Error::io(&work))?;
    let found = identify_into(o, &work).and_then(|found| {
        let json = match &found {
            Found::Torque(f) => serde_json::to_string(f),
            Found::Servo(f) => serde_json::to_string(f),
        };
        let path = work.join("identification.json");
        crate::files::write_atomic(&path, &json.expect("serializes"))
            .map_err(crate::Error::io(&path))?;
        render(&found, &work)?;
        Ok(found)
    });
    let found = match found {
        Ok(found) => found,
        Err(e) => {
            // Nothing of a failed run is left behind.
            let _ = std::fs::remove_dir_all(&work);
            return Err(e);
        }
    };
    if o.out.exists() {
        std::fs::remove_dir_all(&o.out).map_err(crate::Error::io(&o.out))?;
    }
    std::fs::rename(&work, &o.out).map_err(crate::Error::io(&o.out))?;
    Ok(found)
}

/// `DIR.partial`, beside `DIR`.
fn partial(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

/// The steps of [`identify`], written into `work`: each log imported, then the servo arm's
/// route or the torque-logging arm's.
fn identify_into(o: &Options, work: &Path) -> crate::Result<Found> {
    let logs = sources::expand(&o.logs)?;
    if let [log] = logs.as_slice() {
        let run_dir = work.join("run");
        let manifest = log.import(o, &run_dir)?;
        return match servo::is_servo_run(&manifest) {
            true => {
                servo::identify(o, &[run_dir], (work, REPORT)).map(|f| Found::Servo(Box::new(f)))
            }
            false => torque(o, work, manifest).map(|f| Found::Torque(Box::new(f))),
        };
    }
    let mut runs = Vec::with_capacity(logs.len());
    for log in &logs {
        let run = work.join("runs").join(&log.id);
        if !servo::is_servo_run(&log.import(o, &run)?) {
            return Err(crate::Error::invalid(
                log.name(),
                "a servo arm's log (commands qcmd_, no torque): identify fits several logs of a \
                 servo arm as one; a torque-logging arm's identification takes one log",
            ));
        }
        runs.push(run);
    }
    servo::identify(o, &runs, (work, REPORT)).map(|f| Found::Servo(Box::new(f)))
}

/// A torque-logging arm's identification from its run in `work/run`.
fn torque(
    o: &Options,
    work: &Path,
    manifest: sim::dataset::recorded::RecordedManifest,
) -> crate::Result<Identification> {
    let run_dir = work.join("run");
    let loaded = Loaded::read(&run_dir)?;
    let (identify, validate) = loaded.split(o.holdout)?;
    let outcome = estimators::run(o.only.as_deref(), &o.model, &identify, &validate)?;
    let mut candidates = choice::candidates(&outcome);
    choice::measure_drift(&mut candidates, &outcome, &validate)?;
    let choice = choice::choose(&candidates).ok_or_else(|| no_choice(&outcome, &candidates))?;
    let chosen = (outcome.models.iter())
        .find(|m| m.method == choice.method)
        .expect("the rule chooses among the models");
    let prior = sim::description::read_named(&o.model, &manifest.config.lock)?.0;
    let names: Vec<String> = manifest.joints.iter().map(|j| j.name.clone()).collect();
    let mut files = model::write(work, chosen, &loaded, &names)?;
    let replays = vec![
        replay(
            &run_dir,
            PRIOR,
            std::slice::from_ref(&o.model),
            o.holdout,
            work,
        )?,
        replay(
            &run_dir,
            &choice.method,
            &[work.join("model.urdf"), work.join("drives.toml")],
            o.holdout,
            work,
        )?,
    ];
    let arm =
        crate::study::run_view::motion(&Loaded::read(&work.join("replay").join(&choice.method))?);
    let path = work.join("estimates.csv");
    crate::files::write_atomic(&path, &crate::estimate::score::csv(&outcome.rows))
        .map_err(crate::Error::io(&path))?;
    files.push("estimates.csv".into());
    files.push("identification.json".into());
    files.push(REPORT.into());
    let mut inputs: Vec<String> = o.logs.iter().map(|l| l.display().to_string()).collect();
    inputs.push(o.model.display().to_string());
    inputs.extend(o.reading.config.as_ref().map(|c| c.display().to_string()));
    let found = Identification {
        inputs,
        run_id: manifest.run_id.clone(),
        signal: manifest.signal.clone(),
        samples: loaded.measurements.samples(),
        holdout: o.holdout,
        split_at: validate.measurements.t[0],
        ran: outcome.methods().into_iter().map(String::from).collect(),
        skipped: (outcome.skipped.iter().chain(&outcome.failed).cloned()).collect(),
        rule: choice::RULE.to_string(),
        joints: fit::joints(
            &validate,
            &manifest.signal,
            &outcome,
            &choice.method,
            &replays[1],
        ),
        links: fit::links(&prior, &chosen.chain),
        parameters: fit::parameters(&outcome.rows, &choice.method),
        traces: crate::study::recorded::trace(&choice.method, chosen, &validate),
        rows: outcome.rows,
        choice,
        replays,
        files,
        arm,
    };
    Ok(found)
}

/// Rapier's replay of the run in `run_dir` on `files` over the held-out stretch, into
/// `work/replay/<method>`.
fn replay(
    run_dir: &Path,
    method: &str,
    files: &[PathBuf],
    holdout: f64,
    work: &Path,
) -> crate::Result<ReplayCheck> {
    let mut check = crate::study::recorded::replay(
        run_dir,
        method,
        files,
        holdout,
        &work.join("replay").join(method),
    )?;
    check.files = (files.iter())
        .map(|f| f.strip_prefix(work).unwrap_or(f).display().to_string())
        .collect();
    Ok(check)
}

/// The error when no estimator gave a model the rule can choose.
fn no_choice(
    outcome: &crate::estimate::engine::Outcome,
    candidates: &[choice::Candidate],
) -> crate::Error {
    let mut reasons: Vec<(String, String)> = (outcome.inconsistent.iter())
        .map(|(m, link, why)| (m.clone(), format!("inconsistent: link {link}: {why}")))
        .collect();
    for m in outcome
        .models
        .iter()
        .filter(|m| !choice::physical_drives(m))
    {
        for d in m.drives.iter().flat_map(|d| &d.drive) {
            for (what, v) in [
                ("Coulomb level", d.coulomb),
                ("viscous coefficient", d.viscous),
                ("rotor inertia", d.armature),
            ] {
                if v < 0.0 {
                    reasons.push((
                        m.method.clone(),
                        format!("inconsistent: drive of joint {}: {what} {v:e} < 0", d.joint),
                    ));
                }
            }
        }
    }
    for c in candidates.iter().filter(|c| c.blows_up()) {
        let d = c
            .drift
            .as_ref()
            .expect("a model that blows up has rollouts");
        reasons.push((
            c.method.clone(),
            format!(
                "{} of its {} held-out rollouts of {} s blew up",
                d.blown_up, d.windows, d.horizon
            ),
        ));
    }
    reasons.extend(outcome.skipped.iter().chain(&outcome.failed).cloned());
    crate::Error::NoEstimator {
        what: "the log".into(),
        wanted: format!(
            "gave a model whose every body is physically consistent and whose rollouts do \
             not blow up (the rule: {})",
            choice::RULE
        ),
        reasons,
    }
}
