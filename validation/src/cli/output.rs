//! The command line's files and printed tables.

use std::collections::BTreeMap;
use std::path::Path;

use crate::estimate::engine::Outcome;
use crate::estimate::score::Row;
pub use crate::report::write_atomic;
use crate::study::stats::Summary;

/// `run,method,parameter,truth,estimate,std,abs_error,rel_error,identifiable`
/// ([`crate::estimate::score::csv`]).
pub(crate) fn write_rows(path: &Path, rows: &[Row]) -> std::io::Result<()> {
    write_atomic(path, &crate::estimate::score::csv(rows))
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// `method,parameter,truth,mean,bias,std,rmse,runs`.
pub(crate) fn write_summary(
    path: &Path,
    summary: &BTreeMap<(String, String), Summary>,
) -> std::io::Result<()> {
    let mut text = String::from("method,parameter,truth,mean,bias,std,rmse,runs\n");
    for ((method, parameter), s) in summary {
        text += &format!(
            "{method},{parameter},{:e},{:e},{:e},{:e},{:e},{}\n",
            s.truth, s.mean, s.bias, s.std, s.rmse, s.runs
        );
    }
    write_atomic(path, &text)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// A readable table of one experiment, then the estimators skipped with their reasons.
pub(crate) fn print_outcome(outcome: &Outcome) {
    if let Some(first) = outcome.rows.first() {
        println!("{}", first.run);
    }
    println!(
        "  {:<22} {:<26} {:>13} {:>13} {:>10}",
        "method", "parameter", "truth", "estimate", "rel error"
    );
    for r in &outcome.rows {
        let f = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.6e}"));
        let rel = r
            .rel_error()
            .map_or("–".to_string(), |x| format!("{x:.2e}"));
        println!(
            "  {:<22} {:<26} {:>13} {:>13} {:>10}",
            r.method,
            r.parameter,
            f(r.truth),
            f(r.estimate),
            rel
        );
    }
    for (method, link, why) in &outcome.inconsistent {
        println!("  {method}: link {link} is physically inconsistent: {why}");
    }
    for (method, reason) in &outcome.skipped {
        println!("  skipped {method}: {reason}");
    }
    for (method, error) in &outcome.failed {
        println!("  failed {method}: {error}");
    }
}

/// Writes identified models ([`crate::estimate::engine::IdentifiedModel::write`]); returns the
/// paths.
pub(crate) fn write_models(
    dir: &Path,
    id: &str,
    models: &[crate::estimate::engine::IdentifiedModel],
) -> crate::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for m in models {
        written.extend(m.write(dir, id)?);
    }
    Ok(written)
}

/// The registry as `armid estimators` prints it: a header, then per estimator its name, family
/// and what it needs, in columns.
pub(crate) fn registry_table(estimators: &[Box<dyn crate::estimate::Estimator>]) -> String {
    let width = (estimators.iter().map(|e| e.name().len()))
        .max()
        .unwrap_or(0)
        .max("name".len());
    let mut out = format!("{:width$}  {:11}  needs\n", "name", "family");
    for e in estimators {
        out += &format!(
            "{:width$}  {:11}  {}\n",
            e.name(),
            e.family().name(),
            e.needs()
        );
    }
    out
}
