//! MIM on what a robot without link IMUs has: joint force/torque sensors and encoders. Body
//! kinematics come from the measured joint angles through the known kinematics
//! ([`crate::encoder`]: five-point differentiator); the joint wrenches are the measured ones.
//! The differences are exact to `O(h⁴)`: the standard deviations stated cover their bias
//! ([`crate::estimate::discretization`]: the estimate again on every other sample, [`ORDER`] 4).

use crate::encoder::reconstruct;
use crate::estimate::Family;
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};

/// What the encoder path needs its samples for.
const DIFFERENTIATOR: &str = "the five-point differentiator of the joint angles";

/// What `mim_encoders` needs its samples for: the differences at the run's rate and at half of it.
const TWO_RATES: &str =
    "the five-point differentiator of the joint angles, at the run's rate and at half of it";

/// The order of the five-point differences in the sample period.
const ORDER: i32 = 4;

/// MIM stacked body by body on the encoder-only kinematics.
#[derive(Clone, Copy, Debug)]
pub struct MimEncoders;

/// The run's measurements with encoder-only kinematics, or why there are none.
pub(crate) fn encoder_view(
    experiment: &Experiment,
) -> Result<sim::reading::Measurements, NotApplicable> {
    with_wrenches(experiment, 5, DIFFERENTIATOR).map(reconstruct)
}

/// The single run, if it has `samples` samples or more (for `purpose`) and every body's joint wrench series (a recording
/// of joints has none: MIM has nothing to read its forces from).
fn with_wrenches<'a>(
    experiment: &Experiment<'a>,
    samples: usize,
    purpose: &str,
) -> Result<&'a sim::reading::Measurements, NotApplicable> {
    let data = crate::estimate::enough_samples(experiment, samples, purpose)?;
    let (bodies, links) = (data.bodies.len(), data.geometry.links.len());
    if bodies == 0 || bodies != links {
        return Err(NotApplicable::new(format!(
            "needs the joint wrenches of every body (bodies.parquet's f_*, n_*); the run has {bodies} \
             body series for {links} links"
        )));
    }
    Ok(data)
}

impl Estimator for MimEncoders {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimEncoders.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        "a single run with joint force/torque and measured joint angles (no body kinematics)"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        with_wrenches(experiment, 10, TWO_RATES).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data =
            with_wrenches(experiment, 10, TWO_RATES).map_err(|e| e.into_error(self.name()))?;
        let stacked = |data: &sim::reading::Measurements| {
            crate::estimate::mim::Stacked::default()
                .estimate(&Experiment::single(&reconstruct(data)))
        };
        let mut whole = stacked(data)?;
        let halved = stacked(&data.every(2))?;
        crate::estimate::discretization::widen(&mut whole.values, &halved.values, ORDER);
        Ok(whole)
    }
}
