//! Identification of an industrial arm (the Franka Emika Panda, `models/panda.urdf`), end to
//! end through the estimation API, rendered by [`crate::report::industrial`].
//!
//! Two clean closed-loop runs (the D-optimal excitation and a random validation trajectory,
//! scenarios `panda_excitation` and `panda_validation`) are re-noised per seed at the levels
//! of its cases (`studies/industrial.toml`; [`crate::study::teaching::measurements`]: fresh noise on `q` and on the torque
//! signal, never re-simulated) and identified by every IDIM variant: OLS, WLS and TLS on the base
//! parameters, and the standard-parameter estimates with a prior, unconstrained (`idim_prior`)
//! and physically consistent (`idim_consistent`). The prior is a stated "CAD model": the file's
//! bodies with [`prior_model`]'s errors, written beside the results and given to the
//! estimators as a URDF, as a user would give theirs. Each method is scored by the torque NRMS
//! it predicts on the validation run, by its base-parameter error and, for standard
//! parameters, by whether every link is a real body ([`sim::physical::check`]). Finally the
//! consistent model of the first seed is written as URDF, read back, and its validation NRMS
//! recomputed from the file (plus the identified friction) — it must be the one reported.

use std::path::{Path, PathBuf};

use nalgebra::DVector;
use serde::{Deserialize, Serialize};
use sim::model::Chain;

use crate::estimate::idim::{
    Derivatives, MIN_SPEED, Samples, TorqueModel, periodic_samples, torque_nrms,
};
use crate::estimate::{
    Estimates, Estimator, EstimatorId, Experiment, Options, Role, by_id, engine,
};
use crate::param::ParamId;
use crate::regressor::{BaseParameters, standard_vector};
use crate::study::monte_carlo;
use crate::study::teaching::{NoiseLevel, measurements};
use sim::reading::{Measurements, Run};

/// The estimators compared, by their API names.
pub const METHODS: [EstimatorId; 5] = super::IDIM_FAMILY;

/// One identification setting: a noise level and how much of the excitation is used (a
/// `[[case]]` of `studies/industrial.toml`, [`crate::study::plan`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Name in the report.
    pub name: String,
    /// The noise.
    pub level: NoiseLevel,
    /// Whole periods of the excitation used after the first (transient) one (`None`: all).
    pub periods: Option<usize>,
}

/// The stated "CAD model" errors of the prior: masses alternately +20 % and −20 % (link 1
/// heavier), centroids 10 % closer to their joint, central inertia tensors +30 %.
pub fn prior_model(arm: &Chain) -> Chain {
    let mut prior = arm.clone();
    prior.name = format!("{}_prior", arm.name);
    for (k, link) in prior.links.iter_mut().enumerate() {
        let b = &mut link.body;
        b.mass *= if k % 2 == 0 { 1.2 } else { 0.8 };
        let anchor = link.joint.anchor;
        b.centroid = std::array::from_fn(|i| anchor[i] + 0.9 * (b.centroid[i] - anchor[i]));
        b.inertia = b.inertia.map(|j| 1.3 * j);
    }
    prior
}

/// One method's results in one case, over the seeds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MethodResult {
    /// Case name.
    pub case: String,
    /// Estimator name.
    pub method: String,
    /// Validation torque NRMS per seed.
    pub nrms: Vec<f64>,
    /// `‖β̂ − β‖ / ‖β‖` of the base parameters per seed.
    pub base_error: Vec<f64>,
    /// For standard-parameter methods: the number of physically inconsistent links per seed.
    pub inconsistent_links: Option<Vec<usize>>,
    /// Errors of seeds where the method failed.
    pub failures: Vec<String>,
}

/// The study's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IndustrialStudy {
    /// Model name.
    pub model: String,
    /// Links, base parameters.
    pub links: usize,
    /// Number of base parameters.
    pub base_parameters: usize,
    /// Noise seeds per case.
    pub seeds: usize,
    /// `(cond(W_b), log det(W_bᵀW_b))` of the excitation's commanded trajectory and of the
    /// random validation trajectory.
    pub design: [(f64, f64); 2],
    /// The cases' names, in order.
    pub cases: Vec<String>,
    /// Per case and method.
    pub results: Vec<MethodResult>,
    /// The consistent model of case 0, seed 0: where it was written, the NRMS reported and the
    /// NRMS recomputed from the file read back.
    pub exported: Option<(PathBuf, f64, f64)>,
}

