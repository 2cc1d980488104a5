//! Which identified model to trust: the rule `armid identify` chooses the model it writes by
//! ([`choose`]). It weighs two figures on the held-out stretch: the torque NRMS by prediction
//! (how well the model explains the torque) and the drift of its rollouts
//! ([`crate::estimate::drift`]: how well it moves like the robot when simulated under the logged
//! torque).
//!
//! 1. **Eligible**: the estimators that gave a whole model whose every body is physically
//!    consistent ([`crate::estimate::Estimates::model`]), whose drive terms are
//!    ([`physical_drives`]), and none of whose rollouts blew up.
//! 2. **Band**: those within [`BAND`] of the lowest torque NRMS among them: a model that explains
//!    the torque clearly worse is not chosen for its motion alone.
//! 3. **Drift**: where every model in the band has a drift figure (a held-out stretch longer
//!    than one rollout), the lowest mean drift at the horizon wins, models within [`TIE`] of it
//!    tied; otherwise the lowest NRMS wins, models within [`TIE`] of it tied. A tie goes to the simpler model, the one with
//!    fewer estimated parameters (then the lower NRMS, then the name).

use crate::estimate::drift::Drift;
use crate::estimate::engine::Outcome;

/// Relative margin within which two holdout NRMS (or two drifts) are tied: 1 % of the best's
/// (0.2 points of a 20 % NRMS). Differences below it are within what another split of the same
/// record moves.
pub const TIE: f64 = 0.01;

/// Relative margin of the torque NRMS within which the drift decides: 5 % of the best's (one
/// point of a 20 % NRMS).
pub const BAND: f64 = 0.05;

/// The rule as a sentence (the report and the terminal print it).
pub const RULE: &str = "among the models whose every body and drive is physically consistent \
                        and whose held-out rollouts do not blow up, those within 5 % of the \
                        lowest holdout torque NRMS; of them the one whose rollouts drift least; \
                        within 1 % of it, the model with fewer estimated parameters";

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
    /// Its rollouts on the held-out stretch, where measured ([`crate::estimate::drift`]).
    #[serde(default)]
    pub drift: Option<Drift>,
}

impl Candidate {
    /// Whether one of its rollouts blew up.
    pub fn blows_up(&self) -> bool {
        self.drift.as_ref().is_some_and(|d| d.blown_up > 0)
    }

    /// Its mean drift, where it has rollouts and none blew up.
    fn drift_figure(&self) -> Option<f64> {
        (self.drift.as_ref())
            .filter(|d| d.blown_up == 0)
            .and_then(|d| d.mean_horizon)
    }
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
                    .filter(|r| r.estimate.is_some() && !is_figure(&r.parameter))
                    .count(),
                consistent_model: (outcome.models.iter())
                    .any(|m| m.method == method && physical_drives(m)),
                drift: None,
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

/// Each candidate with a consistent whole model given its model's drift on `held_out`
/// ([`crate::estimate::drift`]).
pub fn measure_drift(
    candidates: &mut [Candidate],
    outcome: &crate::estimate::engine::Outcome,
    held_out: &crate::estimate::engine::Loaded,
) -> crate::Result<()> {
    for c in candidates.iter_mut().filter(|c| c.consistent_model) {
        let model = (outcome.models.iter())
            .find(|m| m.method == c.method)
            .expect("a consistent candidate has a model");
        c.drift = crate::estimate::drift::drift(model, held_out)?;
    }
    Ok(())
}

/// Whether a row is a figure of the model (holdout torque NRMS, rollout drift), not one of its
/// parameters.
fn is_figure(parameter: &str) -> bool {
    parameter.starts_with("torque_nrms") || parameter.starts_with("rollout_")
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
        .filter(|c| (c.consistent_model || !consistent) && !c.blows_up())
        .filter_map(|c| Some((c, c.holdout_nrms?)))
        .collect();
    let best = eligible.iter().map(|(_, n)| *n).min_by(f64::total_cmp)?;
    let band: Vec<(&Candidate, f64)> = eligible
        .into_iter()
        .filter(|(_, n)| *n <= best * (1.0 + BAND))
        .collect();
    let drifts: Option<Vec<f64>> = band.iter().map(|(c, _)| c.drift_figure()).collect();
    let mut tied: Vec<(&Candidate, f64)> = match drifts {
        Some(d) => {
            let least = d.iter().copied().min_by(f64::total_cmp)?;
            (band.into_iter().zip(d))
                .filter(|(_, d)| *d <= least * (1.0 + TIE))
                .map(|(c, _)| c)
                .collect()
        }
        None => (band.into_iter())
            .filter(|(_, n)| *n <= best * (1.0 + TIE))
            .collect(),
    };
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
            drift: None,
        }
    }

    fn drifting(mut c: Candidate, mean: f64, blown_up: usize) -> Candidate {
        c.drift = Some(Drift {
            horizon: 0.3,
            windows: 10,
            blown_up,
            mean_horizon: (blown_up < 10).then_some(mean),
            per_joint: vec![mean],
        });
        c
    }

    #[test]
    fn within_the_band_the_model_that_drifts_least_is_chosen() {
        let all = [
            drifting(c("torque_best", Some(0.200), 60, true), 0.20, 0),
            drifting(c("moves_best", Some(0.208), 60, true), 0.02, 0),
            drifting(c("too_far", Some(0.300), 60, true), 0.001, 0),
        ];
        let choice = choose(&all).unwrap();
        assert_eq!(choice.method, "moves_best");
        assert_eq!(choice.holdout_nrms, 0.208);
    }

    #[test]
    fn a_model_whose_rollouts_blow_up_is_never_chosen() {
        let all = [
            drifting(c("blows_up", Some(0.10), 10, true), 0.3, 3),
            drifting(c("steady", Some(0.40), 60, true), 0.05, 0),
        ];
        assert_eq!(choose(&all).unwrap().method, "steady");
        let only = [drifting(c("blows_up", Some(0.10), 10, true), 0.1, 1)];
        assert_eq!(choose(&only), None);
    }

    #[test]
    fn without_a_drift_for_every_model_in_the_band_the_nrms_decides() {
        let all = [
            c("a", Some(0.200), 60, true),
            drifting(c("b", Some(0.205), 60, true), 0.01, 0),
        ];
        assert_eq!(choose(&all).unwrap().method, "a");
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
