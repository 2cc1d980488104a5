//! The teaching paper's whole-arm identifiers ([`crate::estimate::idim`]): friction and gravity
//! from forward/backward sweeps, IDIM (OLS, WLS, TLS), the paper's two-step method and the
//! adaptive law, on an experiment of sweep runs and an excitation run; and the
//! standard-parameter IDIM with a prior (`idim_prior`, `idim_consistent`). The IDIM methods also
//! run on an excitation run alone, with Coulomb + viscous friction columns instead of the swept
//! eq. 15 shapes ([`base::FrictionColumns`]).
//!
//! How `q̇, q̈` are obtained is the estimator's choice, made from what the excitation run
//! measures: with its recorded clean columns where `q` is not measured (ideal sensors), else a
//! Fourier series of the measured angles with parallel filtering of the equations
//! ([`Processing`]: 200 and 50 harmonics unless set otherwise).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::dataset::{JointColumn, Measurements};
use crate::estimate::Family;
use crate::estimate::idim::{
    self as id, Derivatives, Method, adaptive, base, cloe, consistent, didim, friction_sweep, iv,
    kalman, refined, two_step,
};
use crate::estimate::{
    Estimate, EstimateError, Estimates, Estimator, Experiment, NotApplicable, ParamId, Role,
};

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

/// One identifier of the teaching pipeline.
pub struct Teaching {
    name: &'static str,
    method: Method,
    processing: Processing,
    needs_excitation: bool,
    /// Whether it needs friction sweeps (else they are optional).
    needs_sweeps: bool,
    /// Why it cannot run whatever the data (a missing input).
    unavailable: Option<NotApplicable>,
}

impl Teaching {
    fn new(name: &'static str, method: Method) -> Self {
        Teaching {
            name,
            method,
            needs_excitation: true,
            needs_sweeps: true,
            unavailable: None,
            processing: Processing::default(),
        }
    }

    /// The identifier with measured angles processed by `processing`.
    pub fn with_processing(self, processing: Processing) -> Self {
        Teaching { processing, ..self }
    }

    /// The teaching paper's pipeline: the sweep analysis, IDIM OLS, WLS and TLS, the two-step
    /// method and the adaptive law.
    pub fn pipeline() -> Vec<Teaching> {
        vec![
            Self::sweep_fit(),
            Self::idim_ols(),
            Self::idim_wls(),
            Self::idim_tls(),
            Self::two_step(),
            Self::adaptive(),
        ]
    }

    /// An IDIM method: sweeps optional.
    fn idim(name: &'static str, method: Method) -> Self {
        Teaching {
            needs_sweeps: false,
            ..Self::new(name, method)
        }
    }

    /// Friction (eq. 15) and gravity from the sweeps alone.
    pub fn sweep_fit() -> Self {
        Teaching {
            needs_excitation: false,
            ..Self::new("friction_sweep", Method::SweepFit(friction_sweep::SweepFit))
        }
    }

    /// IDIM, ordinary least squares.
    pub fn idim_ols() -> Self {
        Self::idim("idim_ols", Method::Idim(base::Idim::ols()))
    }

    /// IDIM, weighted least squares.
    pub fn idim_wls() -> Self {
        Self::idim("idim_wls", Method::Idim(base::Idim::wls()))
    }

    /// IDIM, iteratively reweighted least squares (Huber).
    pub fn idim_irls() -> Self {
        Self::idim("idim_irls", Method::Idim(base::Idim::irls()))
    }

    /// IDIM with instrumental variables from the simulated loop (Janot et al. 2014).
    pub fn idim_iv() -> Self {
        Self::idim("idim_iv", Method::Iv(iv::Iv::default()))
    }

    /// DIDIM, closed-loop output error (Gautier et al. 2013).
    pub fn didim() -> Self {
        Self::idim("didim", Method::Didim(didim::Didim::default()))
    }

    /// CLOE, closed-loop output error on the measured angles (Landau and Karimi 1997).
    pub fn cloe() -> Self {
        Self::idim("cloe", Method::Cloe(cloe::Cloe::default()))
    }

    /// Extended Kalman filter, parameters in the state (Gautier and Poignet 2001).
    pub fn ekf() -> Self {
        Self::idim("ekf", Method::Ekf(kalman::ekf::Ekf))
    }

    /// Unscented Kalman filter, parameters in the state.
    pub fn ukf() -> Self {
        Self::idim("ukf", Method::Ukf(kalman::ukf::Ukf))
    }

    /// IDIM-OLS revised by `refine` ([`crate::estimate::idim::refined`]), named `name`.
    pub fn refined(name: &'static str, refine: std::sync::Arc<dyn refined::Refine>) -> Self {
        Self::idim(name, Method::Refined(refined::Refined { name, refine }))
    }