/// Fourier series and parallel filter harmonics (as the teaching estimators use with noise).
const DERIVATIVES: Derivatives = Derivatives::Fourier { harmonics: 200 };
const FILTER: Option<usize> = Some(50);

impl IndustrialStudy {
    /// Runs the study on the clean excitation and validation runs in the given cases (usually
    /// its `cases`); the prior URDF and the identified model (of the first case) are written into
    /// `out`.
    pub fn new(
        excitation: &Run,
        validation: &Run,
        cases: &[Case],
        seeds: usize,
        out: &Path,
    ) -> crate::Result<Self> {
        let arm = &excitation.manifest.model;
        std::fs::create_dir_all(out).map_err(crate::Error::io(out))?;
        let prior_path = out.join(format!("{}_prior.urdf", arm.name));
        let text = sim::urdf::to_string(&prior_model(arm))?;
        crate::files::write_atomic(&prior_path, &text).map_err(crate::Error::io(&prior_path))?;
        let options = Options {
            prior: Some(prior_path),
            ..Default::default()
        };
        let estimators: Vec<Box<dyn Estimator>> =
            METHODS.iter().map(|&m| by_id(&options, m)).collect();
        let geometry = arm.kinematics_only();
        let base = BaseParameters::of_chain(&geometry);
        let truth = base.map(&standard_vector(arm));
        let mut results = Vec::new();
        let mut exported = None;
        let per_case = monte_carlo::run(
            cases,
            |_| seeds,
            |case, seed| {
                identify(
                    case,
                    seed,
                    excitation,
                    validation,
                    &estimators,
                    &base,
                    &truth,
                )
            },
            &monte_carlo::quiet,
        );
        for (c, (case, per_seed)) in cases.iter().zip(per_case).enumerate() {
            let per_seed: Vec<Vec<crate::Result<Scored>>> =
                per_seed.into_iter().collect::<crate::Result<_>>()?;
            for (m, method) in METHODS.iter().enumerate() {
                let mut r = MethodResult {
                    case: case.name.clone(),
                    method: (*method).into(),
                    ..Default::default()
                };
                for seed in &per_seed {
                    match &seed[m] {
                        Ok(s) => {
                            r.nrms.push(s.nrms);
                            r.base_error.push(s.base_error);
                            if let Some(k) = s.inconsistent {
                                r.inconsistent_links.get_or_insert_with(Vec::new).push(k);
                            }
                        }
                        Err(e) => r.failures.push(e.to_string()),
                    }
                }
                results.push(r);
            }
            if c == 0 {
                exported = Some(export_and_check(
                    case,
                    excitation,
                    validation,
                    estimators[4].as_ref(),
                    out,
                )?);
            }
        }
        let design = [excitation, validation].map(|r| commanded_design(&r.clean, &base));
        Ok(IndustrialStudy {
            model: arm.name.clone(),
            links: arm.len(),
            base_parameters: base.len(),
            seeds,
            design,
            cases: cases.iter().map(|c| c.name.to_string()).collect(),
            results,
            exported,
        })
    }

    /// The results of `method` in case `case` (index into [`Self::cases`]).
    pub fn result(&self, case: usize, method: &str) -> Option<&MethodResult> {
        let name = self.cases.get(case)?;
        self.results
            .iter()
            .find(|r| &r.case == name && r.method == method)
    }
}

/// What one method gives on one seed.
struct Scored {
    nrms: f64,
    base_error: f64,
    inconsistent: Option<usize>,
}

/// The noisy excitation (cut to the case's periods) and validation runs of one seed.
fn noisy_runs(
    case: &Case,
    seed: u64,
    excitation: &Run,
    validation: &Run,
) -> crate::Result<(Measurements, Measurements)> {
    let mut exc = measurements(&excitation.clean, Some((&case.level, seed)))?;
    if let Some(p) = case.periods {
        let per_period = period_samples(&exc);
        exc = exc.head(per_period * (p + 1) + 1);
    }
    Ok((
        exc,
        measurements(&validation.clean, Some((&case.level, 1000 + seed)))?,
    ))
}

/// Samples per period of a run's Fourier references.
fn period_samples(m: &Measurements) -> usize {
    let f = m.joints.iter().find_map(|j| match &j.reference {
        Some(sim::profile::Profile::Fourier { base_frequency, .. }) => Some(*base_frequency),
        _ => None,
    });
    let dt = m.t[1] - m.t[0];
    f.map_or(m.samples(), |f| (1.0 / (f * dt)).round() as usize)
}

