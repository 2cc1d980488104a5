//! Which estimator survives what: per scenario, factor (a swept sensor's noise or a generator
//! effect), severity and estimator, the parameters' errors in three numbers a user compares
//! across estimators — the median relative RMSE, the median relative bias, and how many
//! parameters are biased beyond their spread over the seeds (`|bias| > std`: an error more
//! seeds would not average out).

use serde::{Deserialize, Serialize};

use super::stats::Summary;

/// One line of the survival table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SurvivalRow {
    /// Scenario (run id).
    pub scenario: String,
    /// The factor: a sensor family's or an effect's name.
    pub factor: String,
    /// Its level or severity.
    pub level: f64,
    /// Estimator.
    pub method: String,
    /// Median over parameters of `RMSE / |truth|` (parameters with `|truth| ≥ score::ZERO`).
    pub rel_rmse: f64,
    /// Median over those parameters of `|bias| / |truth|`.
    pub rel_bias: f64,
    /// Parameters with `|bias| > std` over the seeds.
    pub biased: usize,
    /// Parameters counted.
    pub parameters: usize,
    /// Mean over the seeds of the identified model's torque NRMS on the validation run, where
    /// the study has one ([`super::effect_sweep::TORQUE_NRMS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque_nrms: Option<f64>,
}

/// `(scenario, factor, level, method)`: the factor a sensor family's or an effect's name.
pub type Key = (String, String, f64, String);

fn median(v: Vec<f64>) -> f64 {
    super::stats::median(&v)
}

/// The survival line of one (scenario, factor, level, method) from its parameters' summaries.
fn line(key: Key, summaries: &[(String, Summary)]) -> SurvivalRow {
    let counted: Vec<&Summary> = summaries
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.truth.abs() >= crate::estimate::score::ZERO)
        .collect();
    let torque_nrms = (summaries.iter())
        .find(|(p, _)| p == super::effect_sweep::TORQUE_NRMS)
        .map(|(_, s)| s.mean);
    let (scenario, factor, level, method) = key;
    SurvivalRow {
        scenario,
        factor,
        level,
        method,
        rel_rmse: median(counted.iter().map(|s| s.rmse / s.truth.abs()).collect()),
        rel_bias: median(
            counted
                .iter()
                .map(|s| s.bias.abs() / s.truth.abs())
                .collect(),
        ),
        biased: counted.iter().filter(|s| s.bias.abs() > s.std).count(),
        parameters: counted.len(),
        torque_nrms,
    }
}

/// The survival table of a study's parameter summaries, each with its (scenario, factor, level,
/// method): sensor sweeps and effects alike, in the order the summaries first name each key.
pub fn table(summaries: impl IntoIterator<Item = (Key, (String, Summary))>) -> Vec<SurvivalRow> {
    let mut groups: Vec<(Key, Vec<(String, Summary)>)> = Vec::new();
    for (key, summary) in summaries {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(summary),
            None => groups.push((key, vec![summary])),
        }
    }
    groups.into_iter().map(|(k, s)| line(k, &s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(truth: f64, bias: f64, std: f64) -> (String, Summary) {
        let name = format!("p{truth}");
        let s = Summary {
            truth,
            mean: truth + bias,
            bias,
            std,
            rmse: (bias * bias + std * std).sqrt(),
            runs: 10,
        };
        (name, s)
    }

    /// Medians and counts by hand; parameters with a zero truth are left out.
    #[test]
    fn a_line_counts_biased_parameters_and_takes_medians() {
        let s = [
            summary(2.0, 0.2, 0.1),
            summary(1.0, 0.0, 0.3),
            summary(4.0, -0.4, 0.5),
            summary(0.0, 1.0, 0.0),
        ];
        let l = line(("a".into(), "lugre".into(), 2.0, "didim".into()), &s);
        assert_eq!((l.biased, l.parameters), (1, 3));
        // |bias|/|truth|: 0.1, 0, 0.1 → median 0.1.
        assert!((l.rel_bias - 0.1).abs() < 1e-15);
        // rmse/|truth|: √0.05/2 = 0.112, 0.3, √0.41/4 = 0.160 → median √0.41/4.
        assert!((l.rel_rmse - 0.41f64.sqrt() / 4.0).abs() < 1e-15);
        assert_eq!(l.torque_nrms, None);
        // A validation NRMS (target 0) is reported, not counted among the parameters.
        let mut with = s.to_vec();
        let (_, mut nrms) = summary(0.0, 0.07, 0.01);
        nrms.mean = 0.07;
        with.push((super::super::effect_sweep::TORQUE_NRMS.into(), nrms));
        let l = line(("a".into(), "lugre".into(), 2.0, "didim".into()), &with);
        assert_eq!((l.parameters, l.torque_nrms), (3, Some(0.07)));
    }
}
