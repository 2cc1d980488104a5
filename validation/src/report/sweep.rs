//! The `sweep` report: pure functions from a [`SweepResult`] (as serialized in `sweep.json`) to
//! `sweep.csv`, `sweep.md` and `sweep.png`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use super::plot::{Curve, log_chart};
use super::{csv_num, csv_summary, register_font};
use crate::estimate::EstimatorId;
use crate::study::file::SensorFamily;
use crate::study::sweep::{SweepResult, SweepRow};

/// `scenario,method,sensor,level,parameter,truth,mean,bias,std,rmse,crb,runs`.
pub fn csv(result: &SweepResult) -> String {
    let mut out =
        String::from("scenario,method,sensor,level,parameter,truth,mean,bias,std,rmse,crb,runs\n");
    for r in &result.rows {
        let _ = writeln!(
            out,
            "{},{},{},{:e},{},{},{},{}",
            r.scenario,
            r.method,
            r.sensor.name(),
            r.level,
            r.parameter,
            csv_summary(&r.summary),
            csv_num(r.crb),
            r.summary.runs
        );
    }
    out
}

/// The efficiency of one method at one level: RMSE / CRB over the parameters whose bias is
/// below their standard deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiency {
    /// Largest ratio.
    pub max: f64,
    /// Median ratio.
    pub median: f64,
    /// Parameters counted.
    pub counted: usize,
    /// Parameters with a bound left out because their bias exceeds their standard deviation.
    pub biased: usize,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// `level (bits) → rows`.
type PerLevel<'a> = BTreeMap<u64, Vec<&'a SweepRow>>;

/// `(scenario, sensor, method) → level → rows`.
type Groups<'a> = BTreeMap<(String, SensorFamily, String), PerLevel<'a>>;

fn groups(result: &SweepResult) -> Groups<'_> {
    let mut g: Groups = BTreeMap::new();
    for r in &result.rows {
        g.entry((r.scenario.clone(), r.sensor, r.method.clone()))
            .or_default()
            .entry(r.level.to_bits())
            .or_default()
            .push(r);
    }
    g
}

/// RMSE / CRB of a method's parameters at one level.
pub fn efficiency(rows: &[&SweepRow]) -> Option<Efficiency> {
    let bounded: Vec<&&SweepRow> = rows
        .iter()
        .filter(|r| r.crb.is_some_and(|c| c > 0.0))
        .collect();
    let unbiased: Vec<f64> = bounded
        .iter()
        .filter(|r| r.summary.bias.abs() < r.summary.std)
        .map(|r| r.summary.rmse / r.crb.expect("bounded"))
        .collect();
    if unbiased.is_empty() {
        return None;
    }
    Some(Efficiency {
        max: unbiased.iter().copied().fold(0.0, f64::max),
        median: median(unbiased.clone()),
        counted: unbiased.len(),
        biased: bounded.len() - unbiased.len(),
    })
}

/// Median over parameters of `RMSE / |truth|`.
fn relative_rmse(rows: &[&SweepRow]) -> f64 {
    median(
        rows.iter()
            .filter(|r| r.summary.truth.abs() >= crate::estimate::score::ZERO)
            .map(|r| r.summary.rmse / r.summary.truth.abs())
            .collect(),
    )
}

/// The Markdown report.
pub fn markdown(result: &SweepResult) -> String {
    let mut md = format!(
        "# Noise sweep `{}`\n\n{} Monte-Carlo seeds per level. A level is the relative noise: every channel of the swept \
         sensor on body i has white noise of σ = level × RMS of that body's clean signal. `rel. RMSE` is the median over \
         parameters of RMSE/|truth|; `RMSE/CRB` is over the parameters whose |bias| is below their standard deviation \
         (max, median; the parameters left out for bias in brackets). The Cramér–Rao bound is that of the whole arm's MIM \
         parameters under the stated force/torque noise, from the clean regressor (`estimate::mim::gls`).\n",
        result.study, result.seeds
    );
    for note in &result.notes {
        let _ = writeln!(md, "\n{note}");
    }
    md.push_str(&comparison(result));
    let g = groups(result);
    let mut sections: BTreeMap<(String, SensorFamily), Vec<(&String, &PerLevel)>> = BTreeMap::new();
    for ((scenario, sensor, method), levels) in &g {
        sections
            .entry((scenario.clone(), *sensor))
            .or_default()
            .push((method, levels));
    }
    for ((scenario, sensor), methods) in &sections {
        let _ = writeln!(md, "\n## `{scenario}`, sensor `{}`\n", sensor.name());
        let _ = write!(md, "| level |");
        for (m, _) in methods {
            let _ = write!(md, " {m}: rel. RMSE | {m}: RMSE/CRB |");
        }
        let _ = write!(md, "\n|---:|");
        for _ in methods {
            let _ = write!(md, "---:|---:|");
        }
        md.push('\n');
        let levels: Vec<u64> = methods[0].1.keys().copied().collect();
        for bits in levels {
            let _ = write!(md, "| {:.2e} |", f64::from_bits(bits));
            for (_, per_level) in methods {
                let rows = per_level.get(&bits).map(Vec::as_slice).unwrap_or(&[]);
                let eff = efficiency(rows).map_or("–".into(), |e| {
                    format!("{:.2}, {:.2} [{}]", e.max, e.median, e.biased)
                });
                let rel = relative_rmse(rows);
                let rel = if rel.is_finite() {
                    format!("{rel:.2e}")
                } else {
                    "–".into()
                };
                let _ = write!(md, " {rel} | {eff} |");
            }
            md.push('\n');
        }
    }
    if !result.skipped.is_empty() {
        md.push_str("\n## Not applicable, or failed\n\n");
        for (scenario, method, reason) in &result.skipped {
            let _ = writeln!(md, "- `{method}` on `{scenario}`: {reason}");
        }
    }
    md
}