    /// IDIM, total least squares.
    pub fn idim_tls() -> Self {
        Self::idim("idim_tls", Method::Idim(base::Idim::tls()))
    }

    /// The paper's two-step method.
    pub fn two_step() -> Self {
        Self::new("two_step", Method::TwoStep(two_step::TwoStep))
    }

    /// The adaptive update law (eq. 29).
    pub fn adaptive() -> Self {
        Self::new("adaptive", Method::Adaptive(adaptive::Adaptive::default()))
    }

    /// Standard-parameter IDIM with a prior, unconstrained ([`consistent::Constraint::None`]).
    pub fn idim_prior(prior: Option<PathBuf>) -> Self {
        Self::standard("idim_prior", consistent::Constraint::None, prior)
    }

    /// Physically consistent standard-parameter IDIM with a prior ([`consistent`]).
    pub fn idim_consistent(prior: Option<PathBuf>) -> Self {
        Self::standard("idim_consistent", consistent::Constraint::Consistent, prior)
    }

    fn standard(
        name: &'static str,
        constraint: consistent::Constraint,
        prior: Option<PathBuf>,
    ) -> Self {
        let unavailable = prior.is_none().then(|| {
            NotApplicable::new("needs a prior model: `--prior FILE.urdf` (e.g. the CAD model)")
        });
        Teaching {
            unavailable,
            ..Self::idim(
                name,
                Method::Standard(consistent::StandardIdim::new(constraint, prior)),
            )
        }
    }

    fn runs<'a>(
        &self,
        experiment: &Experiment<'a>,
    ) -> Result<(Vec<&'a Measurements>, &'a Measurements), NotApplicable> {
        if let Some(reason) = &self.unavailable {
            return Err(reason.clone());
        }
        let sweeps = experiment.with_role(Role::Sweep);
        if sweeps.is_empty() && self.needs_sweeps {
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
            None if !self.needs_excitation => sweeps[0],
            None => {
                return Err(NotApplicable::new(
                    "needs an excitation run (role `excitation`)",
                ));
            }
        };
        self.method.requires(excitation)?;
        Ok((sweeps, excitation))
    }
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
struct SweepAnalysis(Result<friction_sweep::FrictionGravity, EstimateError>);

fn named(parameters: &[(ParamId, f64)]) -> BTreeMap<ParamId, f64> {
    parameters.iter().copied().collect()
}

impl Estimator for Teaching {
    fn name(&self) -> &'static str {
        self.name
    }

    fn family(&self) -> Family {
        Family::Idim
    }

    fn needs(&self) -> &str {
        match self.name {
            "friction_sweep" => "forward/backward sweep runs of each joint (role sweep)",
            "two_step" | "adaptive" => "sweep runs and an excitation run (roles sweep, excitation)",
            "idim_prior" | "idim_consistent" => {
                "an excitation run with joint angles and torques, and a prior model (--prior URDF)"
            }
            "idim_iv" | "didim" => {
                "an excitation run with joint angles and torques; simulates the identified arm in \
                 the run's control loop"
            }
            "cloe" => "an excitation run with a servoed or torque-driven joint",
            _ => "an excitation run with joint angles and torques (sweeps optional)",
        }
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        self.runs(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let (sweeps, excitation) = self.runs(experiment).map_err(|e| e.into_error(self.name))?;
        let (derivatives, filter) = derivatives(excitation, self.processing);
        let mut ex = id::Prepared::new(sweeps, excitation, derivatives, filter);
        if !ex.sweeps.is_empty() {
            // The sweep analysis depends on the sweep runs alone: one per experiment.
            let fit = experiment.derived(|| SweepAnalysis(friction_sweep::fit(&ex)));
            ex = ex.with_sweep_fit(fit.0.clone());
        }
        let identified = self.method.identify(&ex)?;
        let mut values: BTreeMap<ParamId, Estimate> = named(&identified.parameters)
            .into_iter()
            .map(|(p, v)| (p, Estimate::value(Some(v))))
            .collect();
        for (p, s) in &identified.std {
            if let Some(e) = values.get_mut(p) {
                e.std = Some(*s);
            }
        }
        let mut model = None;
        if let Some(standard) = &identified.standard {
            // Only what the data determine is an estimate; the prior's completion is in the model.
            for (b, p) in standard.iter().enumerate() {
                let determined = identified.determined.get(b).copied().unwrap_or([true; 10]);
                let x = std::array::from_fn(|i| determined[i].then_some(p.0[i]));
                values.extend(crate::estimate::standard_values((b + 1) as u8, &x));
            }
            model = ex.geometry().with_standard_parameters(standard).ok();
        }
        Ok(Estimates {
            values,
            predictor: Some(identified.model),
            history: identified
                .history
                .iter()
                .map(|(t, p)| (*t, named(p)))
                .collect(),
            standard: identified.standard,
            model,
        })
    }
}
