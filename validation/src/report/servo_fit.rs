//! The servo-fit study's report ([`crate::study::servo_fit`]): what was fitted, from what, how it
//! moved, and how each held-out log's rollouts compare with the model file's servos and with no
//! model. Renders the serialized result; computes nothing but ratios and means of it.

use std::fmt::Write;

use crate::study::servo_fit::{Judged, Row, ServoFitStudy};

/// The report's Markdown; `source` says where the logs come from, `model` names the model file.
pub fn render(s: &ServoFitStudy, source: &str, model: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{source}\n");
    fitted(&mut out, s);
    judged(&mut out, s, model);
    out
}

fn fitted(out: &mut String, s: &ServoFitStudy) {
    let f = &s.fit;
    let _ = writeln!(
        out,
        "**Fitted** on {} logs ({}): {} windows of {} s every {} s, {} terms, {} Levenberg–Marquardt \
         iterations, {} integrator steps per sample; RMS residual {:.4e} rad at the start, {:.4e} \
         at the end. Prior toward the start: one σ a factor {} on positive terms, {} s on delays \
         (`validation::estimate::simulation_fit`). σ: cluster-robust, windows as clusters.\n",
        s.fit_logs.len(),
        s.fit_logs.join(", "),
        f.windows,
        s.windows.horizon,
        s.windows.spacing,
        f.terms.len(),
        f.iterations,
        f.steps_per_sample,
        f.rms_start,
        f.rms,
        s.prior.0,
        s.prior.1
    );
    out.push_str("| term | joint | start | fitted | σ |\n|---|---|---|---|---|\n");
    for (i, t) in f.terms.iter().enumerate() {
        let joint = (s.joints.get(t.joint as usize - 1)).map_or("?", String::as_str);
        let _ = writeln!(
            out,
            "| `{}` | {joint} | {:.4e} | {:.4e} | {:.2e} |",
            t.name(),
            s.start.get(i).copied().unwrap_or(f64::NAN),
            f.values[i],
            f.std[i]
        );
    }
    out.push('\n');
}

fn judged(out: &mut String, s: &ServoFitStudy, model: &str) {
    let _ = writeln!(
        out,
        "**Judged** on {} held-out logs: rollouts of 1 s every 0.5 s from the recorded state under \
         the logged commands (`armid rollout`), the mean joint error at the horizon (rad): with \
         {model}'s own servos, with the fitted ones, and taking each command for the position (no \
         model).\n",
        s.judged.len()
    );
    out.push_str(
        "| held-out log | windows | model file | fitted | commands | model file / fitted |\n\
         |---|---|---|---|---|---|\n",
    );
    for j in &s.judged {
        let (m, f, c) = (
            Judged::mean(&j.model),
            Judged::mean(&j.fitted),
            Judged::mean(&j.commanded),
        );
        let _ = writeln!(
            out,
            "| {} | {} | {m:.4e} | {f:.4e} | {c:.4e} | {:.2} |",
            j.log,
            j.windows,
            m / f
        );
    }
    let mean = |row: Row| {
        let all: Vec<f64> = s.judged.iter().map(|j| Judged::mean(row(j))).collect();
        Judged::mean(&all)
    };
    let (m, f, c) = (
        mean(|j| &j.model),
        mean(|j| &j.fitted),
        mean(|j| &j.commanded),
    );
    let _ = writeln!(
        out,
        "| **mean** | | {m:.4e} | {f:.4e} | {c:.4e} | {:.2} |\n",
        m / f
    );
    out.push_str("Per joint, mean over the held-out logs (rad at the horizon):\n\n");
    let _ = writeln!(out, "| | {} |", s.joints.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(s.joints.len()));
    let rows: [(&str, Row); 3] = [
        ("model file", |j| &j.model),
        ("fitted", |j| &j.fitted),
        ("commands", |j| &j.commanded),
    ];
    for (name, row) in rows {
        let cells: Vec<String> = (0..s.joints.len())
            .map(|k| {
                let v: Vec<f64> = s.judged.iter().map(|j| row(j)[k]).collect();
                format!("{:.4e}", Judged::mean(&v))
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
}
