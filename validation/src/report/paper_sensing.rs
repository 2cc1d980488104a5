//! The paper-sensing chapter ([`crate::study::paper_sensing`]): the held-out arms' table, the
//! sweep's summary per run and level, and the sweep's own report below. Renders the serialized
//! result only.

use std::fmt::Write as _;

use crate::study::paper_sensing::PaperSensingStudy;

/// The chapter.
pub fn markdown(s: &PaperSensingStudy) -> String {
    let mut md = super::joint_level::markdown(&s.arms);
    let mut variants: Vec<&String> = (s.levels.iter())
        .flat_map(|r| r.variants.iter().map(|v| &v.0))
        .collect();
    variants.sort();
    variants.dedup();
    let _ = write!(
        md,
        "\n## Fixed runs under a force/torque noise sweep (`{}`)\n\n\
         Each run simulated once and measured again per level and seed ({} seeds): per level, \
         the median over the central moments `mim_gls` identifies on the run of RMSE/|truth| \
         over the seeds, for `mim_gls`, for `nim` (the model above) on the same moments, and the \
         Cramér–Rao bound's CRB/|truth|. A level is σ = level × each body's clean signal RMS on \
         that run. These runs' arms are the population's centre (the reference arm6), where a \
         prior helps by construction; the held-out arms above are the fair test. Further \
         columns: other NIM models on the same measured copies (the sweep's notes below say \
         which).\n\n\
         | run | level | moments | mim_gls | nim | nim / mim_gls | bound |{}\n\
         |---|---:|---:|---:|---:|---:|---:|{}\n",
        s.sweep.study,
        s.sweep.seeds,
        variants
            .iter()
            .map(|v| format!(" {v} |"))
            .collect::<String>(),
        "---:|".repeat(variants.len()),
    );
    for r in &s.levels {
        let _ = write!(
            md,
            "| `{}` | {:.0e} | {} | {:.2} % | {:.2} % | {:.2} | {:.2} % |",
            r.scenario,
            r.level,
            r.moments,
            100.0 * r.mim_gls,
            100.0 * r.nim,
            r.nim / r.mim_gls,
            100.0 * r.bound
        );
        for v in &variants {
            match r.variants.iter().find(|(m, _)| m == *v) {
                Some((_, x)) => {
                    let _ = write!(md, " {:.2} % |", 100.0 * x);
                }
                None => md.push_str(" – |"),
            }
        }
        md.push('\n');
    }
    exact(&mut md, s);
    md.push('\n');
    md.push_str(&demoted(&super::sweep::markdown(&s.sweep)));
    md
}

/// `markdown` with every heading one level deeper (a report inside a chapter).
fn demoted(markdown: &str) -> String {
    markdown
        .lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("#{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// The exact runs' table.
fn exact(md: &mut String, s: &PaperSensingStudy) {
    let _ = write!(
        md,
        "\n### The same runs without sensor noise\n\n\
         Largest relative error over the bodies' masses and over the central moments the run \
         determines (those MIM identifies on it). `nim` encodes a run without stated wrench \
         noise by MIM stacked (its least-squares σ about zero: the estimate passes through \
         unrevised); the MIM paper's NIM was within 1 % of the masses and 2 % of the moments \
         here.\n\n\
         | run | method | masses | moments (counted) |\n|---|---|---:|---:|\n"
    );
    let cell = |x: f64| {
        if x.is_finite() {
            format!("{:.1e}", x)
        } else {
            "–".into()
        }
    };
    for r in &s.exact {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} ({}) |",
            r.scenario,
            r.method,
            cell(r.mass),
            cell(r.moments),
            r.counted
        );
    }
}
