//! `generated/report/nim_motions.md` and `nim_motions.csv`: the NIM motion study
//! ([`crate::study::nim_motion`]) rendered; nothing is computed here but the table statistics.

use std::fmt::Write as _;
use std::path::Path;

use crate::estimate::nim::OUTPUTS;
use crate::estimate::nim::population::identifiable;
use crate::report::csv_num;
use crate::study::nim_motion::{Category, Errors, GOALS, MotionStudy};

/// A relative error in percent; below 1e-6 (exact data) in scientific notation.
/// A statistic of errors as a percentage, `–` where nothing was scored (no estimate).
fn scored(e: &Errors, stat: fn(&Errors) -> f64) -> String {
    if e.count == 0 {
        "–".into()
    } else {
        pct(stat(e))
    }
}

fn pct(v: f64) -> String {
    if v > 0.0 && v < 1e-6 {
        format!("{:.1e} %", 100.0 * v)
    } else {
        format!("{:.2} %", 100.0 * v)
    }
}

/// `nim_motions.md`.
pub fn markdown(study: &MotionStudy, description: &str) -> String {
    let mut md = String::new();
    let s = &study.settings;
    let trained: Vec<&str> = study.families.0.iter().map(|f| f.id()).collect();
    let _ = writeln!(
        md,
        "# NIM across motions\n\n\
         Written by `armid study studies/nim_motions_full.toml` (or the small study of `cargo xtask reproduce --only nim_motions`). {description}\n\n\
         The generalizing NIM (`validation::estimate::nim::population`: one 5 × 128 ReLU network per body, a mean and a variance per \
         target, targets ln m and the log principal second moments, so every output is a physically valid body) with inputs \
         `{}` ({}), trained on {} arms of `population_motions` under the motion families {} only; the family `{}` is held out \
         of training entirely. Each seed set is an ensemble of {} networks per body (initialization seeds {}), pooled sample by \
         sample as a mixture (the members' mean; variance: their mean predicted variance plus their disagreement), then over the \
         samples by Huber's robust weighted location (`validation::estimate::nim::pooling`); its predicted σ is calibrated on {} arms of the training families that training never saw \
         (`validation::estimate::nim::ensemble`: the σ scale that puts 95.45 % of those arms' errors within ±2σ). Adam, lr {:e} → {:e}, \
         batch {}, {} steps per network. Training took {} s per seed set ({:.0} samples/s on this machine, two networks at a \
         time). MIM (`mim_stacked`, every sample of the run in one least-squares problem per body) runs on the same \
         measurements.\n",
        s.inputs.id(),
        s.inputs.len(),
        study.arms.0,
        trained.join(", "),
        study.families.1,
        s.members,
        study
            .seeds
            .iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        study.arms.1,
        s.config.learning_rate,
        s.config
            .final_learning_rate
            .unwrap_or(s.config.learning_rate),
        s.config.batch,
        s.config.max_steps,
        study
            .train_seconds
            .iter()
            .map(|t| format!("{t:.0}"))
            .collect::<Vec<_>>()
            .join(", "),
        study.samples_per_second,
    );
    if s.inputs.log_mass_column().is_some() {
        md.push_str(
            "With these inputs the network regresses `ln m − ln |F/a|` (zero wherever Newton's equation holds) and \
             the logarithms of the second moments (`validation::estimate::nim::Nim::train_as`).",
        );
    }
    if s.inputs.is_normalized() {
        let _ = write!(
            md,
            " A run's samples at rest (`|ω̇| + |ω|²` below {:e} of its largest: the normalized inputs would be 0/0) \
             are not pooled (`Inputs::pooled_samples`).\n\n",
            crate::estimate::nim::features::REST
        );
    }
    summary(&mut md, study);
    per_parameter(&mut md, study);
    named(&mut md, study);
    md
}

