//! Every estimator that applies, identified on the first part of a log and scored by
//! prediction on the rest: in parallel (one estimator a thread; the outcome merged in the
//! registry's order, so it does not depend on the thread count), with a progress bar.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::estimate::engine::{self, Loaded, Outcome};
use crate::estimate::{Estimator, Experiment, Options, Role};

/// The registry's estimators (`only` those where given) on `identify`, validated on
/// `validate`; `prior` is the model file the standard-parameter identifiers start from.
pub(super) fn run(
    only: Option<&[String]>,
    prior: &Path,
    identify: &Loaded,
    validate: &Loaded,
) -> crate::Result<Outcome> {
    let options = Options {
        prior: Some(prior.to_owned()),
        nim_models: None,
    };
    let estimators = crate::estimate::chosen(&options, only)?;
    let experiment = Experiment::new(vec![
        (Role::Excitation, &identify.measurements),
        (Role::Validation, &validate.measurements),
    ]);
    let mut out = Outcome::default();
    let mut applying: Vec<&dyn Estimator> = Vec::new();
    for e in &estimators {
        match e.applies(&experiment) {
            Ok(()) => applying.push(e.as_ref()),
            Err(why) => out.skipped.push((e.name().into(), why.0)),
        }
    }
    let bar = progress(applying.len());
    let running = Mutex::new(Vec::<String>::new());
    let outcomes: Vec<Outcome> = applying
        .par_iter()
        .map(|e| {
            show(&bar, &running, e.name(), true);
            let o = engine::score_with(&[*e], &experiment, &BTreeMap::new(), Some(validate));
            show(&bar, &running, e.name(), false);
            bar.inc(1);
            o
        })
        .collect();
    bar.finish_and_clear();
    for o in outcomes {
        out.rows.extend(o.rows);
        out.skipped.extend(o.skipped);
        out.failed.extend(o.failed);
        out.models.extend(o.models);
        out.inconsistent.extend(o.inconsistent);
    }
    if out.rows.is_empty() {
        return Err(crate::Error::NoEstimator {
            what: "the log".into(),
            wanted: "applies".into(),
            reasons: out.skipped.iter().chain(&out.failed).cloned().collect(),
        });
    }
    Ok(out)
}

/// A bar over `n` estimators (hidden where the output is not a terminal).
fn progress(n: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(n as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "estimators [{bar:30}] {pos}/{len} {elapsed} · running {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}

/// Adds `name` to (or removes it from) the running estimators the bar names.
fn show(bar: &indicatif::ProgressBar, running: &Mutex<Vec<String>>, name: &str, started: bool) {
    let mut r = running.lock().expect("not poisoned");
    if started {
        r.push(name.into());
    } else {
        r.retain(|n| n != name);
    }
    bar.set_message(r.join(", "));
}
