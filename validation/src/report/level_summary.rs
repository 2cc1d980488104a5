//! The table of a sweep's NIM summary per (run, level) ([`crate::study::level_summary`]).

use std::fmt::Write as _;

use crate::study::level_summary::LevelRow;

/// Appends the table of `rows` to `md`: per run and level, the parameters counted (`counted`
/// names them, e.g. "moments"), the reference's and `nim`'s median relative RMSE, their ratio,
/// the bound's, and any NIM variants'.
pub fn table(md: &mut String, rows: &[LevelRow], counted: &str) {
    let mut variants: Vec<&String> = (rows.iter())
        .flat_map(|r| r.variants.iter().map(|v| &v.0))
        .collect();
    variants.sort();
    variants.dedup();
    let reference = rows.first().map_or("reference", |r| &r.reference_method);
    let _ = writeln!(
        md,
        "| run | level | {counted} | {reference} | nim | nim / {reference} | bound |{}\n\
         |---|---:|---:|---:|---:|---:|---:|{}",
        variants
            .iter()
            .map(|v| format!(" {v} |"))
            .collect::<String>(),
        "---:|".repeat(variants.len()),
    );
    for r in rows {
        let _ = write!(
            md,
            "| `{}` | {:.0e} | {} | {:.2} % | {:.2} % | {:.2} | {:.2} % |",
            r.scenario,
            r.level,
            r.parameters,
            100.0 * r.reference,
            100.0 * r.nim,
            r.nim / r.reference,
            100.0 * r.bound
        );
        for v in &variants {
            match r.variants.iter().find(|(m, _)| m == *v) {
                Some((_, x)) => {
                    let _ = write!(md, " {:.2} % |", 100.0 * x);
                }
                None => md.push_str(" – |"),
            }
        }
        md.push('\n');
    }
}
