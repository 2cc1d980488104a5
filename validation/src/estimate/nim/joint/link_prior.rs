//! The population's prior on the base parameters of an arm of any kinematic structure: random
//! arms ([`sim::population`]'s `[population.random]`) differ in joint count and axes, so their
//! base parameters are different combinations and cannot be averaged across arms. Their links
//! can: link `k`'s standard parameters (mass, first moments and inertia about the joint, in its
//! link frame, [`sim::dynamics::StandardParameters`]) of every training arm that has a link `k`.
//! The prior of one arm's base parameters is the spread of the training arms' links put on that
//! arm's kinematics — for each training arm `j`, the arm with link `k` replaced by the `k`-th link
//! of the `j`-th training arm that has one — mapped through the arm's own base map
//! ([`crate::regressor::BaseParameters::of_chain`]): its mean is the population's answer for this
//! arm, its spread what the population says about it. A link put on a kinematics it was not
//! drawn with is not a body of that arm (its size went with its own link length): the answer of
//! a population that knows links, not arms, which is what "the population mean" can mean across
//! structures.

use nalgebra::DVector;
use sim::dynamics::StandardParameters;
use sim::model::Chain;

use serde::{Deserialize, Serialize};

use super::Prior;
use crate::regressor::BaseParameters;

/// The training arms' links, by link index.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkPopulation {
    /// `links[k]`: link `k`'s standard parameters of every training arm that has one.
    links: Vec<Vec<[f64; 10]>>,
    /// Training arms.
    arms: usize,
}

impl LinkPopulation {
    /// The links of the training arms' true models.
    pub fn of(models: &[&Chain]) -> Self {
        let mut links: Vec<Vec<[f64; 10]>> = Vec::new();
        for model in models {
            for k in 0..model.len() {
                if links.len() <= k {
                    links.push(Vec::new());
                }
                links[k].push(StandardParameters::of_link(model, k).0);
            }
        }
        LinkPopulation {
            links,
            arms: models.len(),
        }
    }

    /// The prior of `arm`'s base parameters (module docs); `Err` with the reason if the arm has
    /// more links than any training arm, or fewer than two training arms.
    pub(crate) fn prior_for(&self, arm: &Chain) -> crate::Result<Prior> {
        if arm.len() > self.links.len() {
            return Err(crate::Error::invalid(
                format!("arm `{}` ({} links)", arm.name, arm.len()),
                format!("at most {} links, as the training arms", self.links.len()),
            ));
        }
        let base = BaseParameters::of_chain(&arm.kinematics_only());
        let truths: Vec<Vec<f64>> = (0..self.arms)
            .map(|j| {
                let pi = DVector::from_iterator(
                    10 * arm.len(),
                    (0..arm.len()).flat_map(|k| self.links[k][j % self.links[k].len()]),
                );
                base.map(&pi).iter().copied().collect()
            })
            .collect();
        Prior::of(&truths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::{ParamId, arm_truth};

    fn panda() -> Chain {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        sim::urdf::read(&root.join("models/panda.urdf")).unwrap()
    }

    /// An arm whose every training arm is itself: the prior's mean is its truth, its spread 0;
    /// an arm with more links than any training arm is refused.
    #[test]
    fn the_links_of_the_arm_itself_give_its_base_parameters() {
        let arm = panda();
        let population = LinkPopulation::of(&[&arm, &arm, &arm]);
        let prior = population.prior_for(&arm).unwrap();
        let truth = arm_truth(&arm);
        for (k, (m, s)) in prior.mean.iter().zip(&prior.sd).enumerate() {
            let t = truth[&ParamId::Base(k + 1)];
            assert!(
                (m - t).abs() <= 1e-12 * t.abs().max(1.0),
                "base.{}: {m} vs {t}",
                k + 1
            );
            assert!(*s <= 1e-12, "base.{}: spread {s}", k + 1);
        }
        let mut short = arm.clone();
        short.links.truncate(3);
        let e = LinkPopulation::of(&[&short, &short])
            .prior_for(&arm)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 3"), "{e}");
    }
}