fn identify(
    case: &Case,
    seed: u64,
    excitation: &Run,
    validation: &Run,
    estimators: &[Box<dyn Estimator>],
    base: &BaseParameters,
    truth: &DVector<f64>,
) -> crate::Result<Vec<crate::Result<Scored>>> {
    let (exc, val) = noisy_runs(case, seed, excitation, validation)?;
    let experiment = Experiment::new(vec![(Role::Excitation, &exc)]);
    let check = match periodic_samples(&val, DERIVATIVES, "validation") {
        Ok(c) => c,
        Err(e) => return Ok(estimators.iter().map(|_| Err(e.clone().into())).collect()),
    };
    Ok(estimators
        .iter()
        .map(|e| {
            let est = engine::required(e.as_ref(), &experiment)?;
            score(e.name(), &est, &check, base, truth)
        })
        .collect())
}

fn score(
    method: &str,
    est: &Estimates,
    check: &Samples,
    base: &BaseParameters,
    truth: &DVector<f64>,
) -> crate::Result<Scored> {
    let model = est.predictor.as_ref().ok_or(crate::Error::Missing {
        estimator: method.into(),
        missing: "torque model",
    })?;
    let beta = DVector::from_fn(base.len(), |k, _| {
        est.values
            .get(&ParamId::Base(k + 1))
            .and_then(|e| e.value)
            .unwrap_or(f64::NAN)
    });
    Ok(Scored {
        nrms: torque_nrms(model.as_ref(), check, MIN_SPEED, FILTER),
        base_error: (beta - truth).norm() / truth.norm(),
        inconsistent: est.standard.as_ref().map(|s| {
            s.iter()
                .filter(|p| sim::physical::check(p).is_err())
                .count()
        }),
    })
}

/// The identified consistent model written as URDF and read back; its validation NRMS from the
/// file plus the identified friction, beside the reported one.
fn export_and_check(
    case: &Case,
    excitation: &Run,
    validation: &Run,
    consistent: &dyn Estimator,
    out: &Path,
) -> crate::Result<(PathBuf, f64, f64)> {
    let (exc, val) = noisy_runs(case, 0, excitation, validation)?;
    let est = engine::required(consistent, &Experiment::new(vec![(Role::Excitation, &exc)]))?;
    let missing = |missing| crate::Error::Missing {
        estimator: consistent.name().into(),
        missing,
    };
    let model = est.model.as_ref().ok_or(missing("identified model"))?;
    let path = out.join(format!("{}_identified.urdf", model.name));
    let text = sim::urdf::to_string(model)?;
    crate::files::write_atomic(&path, &text).map_err(crate::Error::io(&path))?;
    let check = periodic_samples(&val, DERIVATIVES, "validation")?;
    let reported = torque_nrms(
        est.predictor
            .as_ref()
            .ok_or(missing("torque model"))?
            .as_ref(),
        &check,
        MIN_SPEED,
        FILTER,
    );
    let back = sim::urdf::read(&path)?;
    let friction = |joint: u8, term: &str| {
        let term = crate::param::FrictionTerm::from_name(term).expect("a friction term");
        (est.values.get(&ParamId::Friction { joint, term }))
            .and_then(|e| e.value)
            .unwrap_or(0.0)
    };
    let loaded = UrdfModel {
        coulomb: back
            .joint_ids()
            .iter()
            .map(|&j| friction(j, "coulomb"))
            .collect(),
        viscous: back
            .joint_ids()
            .iter()
            .map(|&j| friction(j, "viscous"))
            .collect(),
        chain: back,
    };
    Ok((
        path,
        reported,
        torque_nrms(&loaded, &check, MIN_SPEED, FILTER),
    ))
}

/// A URDF model plus Coulomb + viscous friction as a torque predictor.
struct UrdfModel {
    chain: Chain,
    coulomb: Vec<f64>,
    viscous: Vec<f64>,
}

impl TorqueModel for UrdfModel {
    fn torque(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        let tau = sim::dynamics::rnea(&self.chain, q, qd, qdd, &self.chain.gravity_vector()).tau;
        (0..tau.len())
            .map(|j| tau[j] + self.coulomb[j] * qd[j].signum() + self.viscous[j] * qd[j])
            .collect()
    }
}

/// `(cond, log det)` of a run's commanded Fourier references over 100 instants of a period.
fn commanded_design(m: &Measurements, base: &BaseParameters) -> (f64, f64) {
    let profiles: Vec<sim::profile::Profile> = m
        .joints
        .iter()
        .filter_map(|j| j.reference.clone())
        .collect();
    crate::excitation::of_references(&m.geometry, base, &profiles)
}
