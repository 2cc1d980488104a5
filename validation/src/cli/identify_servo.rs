//! `identify`'s one-screen summary on a servo arm's logs.

use std::path::Path;

use crate::study::identify::ServoIdentification;
use crate::study::servo_fit::{Judged, Row};

/// What a person reads on the terminal: how the fitted servos move the arm on the held-out
/// ends beside the file's and the commands, the terms, and where the files are.
pub(super) fn summary(f: &ServoIdentification, out: &Path) -> String {
    let rows: [(&str, Row); 3] = [
        ("model file", |j| &j.model),
        ("fitted", |j| &j.fitted),
        ("commands", |j| &j.commanded),
    ];
    let mut s = format!(
        "{} logs of a servo arm; fitted on the first {:.0} % of each, judged on the last {:.0} %\n\
         fit: {} terms on {} rollouts of {} s, {} iterations, RMS residual {:.3e} → {:.3e} rad \
         (start: {})\n\nheld-out 1 s rollouts, mean joint error at 1 s (rad):\n{:<28}",
        f.runs.len(),
        100.0 * (1.0 - f.holdout),
        100.0 * f.holdout,
        f.fit.terms.len(),
        f.fit.windows,
        f.windows.horizon,
        f.fit.iterations,
        f.fit.rms_start,
        f.fit.rms,
        f.start_from,
        "log"
    );
    for (name, _) in &rows {
        s += &format!(" {name:>11}");
    }
    s += "\n";
    for j in &f.judged {
        s += &format!("{:<28}", j.log);
        for (_, row) in &rows {
            s += &format!(" {:>11.3e}", Judged::mean(row(j)));
        }
        s += "\n";
    }
    s += &format!("{:<28}", "mean");
    for (_, row) in &rows {
        s += &format!(" {:>11.3e}", f.mean(*row));
    }
    s += "\n\nfitted terms (σ):\n";
    for ((t, v), sd) in f.fit.terms.iter().zip(&f.fit.values).zip(&f.fit.std) {
        s += &format!("  {:<18} {v:>11.4e}  ({sd:.2e})\n", t.name());
    }
    s += &format!("\nwrote {}: {}\n", out.display(), f.files.join(", "));
    s
}
