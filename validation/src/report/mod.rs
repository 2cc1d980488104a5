//! Reproduction reports: Markdown for readers, CSV for tools. Every number in them is computed
//! by `cargo xtask reproduce` from a run directory.

pub mod html;
pub mod industrial;
pub mod joint_level;
pub mod level_summary;
pub mod mim;
pub mod multisine;
pub mod nim;
pub mod nim_motion;
pub mod paper_sensing;
pub(crate) mod plot;
pub mod recorded;
pub mod servo_fit;
pub mod survival;
pub mod sweep;
pub mod teaching;

pub use crate::files::{write_atomic, write_atomic_with, write_dir_atomic};

/// Formats an optional number, `–` where absent (the paper's mark for "not identifiable").
pub(crate) fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    match v {
        Some(x) if x.is_finite() => f(x),
        _ => "–".to_string(),
    }
}

/// A summary's `truth,mean,bias,std,rmse` as CSV fields.
pub(crate) fn csv_summary(s: &crate::study::stats::Summary) -> String {
    format!(
        "{:e},{:e},{:e},{:e},{:e}",
        s.truth, s.mean, s.bias, s.std, s.rmse
    )
}

/// Formats an optional number for CSV (empty where absent).
pub(crate) fn csv_num(v: Option<f64>) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:e}"),
        _ => String::new(),
    }
}

/// Registers the committed DejaVu Sans (its licence beside it in `validation/assets/`) as
/// plotters' `sans-serif`: no system font library is needed.
pub(crate) fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let bytes: &'static [u8] = include_bytes!("../../assets/DejaVuSans.ttf");
        plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, bytes)
            .unwrap_or_else(|_| panic!("the committed DejaVu Sans is a valid font"));
    });
}