/// MIM beside NIM: per (scenario, sensor, level), the relative RMSE of the best MIM variant
/// and of every NIM variant, and where NIM does better (the MIM paper's claim is that NIM is
/// the practical method; the numbers say where that holds under noise).
fn comparison(result: &SweepResult) -> String {
    let g = groups(result);
    let nims: Vec<&String> = {
        let mut v: Vec<&String> = g
            .keys()
            .map(|k| &k.2)
            .filter(|m| m.starts_with(EstimatorId::Nim.name()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    if nims.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\n## MIM beside NIM\n\nMedian relative RMSE over the central moments `j11..j33` that the best MIM variant reports (NIM's \
         over the same moments; MIM's \
         per-axis masses `m_e1..3` and NIM's single `m` are different parameters; both are in the tables below). \
         `best MIM` is the MIM variant with the smallest value at that level among those that read the swept \
         sensor (under `encoder` sweeps only the `*_encoders` variants do: the others read ideal body sensors). \
         MIM's moment equations use the Cardan columns, not the gyroscope, so `imu` noise reaches MIM only through \
         the accelerometer (its masses). NIM is trained on a population of arms: it carries that population's \
         prior, and where the data say little (high noise) its error tends to the population's spread, which no \
         unbiased estimator and no Cramér–Rao bound describe.\n",
    );
    let mut cases: BTreeMap<(String, SensorFamily), Vec<u64>> = BTreeMap::new();
    for (scenario, sensor, method) in g.keys() {
        if method.starts_with(EstimatorId::Nim.name()) {
            let levels = g[&(scenario.clone(), *sensor, method.clone())]
                .keys()
                .copied()
                .collect();
            cases.insert((scenario.clone(), *sensor), levels);
        }
    }
    for ((scenario, sensor), levels) in cases {
        let reads = |m: &str| sensor != SensorFamily::Encoder || m.ends_with("_encoders");
        let nims: Vec<&String> = nims.iter().copied().filter(|m| reads(m)).collect();
        let _ = writeln!(md, "\n### `{scenario}`, sensor `{}`\n", sensor.name());
        let _ = write!(md, "| level | best MIM | rel. RMSE |");
        for n in &nims {
            let _ = write!(md, " {n} |");
        }
        let _ = write!(md, "\n|---:|---|---:|");
        md.push_str(&"---:|".repeat(nims.len()));
        md.push('\n');
        let (mut nim_wins, mut total) = (0, 0);
        for bits in levels {
            // A method's moment rows at this level (within `only`'s parameters where given).
            let moments = |m: &str, only: Option<&[&SweepRow]>| -> Option<(f64, Vec<&SweepRow>)> {
                let rows = g
                    .get(&(scenario.clone(), sensor, m.to_string()))?
                    .get(&bits)?;
                let v: Vec<&SweepRow> = (rows.iter().copied())
                    .filter(|r| r.parameter.contains(".j"))
                    .filter(|r| only.is_none_or(|o| o.iter().any(|b| b.parameter == r.parameter)))
                    .collect();
                (!v.is_empty()).then(|| (relative_rmse(&v), v))
            };
            let best = g
                .keys()
                .filter(|k| {
                    k.0 == scenario && k.1 == sensor && k.2.starts_with("mim") && reads(&k.2)
                })
                .filter_map(|k| moments(&k.2, None).map(|v| (k.2.clone(), v)))
                .min_by(|a, b| a.1.0.total_cmp(&b.1.0));
            let Some((best_name, (best_v, best_rows))) = best else {
                continue;
            };
            let _ = write!(
                md,
                "| {:.2e} | {best_name} | {best_v:.2e} |",
                f64::from_bits(bits)
            );
            for n in &nims {
                match moments(n, Some(&best_rows)) {
                    Some((v, _)) => {
                        total += 1;
                        if v < best_v {
                            nim_wins += 1;
                        }
                        let _ = write!(md, " {v:.2e} |");
                    }
                    None => md.push_str(" – |"),
                }
            }
            md.push('\n');
        }
        let _ = writeln!(
            md,
            "\nMoments: NIM is more accurate than the best MIM variant in {nim_wins} of {total} (level, NIM variant) cases."
        );
    }
    md
}

/// Log–log panels of the relative RMSE vs noise level per method, one per (scenario, sensor):
/// a row per scenario, a column per sensor, with the bound's relative value where there is one.
pub fn plot(result: &SweepResult, path: &Path) -> crate::Result<()> {
    register_font();
    let g = groups(result);
    let mut panels: BTreeMap<(String, SensorFamily), Vec<Curve>> = BTreeMap::new();
    let mut levels_of: BTreeMap<(String, SensorFamily), Vec<f64>> = BTreeMap::new();
    let palette = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(255, 140, 0),
        RGBColor(128, 0, 128),
    ];
    // One color per method, the same in every panel.
    let mut methods: Vec<&String> = g.keys().map(|k| &k.2).collect();
    methods.sort();
    methods.dedup();
    for ((scenario, sensor, method), levels) in &g {
        let i = methods.iter().position(|m| *m == method).expect("listed");
        let color = palette[i % palette.len()];
        levels_of
            .entry((scenario.clone(), *sensor))
            .or_default()
            .extend(levels.keys().map(|b| f64::from_bits(*b)));
        let pts: Vec<(f64, f64)> = levels
            .iter()
            .map(|(b, rows)| (f64::from_bits(*b), relative_rmse(rows)))
            .filter(|p| p.1.is_finite())
            .collect();
        let panel = panels.entry((scenario.clone(), *sensor)).or_default();
        panel.push((method.clone(), color.stroke_width(2), pts));
        let crb: Vec<(f64, f64)> = levels
            .iter()
            .filter_map(|(b, rows)| {
                let v: Vec<f64> = rows
                    .iter()
                    .filter(|r| r.summary.truth.abs() >= crate::estimate::score::ZERO)
                    .filter_map(|r| r.crb.map(|c| c / r.summary.truth.abs()))
                    .collect();
                (!v.is_empty()).then(|| (f64::from_bits(*b), median(v)))
            })
            .collect();
        if !crb.is_empty() && !panel.iter().any(|c| c.0 == "Cramér–Rao bound") {
            panel.push((
                "Cramér–Rao bound".into(),
                BLACK.mix(0.5).stroke_width(1),
                crb,
            ));
        }
    }
    let mut scenarios: Vec<&String> = panels.keys().map(|k| &k.0).collect();
    scenarios.dedup();
    let mut sensors: Vec<SensorFamily> = panels.keys().map(|k| k.1).collect();
    sensors.sort();
    sensors.dedup();
    let (rows, cols) = (scenarios.len().max(1), sensors.len().max(1));
    let root = BitMapBackend::new(path, (640 * cols as u32, 480 * rows as u32)).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| crate::Error::plot(path)(e.to_string()))?;
    let areas = root.split_evenly((rows, cols));
    for ((scenario, sensor), curves) in &panels {
        let r = scenarios
            .iter()
            .position(|s| *s == scenario)
            .expect("listed");
        let c = sensors.iter().position(|s| s == sensor).expect("listed");
        let xs = &levels_of[&(scenario.clone(), *sensor)];
        let (lo, hi) = curves
            .iter()
            .flat_map(|c| c.2.iter().map(|p| p.1))
            .filter(|v| *v > 0.0 && v.is_finite())
            .fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let range = if lo < hi {
            (lo / 3.0, hi * 3.0)
        } else {
            (1e-8, 1.0)
        };
        let empty = curves.iter().all(|c| c.2.is_empty());
        let caption = if empty {
            format!(
                "{scenario}: {} noise (no parameter with a nonzero truth)",
                sensor.name()
            )
        } else {
            format!("{scenario}: {} noise", sensor.name())
        };
        let x_desc = match sensor {
            SensorFamily::Encoder => "encoder resolution (rad)",
            _ => "noise level (σ / RMS)",
        };
        log_chart(
            &areas[r * cols + c],
            &caption,
            (x_desc, "median RMSE / |truth|"),
            xs,
            range,
            curves.clone(),
        )
        .map_err(|e| crate::Error::plot(path)(e.to_string()))?;
    }
    root.present()
        .map_err(|e| crate::Error::plot(path)(e.to_string()))
}

/// Writes `sweep.csv`, `sweep.md`, `sweep.png` into `dir`.
pub fn write(result: &SweepResult, dir: &Path) -> crate::Result<()> {
    write_as(result, dir, "sweep")
}

/// Writes `<stem>.csv`, `<stem>.md`, `<stem>.png` into `dir` (the plot where there are sensor
/// sweeps), and the effects' files ([`super::survival::write`]) where there are effects.
pub(crate) fn write_as(result: &SweepResult, dir: &Path, stem: &str) -> crate::Result<()> {
    let csv_path = dir.join(format!("{stem}.csv"));
    std::fs::write(&csv_path, csv(result)).map_err(crate::Error::io(&csv_path))?;
    let md_path = dir.join(format!("{stem}.md"));
    std::fs::write(&md_path, markdown(result)).map_err(crate::Error::io(&md_path))?;
    if !result.rows.is_empty() {
        plot(result, &dir.join(format!("{stem}.png")))?;
    }
    super::survival::write(result, dir)
}
