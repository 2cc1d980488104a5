//! Reproduction reports: Markdown for readers, CSV for tools. Every number in them is computed
//! by `cargo xtask reproduce` from a run directory.

pub mod mim;
pub mod multisine;

/// Formats an optional number, `–` where absent (the paper's mark for "not identifiable").
pub(crate) fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    match v {
        Some(x) if x.is_finite() => f(x),
        _ => "–".to_string(),
    }
}

/// Formats an optional number for CSV (empty where absent).
pub(crate) fn csv_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:e}"),
        _ => String::new(),
    }
}
