//! The survival report of a study with effects: pure functions from a [`SweepResult`] (as
//! serialized in `sweep.json`) to `effects.csv` (every effect row) and `survival.md` (the
//! survival table the study computed, [`crate::study::survival`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::study::effect::EffectKind;
use crate::study::survival::SurvivalRow;
use crate::study::sweep::SweepResult;

/// `scenario,method,effect,level,parameter,truth,mean,bias,std,rmse,runs`.
pub(crate) fn effects_csv(result: &SweepResult) -> String {
    let mut out =
        String::from("scenario,method,effect,level,parameter,truth,mean,bias,std,rmse,runs\n");
    for r in &result.effects {
        let _ = writeln!(
            out,
            "{},{},{},{:e},{},{},{}",
            r.scenario,
            r.method,
            r.effect.name(),
            r.level,
            r.parameter,
            super::csv_summary(&r.summary),
            r.summary.runs
        );
    }
    out
}

/// "`name` unit, …" of the effects in `result` that are (or are not) mismatch effects.
fn units(result: &SweepResult, mismatch: bool) -> String {
    let mut kinds: Vec<EffectKind> = (result.effects.iter())
        .map(|r| r.effect)
        .filter(|k| k.is_mismatch() == mismatch)
        .collect();
    kinds.sort();
    kinds.dedup();
    let named: Vec<String> = (kinds.iter())
        .map(|k| format!("`{}` {}", k.name(), k.unit()))
        .collect();
    if named.is_empty() {
        "none".into()
    } else {
        named.join(", ")
    }
}

/// A percentage with two significant digits, `–` where not finite.
pub(super) fn percent(v: f64) -> String {
    if !v.is_finite() {
        "–".into()
    } else if v >= 0.1 {
        format!("{:.0} %", 100.0 * v)
    } else {
        format!("{:.2} %", 100.0 * v)
    }
}

/// The Markdown survival table: per scenario, a line per (factor, level) and a column per
/// estimator.
pub fn markdown(result: &SweepResult) -> String {
    let mut md = format!(
        "# Which estimator survives what: `{}`\n\n![median relative bias per factor and estimator]({})\n\n{} Monte-Carlo seeds per level. Each cell: the median over \
         parameters of RMSE/|truth|, the median of |bias|/|truth|, and the parameters biased beyond their \
         spread over the seeds (|bias| > std) of those counted (|truth| ≥ 1e-9). A sensor factor's level is \
         its noise (`joint_angle`: σ in rad on every q; `force_torque`, `imu`: σ relative to each body's signal RMS); an effect's level is its severity in the units of \
         `validation::study::effect` ({}) on every actuated joint, its current reading, the F/T sensors or the last link, the scenario's own \
         sensors measuring; the mismatch factors ({}) change what the estimators are told, not the arm. \
         Where the study names a validation run, `τ x %` closes the cell: the identified model's torque NRMS \
         on that run (edited and measured alike, its true joint torques; mean over the seeds).\n",
        result.study,
        figure(result),
        result.seeds,
        units(result, false),
        units(result, true)
    );
    let mut scenarios: BTreeMap<&str, Vec<&SurvivalRow>> = BTreeMap::new();
    for r in &result.survival {
        scenarios.entry(&r.scenario).or_default().push(r);
    }
    for (scenario, rows) in scenarios {
        let mut methods: Vec<&str> = Vec::new();
        let mut lines: Vec<(&str, f64)> = Vec::new();
        for r in &rows {
            if !methods.contains(&r.method.as_str()) {
                methods.push(&r.method);
            }
            if !lines.contains(&(r.factor.as_str(), r.level)) {
                lines.push((&r.factor, r.level));
            }
        }
        let _ = write!(md, "\n## `{scenario}`\n\n| factor | level |");
        for m in &methods {
            let _ = write!(md, " {m} |");
        }
        let _ = write!(md, "\n|---|---:|");
        md.push_str(&"---:|".repeat(methods.len()));
        md.push('\n');
        for (factor, level) in lines.clone() {
            let _ = write!(md, "| {factor} | {level:.3e} |");
            for m in &methods {
                let cell = rows
                    .iter()
                    .find(|r| r.factor == factor && r.level == level && r.method == *m)
                    .map_or("–".into(), |r| {
                        let nrms = r
                            .torque_nrms
                            .map_or(String::new(), |v| format!(" · τ {}", percent(v)));
                        format!(
                            "{} · {} · {}/{}{nrms}",
                            percent(r.rel_rmse),
                            percent(r.rel_bias),
                            r.biased,
                            r.parameters
                        )
                    });
                let _ = write!(md, " {cell} |");
            }
            md.push('\n');
        }
        md.push_str(&strongest(&rows, &lines));
    }
    md.push_str(&failures(result));
    md
}

