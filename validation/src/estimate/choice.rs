//! Which identified model to trust: the rule `armid identify` chooses the model it writes by
//! ([`choose`]). Among the estimators that gave a whole model whose every body is physically
//! consistent ([`crate::estimate::Estimates::model`]) and whose drive terms are
//! ([`physical_drives`]), the lowest torque NRMS by prediction on
//! the held-out stretch; estimators within [`TIE`] of it are tied, and a tie goes to the simpler
//! model, the one with fewer estimated parameters (then the lower NRMS, then the name).

use crate::estimate::engine::Outcome;

/// Relative margin within which two holdout NRMS are tied: 1 % of the best's (0.2 points of a
/// 20 % NRMS). Differences below it are within what another split of the same record moves.
pub const TIE: f64 = 0.01;

/// The rule as a sentence (the report and the terminal print it).
pub const RULE: &str = "the lowest holdout torque NRMS among the models whose every body and \
                        drive is physically consistent; within 1 % of it, the model with fewer \
                        estimated parameters";

/// One estimator's model, as the rule sees it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The estimator.
    pub method: String,
    /// Torque NRMS of its prediction on the held-out stretch (`torque_nrms`), where it has one.
    pub holdout_nrms: Option<f64>,
    /// Parameters it estimated.
    pub parameters: usize,
    /// Whether it gave a whole model whose every body is physically consistent.
    pub consistent_model: bool,
}

/// What the rule chose, and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Choice {
    /// The chosen estimator.
    pub method: String,
    /// Its holdout torque NRMS.
    pub holdout_nrms: f64,
    /// The estimators tied with it (within [`TIE`]), itself included.
    pub tied: Vec<String>,
    /// Every candidate, eligible or not, ranked by holdout NRMS (those without one last).
    pub candidates: Vec<Candidate>,
}

/// The candidates of an outcome identified on the first part of a record and scored by
/// prediction on the rest ([`crate::estimate::engine::run_all`] with a validation run).
pub fn candidates(outcome: &Outcome) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = (outcome.methods().into_iter())
        .map(|method| {
            let rows = outcome.rows.iter().filter(|r| r.method == method);
            let nrms = rows
                .clone()
                .find(|r| r.parameter == "torque_nrms")
                .and_then(|r| r.estimate)
                .filter(|x| x.is_finite());
            Candidate {
                method: method.to_string(),
                holdout_nrms: nrms,
                parameters: rows
                    .filter(|r| !r.parameter.starts_with("torque_nrms") && r.estimate.is_some())
                    .count(),
                consistent_model: (outcome.models.iter())
                    .any(|m| m.method == method && physical_drives(m)),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let key = |c: &Candidate| c.holdout_nrms.unwrap_or(f64::INFINITY);
        key(a)
            .total_cmp(&key(b))
            .then_with(|| a.method.cmp(&b.method))
    });
    out
}

/// Whether every drive term a model states is one a real drive can have: Coulomb level,
/// viscous coefficient and rotor inertia non-negative (the offset is a reading's bias, of any
/// sign).
pub fn physical_drives(model: &crate::estimate::engine::IdentifiedModel) -> bool {
    (model.drives.iter().flat_map(|d| &d.drive))
        .all(|d| d.coulomb >= 0.0 && d.viscous >= 0.0 && d.armature >= 0.0)
}

/// The model [`RULE`] chooses among `candidates`; `None` when none is eligible.
pub fn choose(candidates: &[Candidate]) -> Option<Choice> {
    choose_among(candidates, true)
}

/// [`RULE`] without its first condition: the lowest holdout NRMS among every torque model, ties
/// to the simpler. For drawing a prediction where no estimator gave a consistent whole model
/// (a run whose motion leaves some bodies undetermined); never for writing a model.
pub fn choose_any_predictor(candidates: &[Candidate]) -> Option<Choice> {
    choose_among(candidates, false)
}

/// The rule over `candidates`, among those with a consistent whole model only where `consistent`.
fn choose_among(candidates: &[Candidate], consistent: bool) -> Option<Choice> {
    let eligible: Vec<(&Candidate, f64)> = candidates
        .iter()
        .filter(|c| c.consistent_model || !consistent)
        .filter_map(|c| Some((c, c.holdout_nrms?)))
        .collect();
    let best = eligible.iter().map(|(_, n)| *n).min_by(f64::total_cmp)?;
    let mut tied: Vec<(&Candidate, f64)> = eligible
        .into_iter()
        .filter(|(_, n)| *n <= best * (1.0 + TIE))
        .collect();
    tied.sort_by(|(a, na), (b, nb)| {
        (a.parameters.cmp(&b.parameters))
            .then(na.total_cmp(nb))
            .then_with(|| a.method.cmp(&b.method))
    });
    let (chosen, nrms) = tied[0];
    Some(Choice {
        method: chosen.method.clone(),
        holdout_nrms: nrms,
        tied: tied.iter().map(|(c, _)| c.method.clone()).collect(),
        candidates: candidates.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(method: &str, nrms: Option<f64>, parameters: usize, consistent: bool) -> Candidate {
        Candidate {
            method: method.into(),
            holdout_nrms: nrms,
            parameters,
            consistent_model: consistent,
        }
    }

    #[test]
    fn the_best_consistent_model_is_chosen_and_others_are_ignored() {
        let all = [
            c("ols", Some(0.10), 40, false),
            c("prior", Some(0.15), 60, true),
            c("consistent", Some(0.12), 60, true),
            c("broken", None, 10, true),
        ];
        let choice = choose(&all).unwrap();
        assert_eq!(choice.method, "consistent");
        assert_eq!(choice.tied, vec!["consistent"]);
        assert_eq!(choice.holdout_nrms, 0.12);
    }

    #[test]
    fn a_tie_goes_to_the_model_with_fewer_parameters() {
        let all = [
            c("big", Some(0.2000), 60, true),
            c("small", Some(0.2015), 40, true),
            c("far", Some(0.2030), 10, true),
        ];
        let choice = choose(&all).unwrap();
        assert_eq!(choice.method, "small");
        assert_eq!(choice.tied, vec!["small", "big"]);
    }

    #[test]
    fn no_eligible_model_is_no_choice() {
        assert_eq!(choose(&[c("ols", Some(0.1), 40, false)]), None);
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn without_a_consistent_model_any_predictor_may_be_drawn() {
        let all = [
            c("ols", Some(0.5), 40, false),
            c("ekf", Some(0.04), 40, false),
        ];
        assert_eq!(choose(&all), None);
        assert_eq!(choose_any_predictor(&all).unwrap().method, "ekf");
    }
}
