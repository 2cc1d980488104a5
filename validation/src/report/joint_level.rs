//! The joint-level study's chapter ([`crate::study::joint_level`]): per noise band, each
//! method's median and 90th-percentile error over the held-out arms, beside the population
//! mean's. Renders the serialized result only.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::survival::percent;
use crate::study::joint_level::{BandRow, COUNTED, JointLevelStudy, POPULATION_MEAN, SHRUNK};

/// The chapter.
pub fn markdown(s: &JointLevelStudy) -> String {
    let mut md = format!(
        "# Joint-level identification across robots: `{}`\n\n\
         {} held-out arms, each identified from its own run (joint angles and drive currents, \
         read at the arm's own drawn noise level), against its {} true base parameters; the \
         `{POPULATION_MEAN}` column answers every arm with the mean of {} training arms' true \
         base parameters, using no data of the arm: the population's spread, the baseline a \
         learned identifier that carries the population as its prior must beat; `{SHRUNK}` is \
         IDIM-OLS shrunk toward that mean by precision, parameter by parameter (its least-squares \
         variance against the training arms' variance), the simplest identifier that carries \
         the prior. Each cell: the \
         median over the arms of each arm's median relative error `|estimate − truth| / |truth|` \
         over its base parameters (|truth| ≥ {COUNTED:e} of the largest), then its 90th \
         percentile, and for a method that states standard deviations the share of those \
         parameters whose truth lies within ±2σ of the estimate (95 % if σ is calibrated). A band is the arm's factor on the population file's noise σ \
         (`noise_scale`).\n\n",
        s.population, s.held_out_arms, s.base_parameters, s.training_arms
    );
    if let Some(t) = &s.training {
        let candidates: Vec<String> = (t.candidates.iter())
            .map(|(steps, nll)| format!("{steps}: {nll:.3}"))
            .collect();
        let _ = write!(
            md,
            "`nim` is the joint-level NIM (`validation::estimate::nim::joint`): IDIM-OLS's base \
             parameters and their least-squares σ from the arm's run (the run's normal equations \
             as its encoder), revised by a network (widths {:?}) that starts from the Gaussian \
             posterior of least squares and the population and outputs each parameter's \
             correction and σ. Trained (β-NLL) on the least squares of {} training arms against \
             their truths; {} more training arms, kept out, chose the training length by their \
             likelihood (steps: mean NLL — {}; {} kept) and calibrated its σ (factor {:.2}, \
             split-conformal at ±2σ). Least squares of the training arms {:.0} s, training {:.0} \
             s on this machine ({} arms left out: IDIM-OLS failed); the network's inference \
             {:.1} µs per arm (the saved model, batched), least squares' about {:.0} ms per arm \
             (on one of {} threads); the model is loaded back from `{}` as `validation estimate \
             --nim-models` loads it.\n\n",
            t.widths,
            t.arms,
            t.calibration_arms,
            candidates.join(", "),
            t.steps,
            t.sigma_scale,
            t.encode_seconds,
            t.train_seconds,
            t.skipped,
            t.inference_micros,
            1e3 * t.threads as f64 * t.encode_seconds
                / (t.arms + t.calibration_arms + t.skipped).max(1) as f64,
            t.threads,
            t.saved
        );
    }
    table(&mut md, &s.rows);
    if !s.failures.is_empty() {
        let _ = writeln!(md, "\nNot identified:\n");
        for (method, arm, reason) in &s.failures {
            let _ = writeln!(md, "- `{method}`, held-out arm {arm}: {reason}");
        }
    }
    for f in &s.others {
        let _ = write!(
            md,
            "\n## {}\n\n{}; scored as above.\n\n",
            f.title, f.description
        );
        table(&mut md, &f.rows);
        if !f.failures.is_empty() {
            let _ = writeln!(md, "\nNot identified:\n");
        }
        for (method, arm, reason) in &f.failures {
            let _ = writeln!(md, "- `{method}`, arm {arm}: {reason}");
        }
    }
    md
}

/// The per-band table of `rows`: one column per method, the population mean first.
fn table(md: &mut String, rows: &[BandRow]) {
    let methods: Vec<&str> = std::iter::once(POPULATION_MEAN)
        .chain(
            (rows.iter().map(|r| r.method.as_str()))
                .filter(|m| *m != POPULATION_MEAN)
                .collect::<BTreeSet<_>>(),
        )
        .collect();
    let _ = writeln!(md, "| noise × σ | arms | {} |", methods.join(" | "));
    let _ = writeln!(md, "|---|---:|{}", "---:|".repeat(methods.len()));
    let mut bands: Vec<(f64, Option<f64>)> = Vec::new();
    for r in rows {
        if !bands.contains(&(r.low, r.high)) {
            bands.push((r.low, r.high));
        }
    }
    for (low, high) in bands {
        let rows: Vec<_> = (rows.iter())
            .filter(|r| (r.low, r.high) == (low, high))
            .collect();
        let arms = rows.iter().map(|r| r.arms).max().unwrap_or(0);
        let cells: Vec<String> = (methods.iter())
            .map(|m| match rows.iter().find(|r| r.method == *m) {
                Some(r) => match r.coverage {
                    Some(c) => format!(
                        "{} · {} · ±2σ {:.0} %",
                        percent(r.median),
                        percent(r.p90),
                        100.0 * c
                    ),
                    None => format!("{} · {}", percent(r.median), percent(r.p90)),
                },
                None => "—".into(),
            })
            .collect();
        let range = match high {
            Some(high) => format!("{low}–{high}"),
            None => format!("≥ {low}"),
        };
        let _ = writeln!(md, "| {range} | {arms} | {} |", cells.join(" | "));
    }
}
