//! The joint-level study's chapter ([`crate::study::joint_level`]): per noise band, each
//! method's median and 90th-percentile error over the held-out arms, beside the population
//! mean's. Renders the serialized result only.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::survival::percent;
use crate::estimate::EstimatorId;
use crate::estimate::nim::joint::Sensing;
use crate::study::joint_level::{
    BandRow, COUNTED, JointLevelStudy, POPULATION_MEAN, Training, shrunk,
};

/// The chapter.
pub fn markdown(s: &JointLevelStudy) -> String {
    let mut md = match s.sensing {
        Sensing::JointLevel => joint_level_intro(s),
        Sensing::Paper => paper_intro(s),
    };
    if let Some(t) = &s.training {
        training(&mut md, s.sensing, t);
    }
    table(&mut md, &s.rows);
    if !s.failures.is_empty() {
        let _ = writeln!(md, "\nNot identified:\n");
        for (method, arm, reason) in &s.failures {
            let _ = writeln!(md, "- `{method}`, held-out arm {arm}: {reason}");
        }
    }
    if let Some(sweep) = &s.sweep {
        let _ = write!(
            md,
            "\n## Fixed runs under a drive-current noise sweep (`{}`)\n\n\
             The Panda itself (the population's centre) on two motions, each simulated once and \
             measured again per level and seed ({} seeds): per level, the median over the base \
             parameters of RMSE/|truth| over the seeds for `{}` and for `nim` (the model above), \
             and the Cramér–Rao bound's CRB/|truth| (the reading `K i` under the swept noise, \
             every joint's Coulomb and viscous friction unknown too). A level is σ_i = level × \
             each joint's current RMS on that run (the study file compares it with the training \
             arms' noise). The full report: `{}`.\n\n",
            sweep.study,
            sweep.seeds,
            sweep
                .levels
                .first()
                .map_or(EstimatorId::IdimOls.name(), |l| &l.reference_method),
            sweep.report,
        );
        super::level_summary::table(&mut md, &sweep.levels, "parameters");
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

/// The joint-level chapter's opening.
fn joint_level_intro(s: &JointLevelStudy) -> String {
    format!(
        "# Joint-level identification across robots: `{}`\n\n\
         {} held-out arms, each identified from its own run (joint angles and drive currents, \
         read at the arm's own drawn noise level), against its {} true base parameters; the \
         `{POPULATION_MEAN}` column answers every arm with the mean of {} training arms' true \
         base parameters, using no data of the arm: the population's spread, the baseline a \
         learned identifier that carries the population as its prior must beat; `{}` is \
         IDIM-OLS shrunk toward that mean by precision, parameter by parameter (its least-squares \
         variance against the training arms' variance), the simplest identifier that carries \
         the prior. Each cell: the \
         median over the arms of each arm's median relative error `|estimate − truth| / |truth|` \
         over its base parameters (|truth| ≥ {COUNTED:e} of the largest), then its 90th \
         percentile, and for a method that states standard deviations the share of those \
         parameters whose truth lies within ±2σ of the estimate (95 % if σ is calibrated). A band is the arm's factor on the population file's noise σ \
         (`noise_scale`).\n\n",
        s.population,
        s.held_out_arms,
        s.base_parameters,
        s.training_arms,
        shrunk(s.sensing)
    )
}

/// The paper-sensing chapter's opening.
fn paper_intro(s: &JointLevelStudy) -> String {
    format!(
        "# Paper sensing across arms: `{}`\n\n\
         {} held-out arms, each identified from its own run (a 6-axis force/torque sensor at \
         every joint, each sensor's noise at the arm's own drawn level, and the bodies' \
         kinematics: the MIM paper's sensing), scored on the central moments `j11..j33` the run \
         determines (those MIM-GLS identifies on it; MIM's per-axis masses are near exact for \
         every method and left out). `mim_gls` is the whole-arm GLS, efficient under the stated \
         wrench noise, its σ the Cramér–Rao bound; the `{POPULATION_MEAN}` column answers every \
         arm with the mean of {} training arms' true parameters, using no data of the arm (the \
         population's spread); `{}` is MIM-GLS shrunk toward that mean by precision, parameter \
         by parameter. Each cell: the median over the arms of each arm's median relative error \
         `|estimate − truth| / |truth|` over those moments, then its 90th percentile, and for a \
         method that states standard deviations the share of the moments whose truth lies \
         within ±2σ of the estimate (95 % if σ is calibrated). A band is the arm's factor on the \
         population file's sensor σ (`noise_scale`).\n\n",
        s.population,
        s.held_out_arms,
        s.training_arms,
        shrunk(s.sensing)
    )
}

/// How the study's NIM was trained.
fn training(md: &mut String, sensing: Sensing, t: &Training) {
    let candidates: Vec<String> = (t.candidates.iter())
        .map(|(steps, nll)| format!("{steps}: {nll:.3}"))
        .collect();
    // (what the NIM reads, its encoder's output, capitalized, possessive, who failed)
    let (what, output, capital, possessive, name) = match sensing {
        Sensing::JointLevel => (
            "the joint-level NIM (`validation::estimate::nim::joint`): IDIM-OLS's base \
             parameters and their least-squares σ from the arm's run (the run's normal equations \
             as its encoder)",
            "least squares",
            "Least squares",
            "least squares'",
            "IDIM-OLS",
        ),
        Sensing::Paper => (
            "the paper-sensing NIM (`validation::estimate::nim::joint`, `sensing = \"paper\"`): \
             MIM-GLS's six parameters per body and their Cramér–Rao σ from the arm's run",
            "MIM-GLS estimates",
            "MIM-GLS",
            "MIM-GLS's",
            "MIM-GLS",
        ),
    };
    let _ = write!(
        md,
        "`nim` is {what}, revised by {} (widths {:?}{}) that starts from the Gaussian \
         posterior of {output} and the population and outputs each parameter's \
         correction and σ. Trained (β-NLL) on the {output} of {} training arms against \
         their truths; {} more training arms, kept out, chose the training length by their \
         likelihood (steps: mean NLL — {}; {} kept) and calibrated its σ (factor {:.2}, \
         split-conformal at ±2σ). {capital} of the training arms {:.0} s, training {:.0} \
         s on this machine ({} arms left out: {name} failed); the network's inference \
         {:.1} µs per arm (the saved model, batched), {possessive} about {:.0} ms per arm \
         (on one of {} threads); the model is loaded back from `{}` as `validation estimate \
         --nim-models` loads it.\n\n",
        match t.members {
            1 => "a network".to_string(),
            m => format!("an ensemble of {m} networks"),
        },
        t.widths,
        if t.members > 1 {
            "; each from its own seed, their outputs pooled as a mixture"
        } else {
            ""
        },
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