/// Category × seed set: largest and mean errors, coverage; MIM beside.
fn summary(md: &mut String, study: &MotionStudy) {
    let _ = writeln!(
        md,
        "## Summary\n\nRelative errors over every body and run of a category: mass, and every identifiable principal moment \
         (B1's J22 and J33 excluded: B1 turns about its own axis only in any arm6 motion). Goals (issue 14): held-out family \
         ≤ 1 % mass and ≤ 2 % moments, held-out arms ≤ 0.5 % and ≤ 1 %, ±2σ coverage 90–98 %, on exact data. A category \
         `…@ft<level>` holds the same arms measured by force/torque sensors at that noise level (MIM on the same noisy \
         columns).\n\n\
         | category | runs | seed set | max mass | max moments | mean mass | mean moments | ±2σ coverage | MIM max mass | MIM max moments |\n\
         |---|---|---|---|---|---|---|---|---|---|"
    );
    for c in study.categories() {
        let runs = study
            .rows
            .iter()
            .filter(|r| r.category == c && r.body == 1)
            .count();
        let mim_m = scored(&study.mim_errors(&c, 0, None), |e| e.max);
        let moments: Vec<Errors> = (1..4).map(|o| study.mim_errors(&c, o, None)).collect();
        let mim_j = if moments.iter().all(|e| e.count == 0) {
            "–".to_string()
        } else {
            pct(moments.iter().map(|e| e.max).fold(0.0, f64::max))
        };
        for k in 0..study.seeds.len() {
            let (m, j) = study.worst(&c, k);
            let mean_m = study.nim_errors(&c, k, 0, None).mean;
            let mean_j = (1..4)
                .map(|o| study.nim_errors(&c, k, o, None).mean)
                .sum::<f64>()
                / 3.0;
            let (cov, n) = study.coverage(&c, k);
            let _ = writeln!(
                md,
                "| {} | {runs} | {k} | {} | {} | {} | {} | {:.1} % of {n} | {} | {} |",
                c.id(),
                pct(m),
                pct(j),
                pct(mean_m),
                pct(mean_j),
                100.0 * cov,
                mim_m,
                mim_j,
            );
        }
    }
    for goal in &GOALS {
        let Some(met) = study.met(goal) else {
            continue;
        };
        let _ = writeln!(
            md,
            "\n`{}`: goal ({} mass, {} moments) met by {met} of {} seed sets.",
            goal.category.id(),
            pct(goal.mass),
            pct(goal.moments),
            study.seeds.len()
        );
    }
}

/// Per body and parameter: NIM's max and mean over the seed sets' worst, MIM's max.
fn per_parameter(md: &mut String, study: &MotionStudy) {
    for c in study.categories() {
        if !matches!(c, Category::Heldout(_) | Category::HeldoutFamily(_)) {
            continue;
        }
        let _ = writeln!(
            md,
            "\n## Per parameter: `{}`\n\nNIM: the largest and the mean relative error over the category's runs, for the worst \
             seed set; MIM on the same runs.\n\n| body | parameter | NIM max | NIM mean | MIM max | MIM mean |\n|---|---|---|---|---|---|",
            c.id()
        );
        let bodies = study.rows.iter().map(|r| r.body).max().unwrap_or(0);
        for b in 1..=bodies {
            for (o, name) in OUTPUTS.iter().enumerate() {
                if !identifiable(b, o) {
                    continue;
                }
                let worst = (0..study.seeds.len())
                    .map(|k| study.nim_errors(&c, k, o, Some(b)))
                    .max_by(|x, y| x.max.total_cmp(&y.max))
                    .unwrap_or_default();
                let mim = study.mim_errors(&c, o, Some(b));
                let _ = writeln!(
                    md,
                    "| B{b} | {name} | {} | {} | {} | {} |",
                    pct(worst.max),
                    pct(worst.mean),
                    scored(&mim, |e| e.max),
                    scored(&mim, |e| e.mean)
                );
            }
        }
    }
}

/// The named runs: truth, the first seed set's estimate ± σ, MIM.
fn named(md: &mut String, study: &MotionStudy) {
    for c in study.categories() {
        let Category::Named(name) = &c else { continue };
        let _ = writeln!(
            md,
            "\n## `{name}` (the paper's arm, Table 1)\n\n| body | parameter | truth | NIM (seed set 0) ± σ | error | MIM |\n|---|---|---|---|---|---|"
        );
        for r in study.rows.iter().filter(|r| r.category == c) {
            for (o, p) in OUTPUTS.iter().enumerate() {
                let e = &r.nim[0];
                let mark = if identifiable(r.body, o) {
                    ""
                } else {
                    " (prior)"
                };
                let _ = writeln!(
                    md,
                    "| B{} | {p}{mark} | {:.4} | {:.4} ± {:.4} | {:+.2} % | {} |",
                    r.body,
                    r.truth[o],
                    e.value[o],
                    e.sigma[o],
                    100.0 * (e.value[o] - r.truth[o]) / r.truth[o],
                    r.mim[o].map_or("–".into(), |v| format!("{v:.4}")),
                );
            }
        }
    }
}

/// `nim_motions.csv`: one line per run, body, parameter and seed set.
pub fn csv(study: &MotionStudy) -> String {
    let mut s =
        String::from("category,run,family,body,parameter,truth,seed_set,estimate,sigma,mim\n");
    for r in &study.rows {
        for (o, p) in OUTPUTS.iter().enumerate() {
            for (k, e) in r.nim.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "{},{},{},{},{p},{},{k},{},{},{}",
                    r.category.id(),
                    r.run,
                    r.family.map_or(String::new(), |f| f.id().to_string()),
                    r.body,
                    csv_num(Some(r.truth[o])),
                    csv_num(Some(e.value[o])),
                    csv_num(Some(e.sigma[o])),
                    csv_num(r.mim[o]),
                );
            }
        }
    }
    s
}

/// Writes `nim_motions.md` and `nim_motions.csv` into `dir`.
pub fn write(study: &MotionStudy, description: &str, dir: &Path) -> crate::Result<()> {
    for (file, text) in [
        ("nim_motions.md", markdown(study, description)),
        ("nim_motions.csv", csv(study)),
    ] {
        let path = dir.join(file);
        super::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
    }
    Ok(())
}
