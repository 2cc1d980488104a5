//! Renders a [`RecordedStudy`] as Markdown: prediction error per method and joint, and the
//! drive parameters beside a published identification of the same data where one is given.

use std::path::Path;

use plotters::prelude::*;

use crate::estimate::EstimatorId;
use crate::study::recorded::{PRIOR, REPLAYED, RecordedStudy};

/// A published value to set beside ours: `(our parameter, its name there, value)`.
pub type Reference = (String, String, f64);

/// The report's Markdown. `joints` are the URDF joint names; `source` says where the data and
/// the reference come from; `figure` names the [`plot`] beside the report, if drawn.
pub fn render(
    s: &RecordedStudy,
    joints: &[String],
    source: &str,
    reference: &[Reference],
    figure: Option<&str>,
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
    let mut methods: Vec<&str> = Vec::new();
    for r in s.holdout_rows.iter().chain(&s.whole_rows) {
        if !methods.contains(&r.method.as_str()) {
            methods.push(&r.method);
        }
    }
    for method in methods {
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
    if s.holdout_rows.iter().any(|r| r.method == EstimatorId::Nim) {
        md += "\n`nim`: the joint-level NIM of `--nim-models` (`validation::estimate::nim::joint`), \
               trained on simulated arms only: IDIM-OLS's base parameters revised by its network, \
               its friction and drive terms IDIM-OLS's.\n";
    }
    if let Some(f) = figure {
        md += &format!(
            "\n![measured torque and {}'s prediction over the validation stretch]({f})\n",
            s.traces.method
        );
    }
    if !reference.is_empty() {
        md += "\n## Drive parameters (IDIM-WLS on the whole record) beside the published ones\n\n\
               | parameter | ours | published | as named there | difference |\n|---|---|---|---|---|\n";
        for (ours, theirs, value) in reference {
            let mine = RecordedStudy::value(&s.whole_rows, EstimatorId::IdimWls.name(), ours);
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
    for method in [EstimatorId::IdimPrior, EstimatorId::IdimConsistent] {
        if !s.whole_rows.iter().any(|r| r.method == method) {
            continue;
        }
        let bad: Vec<usize> = (s.inconsistent.iter())
            .filter(|(m, _, _)| *m == method)
            .map(|(_, link, _)| *link)
            .collect();
        md += &if bad.is_empty() {
            format!("- `{method}`: every link consistent (a real body).\n")
        } else {
            format!("- `{method}`: links {bad:?} are not physically consistent.\n")
        };
    }
    if !s.replays.is_empty() {
        md += &replay_section(s, joints);
    }
    for (method, why) in &s.failed {
        md += &format!("\n{method} failed: {why}\n");
    }
    md
}

/// The replays in Rapier (the prior as it is, the held-out identification's model), beside the
/// replayed estimator's own prediction of the same stretch.
fn replay_section(s: &RecordedStudy, joints: &[String]) -> String {
    let window = s.replays[0].residual.window;
    let mut md = format!(
        "\n## Replay in Rapier (`sim replay`)\n\n\
         Rapier plays the recorded motion on a model; its torque (the links' inverse dynamics \
         at the simulated state, plus the drive terms where the model has them) is compared \
         with the torque as measured over the validation stretch (samples {}..{}). `{PRIOR}`: \
         the maker's URDF as it is (no drive terms); `{REPLAYED}`: its model identified on the \
         first {:.0} % (URDF and drive-train file). The last row is that estimator's own \
         prediction (regressor × estimate), computed by another implementation: the replay \
         must give the same figures.\n\n| torque NRMS | pooled | moving |",
        window[0],
        window[1],
        100.0 * (1.0 - s.holdout),
    );
    for j in joints {
        md += &format!(" {j} |");
    }
    md += "\n|---|---|---|";
    md += &"---|".repeat(joints.len());
    let pct = |x: Option<f64>| x.map_or("–".into(), |x| format!("{:.2} %", 100.0 * x));
    for r in &s.replays {
        md += &format!(
            "\n| replay: {} | {} | {} |",
            r.method,
            pct(Some(r.residual.torque_nrms)),
            pct(Some(r.residual.torque_nrms_moving))
        );
        for (_, v) in &r.residual.torque_nrms_joints {
            md += &format!(" {} |", pct(Some(*v)));
        }
    }
    let v = |p: &str| RecordedStudy::value(&s.holdout_rows, REPLAYED.name(), p);
    md += &format!(
        "\n| {REPLAYED}'s own prediction | {} | {} |",
        pct(v("torque_nrms")),
        pct(v("torque_nrms.moving"))
    );
    for j in joints {
        md += &format!(" {} |", pct(v(&format!("torque_nrms.{j}"))));
    }
    md + "\n"
}

/// Draws the measured torque against [`crate::study::recorded::TRACED`]'s prediction over the
/// validation stretch, one panel per joint.
pub fn plot(s: &RecordedStudy, joints: &[String], path: &Path) -> crate::Result<()> {
    super::register_font();
    let err = |e: &dyn std::fmt::Display| crate::Error::Plot {
        path: path.to_owned(),
        message: e.to_string(),
    };
    let tr = &s.traces;
    let rows = joints.len().div_ceil(2).max(1);
    let root = BitMapBackend::new(path, (1400, 320 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let panels = root.split_evenly((rows, 2));
    let (t0, t1) = (
        tr.t.first().copied().unwrap_or(0.0),
        tr.t.last().copied().unwrap_or(1.0),
    );
    for ((area, name), (measured, predicted)) in panels
        .iter()
        .zip(joints)
        .zip(tr.measured.iter().zip(&tr.predicted))
    {
        let (lo, hi) = (measured.iter().chain(predicted))
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
        let pad = 0.05 * (hi - lo).max(1e-9);
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!("{name}: measured and {} prediction", tr.method),
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(t0..t1.max(t0 + 1e-9), (lo - pad)..(hi + pad))
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc("torque (N·m)")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| err(&e))?;
        let series = [
            (
                "measured",
                measured,
                RGBColor(150, 150, 150).stroke_width(1),
            ),
            ("predicted", predicted, BLUE.stroke_width(2)),
        ];
        for (label, values, style) in series {
            chart
                .draw_series(LineSeries::new(
                    tr.t.iter().copied().zip(values.iter().copied()),
                    style,
                ))
                .map_err(|e| err(&e))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        super::plot::legend(&mut chart, 12, SeriesLabelPosition::MiddleRight)
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}
