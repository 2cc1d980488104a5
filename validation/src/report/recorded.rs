//! Renders a [`RecordedStudy`] as Markdown: prediction error per method and joint, and the
//! drive parameters beside a published identification of the same data where one is given.

use crate::study::recorded::{METHODS, RecordedStudy};

/// A published value to set beside ours: `(our parameter, its name there, value)`.
pub type Reference = (String, String, f64);

/// The report's Markdown. `joints` are the URDF joint names; `source` says where the data and
/// the reference come from.
pub fn render(
    s: &RecordedStudy,
    joints: &[String],
    source: &str,
    reference: &[Reference],
) -> String {
    let mut md = format!(
        "# Identification on a recording: `{}`\n\n{source}\n\n",
        s.run_id
    );
    let filter = match s.signal.filter {
        Some((order, cutoff)) => {
            format!("zero-phase Butterworth, order {order}, cut-off {cutoff:.3} Hz")
        }
        None => "no low-pass".into(),
    };
    md += &format!(
        "Signal chain: {} samples at {:.6} s used ({} at each end left out as the filter's end \
         transient); {filter}; {}; torque {}.\n\n",
        s.samples, s.period, s.signal.settling, s.signal.derivatives, s.signal.torque
    );
    md += &format!(
        "## Prediction error (torque NRMS = sqrt(Σ(τ̂ − τ)² / Σ τ²), τ as measured)\n\n\
         Identified on the first {:.0} % of the time span, predicted on the last {:.0} % \
         (`holdout`); and identified and predicted on the whole record (`in-sample`). \
         `moving`: only the samples of joints moving at 0.05 rad/s or faster.\n\n",
        100.0 * (1.0 - s.holdout),
        100.0 * s.holdout
    );
    md += "| method | fit | pooled | moving |";
    for j in joints {
        md += &format!(" {j} |");
    }
    md += "\n|---|---|---|---|";
    md += &"---|".repeat(joints.len());
    md += "\n";
    for method in METHODS {
        for (fit, rows) in [("holdout", &s.holdout_rows), ("in-sample", &s.whole_rows)] {
            let v = |p: &str| {
                RecordedStudy::value(rows, method, p)
                    .map_or("–".into(), |x| format!("{:.1} %", 100.0 * x))
            };
            md += &format!(
                "| {method} | {fit} | {} | {} |",
                v("torque_nrms"),
                v("torque_nrms.moving")
            );
            for j in joints {
                md += &format!(" {} |", v(&format!("torque_nrms.{j}")));
            }
            md += "\n";
        }
    }
    if !reference.is_empty() {
        md += "\n## Drive parameters (IDIM-WLS on the whole record) beside the published ones\n\n\
               | parameter | ours | published | as named there | difference |\n|---|---|---|---|---|\n";
        for (ours, theirs, value) in reference {
            let mine = RecordedStudy::value(&s.whole_rows, "idim_wls", ours);
            let diff = mine.map_or("–".into(), |m| {
                format!("{:+.1} %", 100.0 * (m - value) / value)
            });
            md += &format!(
                "| {ours} | {} | {value:.4} | `{theirs}` | {diff} |\n",
                mine.map_or("–".into(), |m| format!("{m:.4}"))
            );
        }
    }
    md += "\n## Physical consistency (whole-record estimates of the standard parameters)\n\n";
    for method in ["idim_prior", "idim_consistent"] {
        if !s.whole_rows.iter().any(|r| r.method == method) {
            continue;
        }
        let bad: Vec<usize> = (s.inconsistent.iter())
            .filter(|(m, _, _)| m == method)
            .map(|(_, link, _)| *link)
            .collect();
        md += &if bad.is_empty() {
            format!("- `{method}`: every link consistent (a real body).\n")
        } else {
            format!("- `{method}`: links {bad:?} are not physically consistent.\n")
        };
    }
    for (method, why) in &s.failed {
        md += &format!("\n{method} failed: {why}\n");
    }
    md
}
