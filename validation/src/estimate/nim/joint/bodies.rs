//! A paper-sensing model's answer for a run ([`Sensing::Paper`]): MIM-GLS's body parameters
//! (MIM stacked's on a run without stated wrench noise) revised by the network, each with its
//! standard deviation, and each body's mass.

use super::sensing::encode_bodies;
use super::{JointNim, Sensing};
use crate::estimate::nim::Predictor;
use crate::estimate::{Estimate, Estimates, Experiment, NotApplicable};
use crate::param::ParamId;

impl<N: Predictor> JointNim<N> {
    /// Whether the model applies to `experiment`: a paper-sensing model and a single run with
    /// the bodies it was trained on; `Err` with the reason.
    pub(crate) fn applies_to_bodies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        if self.card.sensing != Sensing::Paper {
            return Err(NotApplicable::new(
                "the model reads joint angles and torques (joint-level sensing)",
            ));
        }
        let data = crate::estimate::single(experiment)?;
        let n = super::sensing::body_parameters(data.bodies.len()).len();
        if n != self.card.prior.len() {
            return Err(NotApplicable::new(format!(
                "the model was trained on arms with {} bodies ({}), the run has {}",
                self.card.prior.len() / 6,
                self.card.population,
                data.bodies.len()
            )));
        }
        Ok(())
    }

    /// The run's body parameters revised (module docs), with each body's mass ([`answer`]).
    pub(crate) fn identify_bodies(&self, experiment: &Experiment) -> crate::Result<Estimates> {
        (self.applies_to_bodies(experiment)).map_err(|e| e.into_error("paper-sensing NIM"))?;
        let (ids, encoded) = encode_bodies(experiment)?;
        let revised = self.predict(&[(&self.card.prior, &encoded)]).remove(0);
        Ok(answer(&ids, &revised))
    }
}

/// A paper-sensing answer: `revised`'s `(value, std)` for each of `ids` (MIM's six parameters
/// per body, [`super::sensing::body_parameters`]), and body `b`'s mass `m` as its per-axis mass
/// `m_e1..3` with the smallest standard deviation.
pub fn answer(ids: &[ParamId], revised: &[(f64, f64)]) -> Estimates {
    let mut out = Estimates::default();
    for (&id, &(value, std)) in ids.iter().zip(revised) {
        out.values.insert(id, estimate(value, std));
    }
    for (b, body) in revised.chunks(6).enumerate() {
        let (value, std) = (body[..3].iter())
            .copied()
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .expect("three per-axis masses");
        out.values
            .insert(ParamId::mass((b + 1) as u8), estimate(value, std));
    }
    out
}

fn estimate(value: f64, std: f64) -> Estimate {
    Estimate {
        value: value.is_finite().then_some(value),
        std: (std.is_finite() && std > 0.0).then_some(std),
    }
}
