//! The MIM paper's model identification method ([`crate::estimate::mim::algorithm`]): at one instant, stacked
//! body by body, as one whole-arm system, and as the whole-arm GLS that is efficient under joint
//! force/torque sensor noise ([`crate::estimate::mim::gls`]).
//!
//! All read the measured joint wrenches, centroid accelerations and Cardan angles and rates of
//! one run; the centroids and joint points are taken as known (the paper's assumption).
//! Standard deviations: the least-squares covariance under homoscedastic errors for the OLS
//! variants (their rows mix N and N·m, so it is a rough figure); GLS's is its exact covariance
//! `F⁻¹` under the stated noise.

use crate::estimate::Family;
use crate::estimate::mim::algorithm::{self as algo, DEFAULT_TOLERANCE, stacked};
use crate::estimate::mim::gls::{WrenchNoise, information};
use crate::estimate::{
    Estimate, EstimateError, Estimates, Estimator, Experiment, NotApplicable, ParamId,
};
use crate::lsq::{ols_std, solve_identifiable};
use sim::reading::Measurements;

fn param(b: usize, k: usize) -> ParamId {
    algo::param((b + 1) as u8, k)
}

fn run<'a>(experiment: &Experiment<'a>) -> Result<&'a Measurements, NotApplicable> {
    let data = crate::estimate::single(experiment)?;
    if data.bodies.is_empty() || data.samples() == 0 {
        return Err(NotApplicable::new("needs at least one body and one sample"));
    }
    Ok(data)
}

/// What the MIM estimators need (`armid estimators`).
const MIM_RUN: &str =
    "a single run with joint force/torque and body kinematics (the MIM paper's sensing)";

/// Per-body solve over `samples` with relative threshold `tolerance`
/// ([`solve_identifiable`]), with OLS standard deviations.
fn per_body(data: &Measurements, samples: &[usize], tolerance: f64) -> Estimates {
    let mut out = Estimates::default();
    for b in 0..data.bodies.len() {
        let (y, z) = stacked(data, b, samples.iter().copied());
        let x = solve_identifiable(&y, &z, tolerance);
        let std = ols_std(&y, &z, &x);
        for k in 0..6 {
            out.values.insert(
                param(b, k),
                Estimate {
                    value: x[k],
                    std: std[k],
                },
            );
        }
    }
    out
}

/// MIM at one instant (eq. 18 on the six equations of each body at one sample; the paper's
/// Table 2 takes `t = 1.5 s`).
#[derive(Clone, Debug)]
pub struct SingleInstant {
    /// Time of the sample used (s).
    pub time: f64,
    /// Relative threshold of [`solve_identifiable`].
    pub tolerance: f64,
}

impl SingleInstant {
    /// The paper's instant, `t = 1.5 s`.
    pub fn paper() -> Self {
        SingleInstant {
            time: 1.5,
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

impl Estimator for SingleInstant {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimSingle.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        "a single run with joint force/torque and body kinematics (the MIM paper's sensing), \
         sampled at t = 1.5 s"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let data = run(experiment)?;
        data.sample_at(self.time)
            .map(|_| ())
            .ok_or_else(|| NotApplicable::new(format!("needs a sample at t = {} s", self.time)))
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        self.applies(experiment)
            .map_err(|e| e.into_error(self.name()))?;
        let data = run(experiment).map_err(|e| e.into_error(self.name()))?;
        let k = data.sample_at(self.time).expect("checked");
        Ok(per_body(data, &[k], self.tolerance))
    }
}

/// MIM stacked over every sample, body by body (eq. 18).
#[derive(Clone, Copy, Debug)]
pub struct Stacked {
    /// Relative threshold of [`solve_identifiable`].
    pub tolerance: f64,
}

impl Default for Stacked {
    fn default() -> Self {
        Stacked {
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

impl Estimator for Stacked {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimStacked.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        MIM_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        run(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data = run(experiment).map_err(|e| e.into_error(self.name()))?;
        let samples: Vec<usize> = (0..data.samples()).collect();
        Ok(per_body(data, &samples, self.tolerance))
    }
}

/// MIM as one whole-arm system (eqs. 19–20): the block-diagonal system of every body and
/// sample, solved as one (its threshold relative to the whole system's largest singular
/// value). Its blocks do not couple, so it must agree with [`Stacked`]; it is kept to show
/// exactly that.
#[derive(Clone, Copy, Debug)]
pub struct WholeArm {
    /// Relative threshold of [`solve_identifiable`].
    pub tolerance: f64,
}

impl Default for WholeArm {
    fn default() -> Self {
        WholeArm {
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

impl Estimator for WholeArm {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimArm.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        MIM_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        run(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data = run(experiment).map_err(|e| e.into_error(self.name()))?;
        let (y, z) = algo::whole_arm_system(data);
        let x = solve_identifiable(&y, &z, self.tolerance);
        let std = ols_std(&y, &z, &x);
        let mut out = Estimates::default();
        for (i, (value, std)) in x.into_iter().zip(std).enumerate() {
            out.values
                .insert(param(i / 6, i % 6), Estimate { value, std });
        }
        Ok(out)
    }
}

/// Whole-arm generalized least squares weighted by the run's stated wrench noise: the
/// efficient MIM under force/torque sensor noise ([`crate::estimate::mim::gls`]).
#[derive(Clone, Copy, Debug)]
pub struct WholeArmGls;

impl Estimator for WholeArmGls {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimGls.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        "a single run with joint force/torque and body kinematics (the MIM paper's sensing) and a \
         stated noise on every F/T axis"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        let data = run(experiment)?;
        WrenchNoise::stated(data).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data = run(experiment).map_err(|e| e.into_error(self.name()))?;
        let noise = WrenchNoise::stated(data).map_err(|e| e.into_error(self.name()))?;
        let solved = information(data, &noise).solve();
        let mut out = Estimates::default();
        for (i, (value, std)) in solved.into_iter().enumerate() {
            out.values
                .insert(param(i / 6, i % 6), Estimate { value, std });
        }
        Ok(out)
    }
}

/// MIM on the ten standard parameters of every body ([`crate::estimate::mim::standard`]): mass,
/// first moments and central moments about the link axes, and, where every parameter of every
/// body is determined, the standard parameters and (if physically consistent) the model.
#[derive(Clone, Debug)]
pub struct Standard;

impl Estimator for Standard {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::MimStandard.name()
    }

    fn family(&self) -> Family {
        Family::Mim
    }

    fn needs(&self) -> &str {
        MIM_RUN
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        run(experiment).map(|_| ())
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let data = run(experiment).map_err(|e| e.into_error(self.name()))?;
        let bodies = crate::estimate::mim::standard::estimate(
            data,
            crate::estimate::mim::standard::TOLERANCE,
        );
        let mut out = Estimates::default();
        for (b, x) in bodies.iter().enumerate() {
            out.values
                .extend(crate::estimate::standard_values((b + 1) as u8, x));
        }
        let full: Option<Vec<sim::dynamics::StandardParameters>> = bodies
            .iter()
            .map(|x| {
                let v: Option<Vec<f64>> = x.iter().copied().collect();
                v.map(|v| sim::dynamics::StandardParameters(std::array::from_fn(|i| v[i])))
            })
            .collect();
        if let Some(standard) = full {
            out.model = data.geometry.with_standard_parameters(&standard).ok();
            out.standard = Some(standard);
        }
        Ok(out)
    }
}
