//! A noise sweep's NIM rows summarized per (run, level) against the estimator whose answer the
//! NIM revises (MIM-GLS under paper sensing, IDIM-OLS at joint level): the median over the
//! parameters the reference reports of RMSE/|truth| for both, and of the Cramér–Rao bound's
//! CRB/|truth|. Computation only; [`crate::report::level_summary`] renders it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::sweep::{SweepResult, SweepRow};
use crate::estimate::EstimatorId;

/// The NIM's and its reference's errors at one level of the sweep on one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelRow {
    /// The run (scenario name).
    pub scenario: String,
    /// The sweep's level (its sensor family says what it scales).
    pub level: f64,
    /// Parameters counted: those the reference reports, among the summary's (non-zero truth).
    #[serde(alias = "moments")]
    pub parameters: usize,
    /// The reference estimator (absent in results written before: `mim_gls`).
    #[serde(default = "mim_gls")]
    pub reference_method: String,
    /// The reference's median over them of RMSE/|truth|.
    #[serde(alias = "mim_gls")]
    pub reference: f64,
    /// `nim`'s, over the same parameters.
    pub nim: f64,
    /// Other NIM variants of the sweep (`nim_*`, e.g. one trained without a motion family):
    /// `(method, the same)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<(String, f64)>,
    /// The Cramér–Rao bound's: median over them of CRB/|truth|.
    pub bound: f64,
}

/// A sweep's summary, where its full report is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelSummary {
    /// The study's name.
    pub study: String,
    /// Monte-Carlo seeds per level.
    pub seeds: usize,
    /// Where the sweep's own report was written (as a user types it).
    pub report: String,
    /// Per run and level.
    pub levels: Vec<LevelRow>,
}

fn mim_gls() -> String {
    EstimatorId::MimGls.name().into()
}

/// `(scenario, level bits, method) → counted rows`.
type Rows<'a> = BTreeMap<(String, u64, String), Vec<&'a SweepRow>>;

/// Per (run, level) where both `nim` and `reference` ran, the median relative RMSE over the
/// parameters `reference` reports among those `summarized` accepts (by name, e.g. the central
/// moments `B<i>.j..`), for both, and the bound's.
pub fn levels(
    sweep: &SweepResult,
    reference: EstimatorId,
    summarized: impl Fn(&str) -> bool,
) -> Vec<LevelRow> {
    let mut rows: Rows = BTreeMap::new();
    for r in sweep.rows.iter().filter(|r| summarized(&r.parameter)) {
        let key = (r.scenario.clone(), r.level.to_bits(), r.method.clone());
        rows.entry(key).or_default().push(r);
    }
    let mut out = Vec::new();
    for ((scenario, bits, method), reported) in &rows {
        if *method != reference {
            continue;
        }
        let Some(nim) = rows.get(&(scenario.clone(), *bits, EstimatorId::Nim.name().into())) else {
            continue;
        };
        let counted: Vec<&SweepRow> = (reported.iter().copied())
            .filter(|r| r.summary.truth.abs() >= crate::estimate::score::ZERO)
            .collect();
        let relative = |of: &[&SweepRow], f: &dyn Fn(&SweepRow) -> Option<f64>| {
            let v: Vec<f64> = (counted.iter())
                .filter_map(|c| {
                    let r = of.iter().find(|r| r.parameter == c.parameter)?;
                    f(r).map(|x| x / c.summary.truth.abs())
                })
                .collect();
            if v.len() == counted.len() {
                super::stats::median(&v)
            } else {
                f64::NAN
            }
        };
        let rmse = |r: &SweepRow| Some(r.summary.rmse);
        let variants = (rows.iter())
            .filter(|((s, b, m), _)| s == scenario && b == bits && m.starts_with("nim_"))
            .map(|((_, _, m), of)| (m.clone(), relative(of, &rmse)))
            .collect();
        out.push(LevelRow {
            scenario: scenario.clone(),
            level: f64::from_bits(*bits),
            parameters: counted.len(),
            reference_method: reference.to_string(),
            reference: relative(reported, &rmse),
            nim: relative(nim, &rmse),
            variants,
            bound: relative(reported, &|r| r.crb),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::file::SensorFamily;
    use crate::study::stats::Summary;

    fn row(method: &str, parameter: &str, rmse: f64, crb: Option<f64>) -> SweepRow {
        SweepRow {
            scenario: "arm".into(),
            method: method.into(),
            sensor: SensorFamily::ForceTorque,
            level: 1e-3,
            parameter: parameter.into(),
            summary: Summary {
                truth: 2.0,
                mean: 2.0,
                bias: 0.0,
                std: rmse,
                rmse,
                runs: 10,
            },
            crb,
        }
    }

    #[test]
    fn levels_compare_nim_on_the_parameters_its_reference_reports() {
        let sweep = SweepResult {
            rows: vec![
                row("mim_gls", "B2.j11", 0.02, Some(0.02)),
                row("mim_gls", "B2.j22", 0.04, Some(0.04)),
                row("mim_gls", "B2.m_e1", 9.0, None),
                row("nim", "B2.j11", 0.01, None),
                row("nim", "B2.j22", 0.02, None),
                // Not identified by MIM-GLS: not counted.
                row("nim", "B1.j22", 5.0, None),
                row("nim_other", "B2.j11", 0.04, None),
            ],
            ..Default::default()
        };
        let levels = levels(&sweep, EstimatorId::MimGls, |p| p.contains(".j"));
        assert_eq!(levels.len(), 1);
        let l = &levels[0];
        // Medians of two relative RMSEs (RMSE / |truth|, truth 2): their mean.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(l.parameters, 2);
        assert!(close(l.reference, 0.015) && close(l.nim, 0.0075) && close(l.bound, 0.015));
        // A variant missing a moment has no median.
        assert_eq!(l.variants.len(), 1);
        assert!(l.variants[0].1.is_nan());
        // Another reference over every parameter: IDIM-OLS reports none here.
        assert!(levels_of(&sweep, EstimatorId::IdimOls).is_empty());
        // Rows written before the reference was named read as MIM-GLS's.
        let old =
            r#"{"scenario":"a","level":0.001,"moments":2,"mim_gls":0.1,"nim":0.05,"bound":0.1}"#;
        let read: LevelRow = serde_json::from_str(old).unwrap();
        assert_eq!((read.parameters, read.reference), (2, 0.1));
        assert_eq!(read.reference_method, "mim_gls");
    }

    fn levels_of(sweep: &SweepResult, reference: EstimatorId) -> Vec<LevelRow> {
        levels(sweep, reference, |_| true)
    }
}
