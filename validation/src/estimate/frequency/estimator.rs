//! The frequency-domain paper's estimators ([`crate::estimate::frequency::algorithm`]) on a run with
//! multisine torques: the published per-joint fit, and the corrected linearized model. Both take
//! the excitation (fundamental, harmonics) from the run's design and the geometry from its
//! kinematics and centroids ([`crate::geometry`], the paper's assumption); nothing about
//! masses, moments or damping is assumed known (the paper's study,
//! which assumes `J` and `c` known, is [`crate::study::multisine`]).

use crate::dataset::Measurements;
use crate::estimate::Family;
use crate::estimate::frequency::algorithm::{Excitation, LinearizedFrequency, PaperFrequency};
use crate::estimate::known_geometry::KnownGeometry;
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};

/// What the multisine paper's estimators need (`armid estimators`): the run
/// [`multisine_run`] takes.
pub(crate) const MULTISINE_RUN: &str = "a single run of a fixed-base planar arm on multisine \
     torques, joints about their bodies' e2 axes";

/// The run, its excitation and its known geometry, or why the method does not apply.
pub(crate) fn multisine_run<'a>(
    experiment: &Experiment<'a>,
) -> Result<(&'a Measurements, Excitation, KnownGeometry), NotApplicable> {
    let data = crate::estimate::single(experiment)?;
    let chain = crate::geometry::with_known_centroids(data);
    let geometry = KnownGeometry::from_model(&chain).map_err(|_| {
        NotApplicable::new(
            "needs a fixed-base planar arm whose joints turn about their bodies' e2 axes",
        )
    })?;
    let excitation = Excitation::from_data(data).map_err(|e| NotApplicable(e.to_string()))?;
    Ok((data, excitation, geometry))
}

/// The paper's per-joint second-order fit, as published (masses only, two links).
#[derive(Clone, Copy, Debug)]
pub struct Paper;

impl Estimator for Paper {
    fn name(&self) -> &'static str {
        "frequency_paper"
    }

    fn family(&self) -> Family {
        Family::Frequency
    }

    fn needs(&self) -> &str {
        "a single run of a fixed-base planar two-link arm on multisine torques, joints about their \
         bodies' e2 axes"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let (_, _, geometry) = multisine_run(experiment)?;
        if geometry.bodies() != 2 {
            return Err(NotApplicable::new(
                "needs a two-link arm (the paper's equations)",
            ));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, excitation, geometry) =
            multisine_run(experiment).map_err(|e| e.into_error(self.name()))?;
        let method = PaperFrequency {
            geometry,
            excitation,
        };
        Ok(crate::estimate::from_values(method.estimate(data)?))
    }
}

/// The corrected linearized frequency-domain fit: masses, moments about the joint axis and
/// joint damping.
#[derive(Clone, Copy, Debug)]
pub struct Linearized;

impl Estimator for Linearized {
    fn name(&self) -> &'static str {
        "frequency_linearized"
    }

    fn family(&self) -> Family {
        Family::Frequency
    }

    fn needs(&self) -> &str {
        MULTISINE_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        multisine_run(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, excitation, geometry) =
            multisine_run(experiment).map_err(|e| e.into_error(self.name()))?;
        let method = LinearizedFrequency {
            geometry,
            excitation,
        };
        Ok(crate::estimate::from_values(method.estimate(data)?))
    }
}
