//! What makes a whole-arm identifier of the IDIM family an [`Estimator`]: [`Identifier`], which
//! each identifier implements in its own file (its name, what it needs, its algorithm on a
//! [`Prepared`](super::Prepared) experiment), and the one implementation of [`Estimator`] for
//! them all: the runs chosen by role, `q̇, q̈` obtained, the sweep analysis shared, the
//! algorithm's [`Estimates`] returned as they are.
//!
//! How `q̇, q̈` are obtained is the estimator's choice, made from what the excitation run
//! measures: with its recorded clean columns where `q` is not measured (ideal sensors), else a
//! Fourier series of the measured angles with parallel filtering of the equations
//! ([`Processing`]: 200 and 50 harmonics unless set otherwise).

use crate::estimate::Family;
use crate::estimate::idim::{self as id, Derivatives, friction_gravity, friction_sweep};
use crate::estimate::{EstimateError, Estimates, Estimator, Experiment, NotApplicable, Role};
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// How the whole-arm identifiers treat measured angles: `q̇, q̈` from a least-squares Fourier
/// series of `harmonics` harmonics of the excitation's period, and every equation parallel-
/// filtered to harmonics `0..=filter` ([`crate::estimate::idim::Prepared::filter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Processing {
    /// Harmonics of the Fourier series of the measured angles.
    pub harmonics: usize,
    /// Harmonics kept by the parallel filter.
    pub filter: usize,
}

impl Default for Processing {
    fn default() -> Self {
        Processing {
            harmonics: 200,
            filter: 50,
        }
    }
}

/// The runs an identifier takes, by role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// Forward/backward sweep runs alone (role `sweep`).
    Sweeps,
    /// Sweep runs and an excitation run.
    SweepsAndExcitation,
    /// An excitation run, sweep runs optional (without them, Coulomb + viscous friction columns
    /// replace the swept eq. 15 shapes: [`id::base::FrictionColumns`]).
    Excitation,
}

/// A whole-arm identifier of the IDIM family. Every type implementing it is an [`Estimator`]
/// (of [`Family::Idim`]).
pub trait Identifier: Send + Sync {
    /// Its registry name: the `method` column of every output.
    fn name(&self) -> &'static str;

    /// What it needs of an experiment, in a line.
    fn needs(&self) -> &'static str {
        "an excitation run with joint angles and torques (sweeps optional)"
    }

    /// The runs it takes.
    fn runs(&self) -> Runs {
        Runs::Excitation
    }

    /// How it treats measured angles.
    fn processing(&self) -> Processing {
        Processing::default()
    }

    /// Whether it can run at all, whatever the data (`Err`: what it lacks, e.g. a prior model).
    fn available(&self) -> Result<(), NotApplicable> {
        Ok(())
    }

    /// Whether it can run on this excitation run beyond the roles (the output-error methods
    /// simulate the run's control loop).
    fn requires(&self, _excitation: &Measurements) -> Result<(), NotApplicable> {
        Ok(())
    }

    /// The identification.
    fn identify(&self, experiment: &id::Prepared) -> Result<Estimates, EstimateError>;
}

/// An identifier with measured angles processed by `processing` in place of its default (the
/// teaching study's settings).
pub struct Processed<T> {
    /// The identifier.
    pub inner: T,
    /// Its processing.
    pub processing: Processing,
}

impl<T: Identifier> Identifier for Processed<T> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn needs(&self) -> &'static str {
        self.inner.needs()
    }

    fn runs(&self) -> Runs {
        self.inner.runs()
    }

    fn processing(&self) -> Processing {
        self.processing
    }

    fn available(&self) -> Result<(), NotApplicable> {
        self.inner.available()
    }

    fn requires(&self, excitation: &Measurements) -> Result<(), NotApplicable> {
        self.inner.requires(excitation)
    }

    fn identify(&self, experiment: &id::Prepared) -> Result<Estimates, EstimateError> {
        self.inner.identify(experiment)
    }
}

/// The runs of `experiment` that `arm` takes: its sweeps and its excitation run.
fn runs<'a>(
    arm: &dyn Identifier,
    experiment: &Experiment<'a>,
) -> Result<(Vec<&'a Measurements>, &'a Measurements), NotApplicable> {
    arm.available()?;
    let sweeps = experiment.with_role(Role::Sweep);
    if sweeps.is_empty() && arm.runs() != Runs::Excitation {
        return Err(NotApplicable::new(
            "needs forward/backward sweep runs (role `sweep`)",
        ));
    }
    if let Some(bad) = sweeps
        .iter()
        .find(|s| friction_sweep::swept_joint(s).is_none())
    {
        return Err(NotApplicable::new(format!(
            "needs a `sweep` servo reference in every sweep run (`{}` has none)",
            bad.run_id
        )));
    }
    let excitation = match experiment.first(Role::Excitation) {
        Some(e) => e,
        None if arm.runs() == Runs::Sweeps => sweeps[0],
        None => {
            return Err(NotApplicable::new(
                "needs an excitation run (role `excitation`)",
            ));
        }
    };
    arm.requires(excitation)?;
    Ok((sweeps, excitation))
}

fn derivatives(excitation: &Measurements, p: Processing) -> (Derivatives, Option<usize>) {
    if excitation
        .joints
        .iter()
        .any(|j| j.measured.contains_key(&JointColumn::Q))
    {
        let harmonics = p.harmonics;
        (Derivatives::Fourier { harmonics }, Some(p.filter))
    } else {
        (Derivatives::Recorded, None)
    }
}

/// The sweep analysis of an experiment's sweep runs, as [`Experiment::derived`] keeps it.
struct SweepAnalysis(Result<friction_gravity::FrictionGravity, EstimateError>);

impl<T: Identifier> Estimator for T {
    fn name(&self) -> &str {
        Identifier::name(self)
    }

    fn family(&self) -> Family {
        Family::Idim
    }

    fn needs(&self) -> &str {
        Identifier::needs(self)
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        runs(self, experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let name = Identifier::name(self);
        let (sweeps, excitation) = runs(self, experiment).map_err(|e| e.into_error(name))?;
        let (derivatives, filter) = derivatives(excitation, self.processing());
        let mut ex = id::Prepared::new(sweeps, excitation, derivatives, filter);
        if !ex.sweeps.is_empty() {
            // The sweep analysis depends on the sweep runs alone: one per experiment.
            let fit = experiment.derived(|| SweepAnalysis(friction_sweep::fit(&ex)));
            ex = ex.with_sweep_fit(fit.0.clone());
        }
        Identifier::identify(self, &ex)
    }
}
