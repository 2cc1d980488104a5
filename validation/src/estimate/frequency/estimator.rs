//! The frequency-domain paper's estimators ([`crate::estimate::frequency::algorithm`]) on a run with
//! multisine torques: the published per-joint fit, and the corrected linearized model. Both take
//! the excitation (fundamental, harmonics) from the run's design and the geometry from its
//! kinematics and centroids ([`crate::geometry`], the paper's assumption); nothing about
//! masses, moments or damping is assumed known unless the caller states it ([`Told`]: the
//! paper's study, [`crate::study::multisine`], states `J` and `c` known).

use crate::estimate::Family;
use crate::estimate::frequency::algorithm::{Excitation, LinearizedFrequency, PaperFrequency};
use crate::estimate::known_geometry::KnownGeometry;
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable};
use sim::reading::Measurements;

/// What the multisine paper's estimators need (`armid estimators`): the run
/// [`multisine_run`] takes.
pub(crate) const MULTISINE_RUN: &str = "a single run of a fixed-base planar arm on multisine \
     torques, joints about their bodies' e2 axes";

/// What a multisine estimator is told beyond the run's measurements and design
/// ([`Default`]: nothing).
#[derive(Clone, Debug, Default)]
pub struct Told {
    /// The known geometry; `None`: the run's kinematics with its measured centroids
    /// ([`crate::geometry::with_known_centroids`]), nothing inertial known. The paper's study
    /// states the moments and damping known as well ([`KnownGeometry::masses_unknown`]).
    pub geometry: Option<KnownGeometry>,
    /// Whole steady periods at the end of the record to use; `None`: every whole period but the
    /// first (the transient).
    pub periods: Option<usize>,
}

/// The run, its excitation and its known geometry (what `told` states, else the run's), or why
/// the method does not apply.
pub(crate) fn multisine_run<'a>(
    experiment: &Experiment<'a>,
    told: &Told,
) -> Result<(&'a Measurements, Excitation, KnownGeometry), NotApplicable> {
    let data = crate::estimate::single(experiment)?;
    let geometry = match &told.geometry {
        Some(g) => g.clone(),
        None => KnownGeometry::from_model(&crate::geometry::with_known_centroids(data)).map_err(
            |_| {
                NotApplicable::new(
                    "needs a fixed-base planar arm whose joints turn about their bodies' e2 axes",
                )
            },
        )?,
    };
    let mut excitation = Excitation::from_data(data)?;
    if let Some(periods) = told.periods {
        excitation.periods = periods;
    }
    Ok((data, excitation, geometry))
}

/// The paper's per-joint second-order fit, as published (masses only, two links).
#[derive(Clone, Debug, Default)]
pub struct Paper {
    /// What it is told beyond the run.
    pub told: Told,
}

impl Estimator for Paper {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::FrequencyPaper.name()
    }

    fn family(&self) -> Family {
        Family::Frequency
    }

    fn needs(&self) -> &str {
        "a single run of a fixed-base planar two-link arm on multisine torques, joints about their \
         bodies' e2 axes"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let (_, _, geometry) = multisine_run(experiment, &self.told)?;
        if geometry.bodies() != 2 {
            return Err(NotApplicable::new(
                "needs a two-link arm (the paper's equations)",
            ));
        }
        Ok(())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, excitation, geometry) =
            multisine_run(experiment, &self.told).map_err(|e| e.into_error(self.name()))?;
        let method = PaperFrequency {
            geometry,
            excitation,
        };
        Ok(crate::estimate::from_values(method.estimate(data)?))
    }
}

/// The corrected linearized frequency-domain fit: masses, moments about the joint axis and
/// joint damping.
#[derive(Clone, Debug, Default)]
pub struct Linearized {
    /// What it is told beyond the run.
    pub told: Told,
}

impl Estimator for Linearized {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::FrequencyLinearized.name()
    }

    fn family(&self) -> Family {
        Family::Frequency
    }

    fn needs(&self) -> &str {
        MULTISINE_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        multisine_run(experiment, &self.told).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (data, excitation, geometry) =
            multisine_run(experiment, &self.told).map_err(|e| e.into_error(self.name()))?;
        let method = LinearizedFrequency {
            geometry,
            excitation,
        };
        Ok(crate::estimate::from_values(method.estimate(data)?))
    }
}