/// The estimators that did not apply or failed, counted per reason's head (`failed at … =
/// level`) with one example of what went wrong: a dash in the table is explained here.
fn failures(result: &SweepResult) -> String {
    let mut counts: Vec<((&str, &str, &str), usize, &str)> = Vec::new();
    for (scenario, method, reason) in &result.skipped {
        let (head, detail) = reason.split_once(": ").unwrap_or((reason, ""));
        let key = (scenario.as_str(), method.as_str(), head);
        match counts.iter_mut().find(|c| c.0 == key) {
            Some(c) => c.1 += 1,
            None => counts.push((key, 1, detail)),
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n## Not applicable, or failed\n\n");
    for ((scenario, method, head), n, detail) in counts {
        let _ = writeln!(
            out,
            "- `{method}` on `{scenario}`, {head}: {n} distinct failures (e.g. {detail})"
        );
    }
    out
}

/// Per factor, at its last (most severe) level: the estimator with the smallest median relative
/// bias, and the one with the fewest parameters biased beyond their spread.
fn strongest(rows: &[&SurvivalRow], lines: &[(&str, f64)]) -> String {
    let mut out = String::from("\nAt each factor's most severe level:\n\n");
    let mut factors: Vec<&str> = lines.iter().map(|l| l.0).collect();
    factors.dedup();
    for factor in factors {
        let Some(&(_, level)) = lines.iter().rev().find(|l| l.0 == factor) else {
            continue;
        };
        let at: Vec<&&SurvivalRow> = rows
            .iter()
            .filter(|r| r.factor == factor && r.level == level && r.rel_bias.is_finite())
            .collect();
        let least_bias = at.iter().min_by(|a, b| a.rel_bias.total_cmp(&b.rel_bias));
        let fewest = at.iter().min_by_key(|r| r.biased);
        if let (Some(b), Some(f)) = (least_bias, fewest) {
            let _ = writeln!(
                out,
                "- `{factor}` = {level:.3e}: smallest median |bias| `{}` ({}); fewest biased parameters `{}` ({}/{})",
                b.method,
                percent(b.rel_bias),
                f.method,
                f.biased,
                f.parameters
            );
        }
    }
    out
}

/// An estimator's curve: its name, color and `(level index, median relative bias)` points.
type Curve<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// The file name of the survival figure of `result`: `survival_<study>.png`.
pub fn figure(result: &SweepResult) -> String {
    format!("survival_{}.png", result.study)
}

/// The survival figure ([`figure`]): per factor a panel, the median |bias|/|truth| of each estimator (log scale)
/// over the factor's levels in the order listed (evenly spaced, labelled with their values).
pub fn plot(result: &SweepResult, path: &Path) -> crate::Result<()> {
    super::register_font();
    let fail = |e: &dyn std::fmt::Display| crate::Error::plot(path)(e.to_string());
    let mut factors: Vec<(&str, &str)> = Vec::new();
    let mut methods: Vec<&str> = Vec::new();
    for r in &result.survival {
        if !factors.contains(&(r.scenario.as_str(), r.factor.as_str())) {
            factors.push((&r.scenario, &r.factor));
        }
        if !methods.contains(&r.method.as_str()) {
            methods.push(&r.method);
        }
    }
    let cols = factors.len().clamp(1, 3);
    let rows = factors.len().div_ceil(cols).max(1);
    let root = BitMapBackend::new(path, (520 * cols as u32, 400 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let palette = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (area, (scenario, factor)) in root.split_evenly((rows, cols)).iter().zip(&factors) {
        let at: Vec<&SurvivalRow> = (result.survival.iter())
            .filter(|r| r.scenario == *scenario && r.factor == *factor)
            .collect();
        let mut levels: Vec<f64> = Vec::new();
        for r in &at {
            if !levels.contains(&r.level) {
                levels.push(r.level);
            }
        }
        let curves: Vec<Curve> = (methods.iter().enumerate())
            .map(|(i, m)| {
                let points = (levels.iter().enumerate())
                    .filter_map(|(k, l)| {
                        let r = at.iter().find(|r| r.method == *m && r.level == *l)?;
                        (r.rel_bias.is_finite()).then_some((k as f64, r.rel_bias.max(1e-5)))
                    })
                    .collect();
                (*m, palette[i % palette.len()], points)
            })
            .collect();
        panel(area, &format!("{scenario}: {factor}"), &levels, &curves).map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}

/// One panel of [`plot`].
fn panel(
    area: &super::plot::Area,
    caption: &str,
    levels: &[f64],
    curves: &[Curve],
) -> Result<(), super::plot::DrawError> {
    let last = levels.len().saturating_sub(1).max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.3..last + 0.3, (1e-5..10.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("level")
        .y_desc("median |bias| / |truth|")
        .x_labels(levels.len().max(2))
        .x_label_formatter(&|x| {
            let k = x.round();
            match levels.get(k as usize) {
                Some(l) if (x - k).abs() < 1e-9 && *l != 0.0 && l.abs() < 1e-2 => {
                    format!("{l:.0e}")
                }
                Some(l) if (x - k).abs() < 1e-9 => format!("{l}"),
                _ => String::new(),
            }
        })
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .label_style(("sans-serif", 13))
        .draw()?;
    for (label, color, points) in curves {
        let style = color.stroke_width(2);
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    super::plot::legend(&mut chart, 12, SeriesLabelPosition::UpperLeft)?;
    Ok(())
}

/// Writes `effects.csv`, `survival.md` and the survival figure ([`figure`]) into `dir` where the
/// study swept effects.
pub fn write(result: &SweepResult, dir: &Path) -> crate::Result<()> {
    if result.effects.is_empty() {
        return Ok(());
    }
    let csv = dir.join("effects.csv");
    std::fs::write(&csv, effects_csv(result)).map_err(crate::Error::io(&csv))?;
    let md = dir.join("survival.md");
    std::fs::write(&md, markdown(result)).map_err(crate::Error::io(&md))?;
    plot(result, &dir.join(figure(result)))
}
