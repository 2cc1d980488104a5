//! The subprocess protocol: an estimator that is a command of any language.
//!
//! For each run it estimates on, the command is started as
//!
//! ```text
//! <argv…> MEASUREMENT_DIR ANSWER_CSV
//! ```
//!
//! in the study file's directory, with no standard input. `MEASUREMENT_DIR` is a fresh
//! measurement directory ([`sim::reading::measurement_dir`]: the run's tables as its sensors
//! saw them and `measurement.json`, no truth); the command writes its estimates to
//! `ANSWER_CSV` (the form of [`super`]) and exits 0. A nonzero exit, a missing or malformed
//! answer fails the estimate, with the command's last lines of standard error; a sweep reports it
//! beside the level (`failed at level …`). Both paths are removed after the answer is read.
//! Commands run concurrently, one per Monte-Carlo draw in flight.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{AnswerRow, values};
use crate::estimate::{
    EstimateError, Estimates, Estimator, Experiment, NotApplicable, from_values, single,
};

/// A command that estimates (the study file's `[[external]]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalCommand {
    name: String,
    argv: Vec<String>,
    cwd: PathBuf,
}

impl ExternalCommand {
    /// The command `argv` (program, then its first arguments) named `name`, started in `cwd`.
    pub fn new(name: impl Into<String>, argv: Vec<String>, cwd: impl Into<PathBuf>) -> Self {
        ExternalCommand {
            name: name.into(),
            argv,
            cwd: cwd.into(),
        }
    }

    /// The program and its first arguments.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    fn fail(&self, message: String) -> EstimateError {
        EstimateError {
            estimator: self.name.clone(),
            message,
        }
    }

    /// Runs the command on `dir`, answering into `answer`.
    fn call(&self, dir: &Path, answer: &Path) -> Result<(), EstimateError> {
        let (program, first) = self
            .argv
            .split_first()
            .ok_or_else(|| self.fail("empty command".into()))?;
        let output = std::process::Command::new(program)
            .args(first)
            .arg(dir)
            .arg(answer)
            .current_dir(&self.cwd)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| self.fail(format!("cannot start `{program}`: {e}")))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(self.fail(format!(
            "`{}` exited with {}: {}",
            self.argv.join(" "),
            output.status,
            tail.join(" | ")
        )))
    }
}

/// A scratch directory of this process, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "armid-{name}-{}-{k}",
            sim::dataset::temporary::name("")
        ));
        std::fs::create_dir_all(dir.join("measurement"))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An answer file that cannot be read: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("answer `{}`: {problem}", path.display())]
struct AnswerError {
    /// The answer file.
    path: std::path::PathBuf,
    /// What is wrong, naming the row and column where there is one.
    problem: String,
}

/// The rows of an answer CSV file.
fn read_answer(path: &Path) -> Result<Vec<AnswerRow>, AnswerError> {
    let error = |problem: String| AnswerError {
        path: path.to_owned(),
        problem,
    };
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| error(format!("{e} (the command wrote no answer)")))?;
    let headers = reader.headers().map_err(|e| error(e.to_string()))?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(p), Some(e)) = (column("parameter"), column("estimate")) else {
        return Err(error(format!(
            "header {:?}: expected the columns parameter, estimate (and optionally std)",
            headers.iter().collect::<Vec<_>>()
        )));
    };
    let s = column("std");
    let mut rows = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let record = record.map_err(|e| error(e.to_string()))?;
        let number = |c: Option<usize>, what: &str| match c.and_then(|c| record.get(c)) {
            None | Some("") => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|_| {
                error(format!(
                    "row {}: column `{what}`: expected a number or nothing, got `{text}`",
                    k + 1
                ))
            }),
        };
        let name = record.get(p).unwrap_or("").to_string();
        rows.push((name, number(Some(e), "estimate")?, number(s, "std")?));
    }
    Ok(rows)
}

impl Estimator for ExternalCommand {
    fn name(&self) -> &str {
        &self.name
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        single(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let m = single(experiment).map_err(|e| e.into_error(&self.name))?;
        let scratch =
            Scratch::new(&self.name).map_err(|e| self.fail(format!("scratch directory: {e}")))?;
        let dir = scratch.0.join("measurement");
        sim::reading::measurement_dir::write(&dir, m).map_err(|e| self.fail(e.to_string()))?;
        let answer = scratch.0.join("estimates.csv");
        self.call(&dir, &answer)?;
        let rows = read_answer(&answer).map_err(|e| self.fail(e.to_string()))?;
        let values = values(rows, &format!("answer of `{}`", self.argv.join(" ")))
            .map_err(|e| self.fail(e.to_string()))?;
        Ok(from_values(values))
    }
}
