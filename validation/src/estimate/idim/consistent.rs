//! IDIM on the *standard* parameters with a prior, unconstrained or physically consistent.
//!
//! Base-parameter IDIM ([`super::base`]) determines only the combinations `β = B π` the data
//! feel, and nothing keeps them those of real bodies: on short or noisy excitation an OLS
//! estimate routinely has a link of negative mass or with principal moments that violate the
//! triangle inequalities, and a controller fed with it misbehaves. These identifiers estimate
//! the ten standard parameters `π` of every link ([`sim::dynamics::StandardParameters`], link
//! frames of the run's kinematics) and the friction coefficients `c` together, minimizing
//!
//! ```text
//! ‖[Y_b B | Φ] (π, c) − τ‖²  +  λ ‖S (π − π_ref)‖²,       λ = σ̂² / ρ²
//! ```
//!
//! over the same equations as IDIM-OLS (`Y_b`, `Φ`, `τ`: [`super::base::FullRegressor::system`]).
//! The prior `π_ref` (a stated reference model, e.g. the CAD model, given as a URDF) fixes the
//! directions the data cannot see; `S` makes it dimensionless per link (mass by `m_ref`, first
//! moments by `m_ref ℓ`, second moments by `m_ref ℓ²`, `ℓ² = ½ tr(I_O,ref)/m_ref`). The weight is
//! the maximum a posteriori one: `σ̂²` the variance of the equations' error (the IDIM-OLS
//! residual, degrees of freedom counted), `ρ` the prior's stated relative standard deviation
//! ([`PRIOR_STD`]). The prior thus weighs on a direction the data see only as much as the
//! data's own misfit allows: on exact data (`σ̂ → 0`) every direction the data determine is the
//! data's, exactly, and the prior only fills the others (the solve is in deviations from the
//! prior, so that the limit is well posed: the data's null space is completed by the
//! `S`-nearest point to the prior). Until issue 49 the weight was `10⁻⁷ ‖τ‖²` whatever the
//! data's noise: it pulled the data-determined base parameters of a clean UR10 run by 0.2 %.
//!
//! A standard parameter is reported (its `value` in the estimates) only where the data determine
//! it alone (its direction lies in the row space of the data's equations): most are set by the
//! prior in combinations the data cannot split, and the identified model (URDF) carries them all.
//!
//! * [`Constraint::None`] (`idim_prior`): the linear least-squares solution; it may be
//!   physically inconsistent, which [`sim::physical::check`] reports.
//! * [`Constraint::Consistent`] (`idim_consistent`): every link a real body (pseudo-inertia
//!   positive semidefinite, Wensing et al. 2017), and every real drive's Coulomb level, viscous
//!   coefficient and rotor inertia non-negative (a term the solution makes negative is held at
//!   0 and the rest solved again, [`StandardIdim`]'s `solve`). Where the unconstrained solution is real, it
//!   is the answer; else the convex problem is solved to its optimum, on the boundary of the
//!   consistent set, by ADMM with a projection onto that set (`estimate::idim::projected`; no SDP
//!   solver, whose cones in the pure-Rust `clarabel` need BLAS/LAPACK). Until issue 49 it was
//!   Levenberg–Marquardt over each link's log-Cholesky parameters ([`super::log_cholesky`],
//!   Rucker & Wensing 2022), which reaches the boundary only at infinity: it stopped on its
//!   patience, 16 600 evaluations, a few 1e-6 of the objective short (base error of the
//!   industrial short-noisy case 0.723 % then, 0.725 % at the optimum; the UR10 replay test
//!   56 s then, 0.7 s now). It stays as the fallback where ADMM does not converge.
//!
//! The tall system is first compressed by a QR factorization (`‖A x − b‖² = ‖R x − Qᵀb‖² +
//! const`), so each iteration costs only the unknowns, not the samples.

use std::path::PathBuf;

use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Matrix3};
use nalgebra034 as na;
use sim::dynamics::StandardParameters;
use sim::model::Chain;

use super::base::FullRegressor;
use super::{Estimates, Identifier, Prepared, log_cholesky};
use crate::estimate::{EstimateError, NotApplicable};
use crate::lsq::least_squares;

/// Whether the estimate is constrained to real bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// Unconstrained linear least squares with the prior (`idim_prior`).
    None,
    /// Physically consistent links through the log-Cholesky parametrization
    /// (`idim_consistent`).
    Consistent,
}

/// Standard-parameter IDIM with a prior (module docs).
#[derive(Clone, Debug)]
pub struct StandardIdim {
    /// Constrained or not.
    pub constraint: Constraint,
    /// The prior model (URDF), `None`: the identifier does not apply.
    pub prior: Option<PathBuf>,
    /// The prior's relative standard deviation `ρ` (`λ = σ̂² / ρ²`, module docs).
    pub prior_std: f64,
    /// Equations of joints slower than this (rad/s) are dropped (as in IDIM).
    pub min_speed: f64,
}

/// The prior's stated relative standard deviation `ρ` (dimensionless, in the units of `S`): a
/// weakly informative prior, a CAD model's masses, first and second moments uncertain by the
/// link's own scale (cables, motors and covers the model leaves out). With `ρ = 0.3` the
/// prior pulled the TX40 recording's holdout NRMS of `idim_consistent` from 19.71 % to 19.87 %
/// (its misfit is model error more than noise, which the MAP weight reads as noise).
pub const PRIOR_STD: f64 = 1.0;

impl StandardIdim {
    /// The identifier with the default prior ([`PRIOR_STD`]).
    pub fn new(constraint: Constraint, prior: Option<PathBuf>) -> Self {
        StandardIdim {
            constraint,
            prior,
            prior_std: PRIOR_STD,
            min_speed: super::MIN_SPEED,
        }
    }

    fn error(&self, message: String) -> EstimateError {
        EstimateError {
            estimator: self.name().into(),
            message,
        }
    }

    /// `Err` without a prior model.
    pub fn available(&self) -> Result<(), NotApplicable> {
        match self.prior {
            Some(_) => Ok(()),
            None => Err(NotApplicable::new(
                "needs a prior model: `--prior FILE.urdf` (e.g. the CAD model)",
            )),
        }
    }

    /// The prior's standard parameters in the link frames of `geometry`.
    fn prior_parameters(&self, geometry: &Chain) -> Result<Vec<StandardParameters>, EstimateError> {
        let path = self
            .prior
            .as_ref()
            .ok_or_else(|| self.error("needs a prior model (a URDF file)".into()))?;
        let prior = sim::description::read(path).map_err(|e| self.error(e.to_string()))?;
        in_frames_of(&prior, geometry).map_err(|m| self.error(format!("{}: {m}", path.display())))
    }
}

/// The bodies of `prior` as standard parameters in the link frames of `geometry`, which must
/// have the same joints.
pub(crate) fn in_frames_of(
    prior: &Chain,
    geometry: &Chain,
) -> crate::Result<Vec<StandardParameters>> {
    if prior.len() != geometry.len() || prior.base != geometry.base {
        return Err(crate::Error::invalid(
            format!(
                "the prior `{}` ({} links on {:?})",
                prior.name,
                prior.len(),
                prior.base
            ),
            format!(
                "the run's arm: {} links on {:?}",
                geometry.len(),
                geometry.base
            ),
        ));
    }
    prior
        .links
        .iter()
        .zip(&geometry.links)
        .map(|(p, g)| {
            let same = p.joint.kind == g.joint.kind
                && (p.joint.axis().into_inner() - g.joint.axis().into_inner()).norm() < 1e-9
                && (p.joint.anchor() - g.joint.anchor()).norm() < 1e-9;
            if !same {
                return Err(crate::Error::invalid(
                    format!("the prior's joint of link `{}`", p.name),
                    "the run's joint (kind, axis and anchor within 1e-9)",
                ));
            }
            let r = g.body.rotation();
            let c = r.inverse() * (p.body.centroid() - g.joint.anchor());
            let rp = r.inverse() * p.body.rotation();
            let i_c: Matrix3<f64> = rp * p.body.inertia_body() * rp.inverse();
            Ok(StandardParameters::from_central(p.body.mass, &c, &i_c))
        })
        .collect()
}

/// The compressed problem: `‖R x − d‖² + λ‖S(π − π_ref)‖²`, `x = (π, c)` with `π` entering
/// through the base map `B`.
struct Compressed {
    /// `R · [B 0; 0 𝟙]`: rows = unknowns of the base system, columns = `(π, c)`.
    data: DMatrix<f64>,
    d: DVector<f64>,
    /// `S` (diagonal, one entry per standard parameter).
    scale: DVector<f64>,
    /// `λ` (module docs).
    lambda: f64,
    prior: DVector<f64>,
}

impl Compressed {
    fn new(
        a: &DMatrix<f64>,
        b: &DVector<f64>,
        full: &FullRegressor,
        prior: &[StandardParameters],
        prior_std: f64,
    ) -> Self {
        let qr = a.clone().qr();
        let r = qr.r();
        let d = qr.q().transpose() * b;
        let base = &full.base;
        let (nb, np) = (base.len(), 10 * prior.len());
        let nf = a.ncols() - nb;
        // B: β = π_independent + K π_dependent.
        let mut map = DMatrix::zeros(nb + nf, np + nf);
        for (row, &i) in base.independent.iter().enumerate() {
            map[(row, i)] = 1.0;
            for (col, &j) in base.dependent.iter().enumerate() {
                map[(row, j)] += base.k[(row, col)];
            }
        }
        for f in 0..nf {
            map[(nb + f, np + f)] = 1.0;
        }
        let scale = DVector::from_iterator(
            np,
            prior.iter().flat_map(|p| {
                let (m, l) = link_scale(p);
                let s = [1.0 / m, 1.0 / (m * l), 1.0 / (m * l * l)];
                [0, 1, 1, 1, 2, 2, 2, 2, 2, 2].map(|k| s[k])
            }),
        );
        Compressed {
            lambda: residual_variance(a, b, &r, &d) / prior_std.powi(2),
            data: r * map,
            d,
            scale,
            prior: DVector::from_iterator(np, prior.iter().flat_map(|p| p.0)),
        }
    }

    fn unknowns(&self) -> usize {
        self.data.ncols()
    }

    /// `½‖R x − d‖² + ½λ‖S(π − π_ref)‖²` at `x = (π, c)`.
    #[cfg(test)]
    fn objective(&self, x: &DVector<f64>) -> f64 {
        let np = self.prior.len();
        let data = (&self.data * x - &self.d).norm_squared();
        let prior: f64 = (0..np)
            .map(|i| (self.prior_scale(i) * (x[i] - self.prior[i])).powi(2))
            .sum();
        0.5 * (data + prior)
    }

    /// The constrained problem for [`super::projected`], with each link's scale `(m, ℓ)`.
    fn projected<'a>(&'a self, prior: &[StandardParameters]) -> super::projected::Problem<'a> {
        super::projected::Problem {
            data: &self.data,
            d: &self.d,
            weights: DVector::from_fn(self.prior.len(), |i, _| self.prior_scale(i)),
            prior: &self.prior,
            scales: (prior.iter()).map(link_scale).collect(),
        }
    }

    /// `√λ S`, per standard parameter.
    fn prior_scale(&self, i: usize) -> f64 {
        self.lambda.sqrt() * self.scale[i]
    }

    /// The column scales of the deviations `(π − π_ref, c)`: `S` on `π`, each friction
    /// column's norm on `c` (no prior there).
    fn column_scales(&self) -> DVector<f64> {
        let np = self.prior.len();
        DVector::from_fn(self.unknowns(), |c, _| {
            if c < np {
                self.scale[c]
            } else {
                self.data.column(c).norm().max(f64::MIN_POSITIVE)
            }
        })
    }

    /// The unconstrained minimizer `(π, c)`, solved for the scaled deviations
    /// `z = W (x − x_ref)` (`W` [`Compressed::column_scales`], `x_ref = (π_ref, 0)`): the
    /// minimum-norm least-squares solution of `[R B W⁻¹; √λ 𝟙 0] z = [d − R B x_ref; 0]`. Where
    /// `λ` is negligible (exact data), the directions the data do not see are those of least
    /// `‖S(π − π_ref)‖`: the prior's.
    fn linear(&self) -> DVector<f64> {
        let (m, n, np) = (self.data.nrows(), self.unknowns(), self.prior.len());
        let w = self.column_scales();
        let mut reference = DVector::zeros(n);
        reference.rows_mut(0, np).copy_from(&self.prior);
        let mut a = DMatrix::zeros(m + np, n);
        a.rows_mut(0, m).copy_from(&self.data);
        for c in 0..n {
            a.column_mut(c).scale_mut(1.0 / w[c]);
        }
        let mut b = DVector::zeros(m + np);
        b.rows_mut(0, m)
            .copy_from(&(&self.d - &self.data * &reference));
        for i in 0..np {
            a[(m + i, i)] = self.lambda.sqrt();
        }
        let z = least_squares(&a, &b);
        reference + z.component_div(&w)
    }

    /// Per link, which standard parameters the data determine alone: those whose unit
    /// direction (in `S` units) lies in the row space of the data's `π` columns (singular
    /// values above `10⁻⁹` of the largest), to `10⁻⁶`.
    fn determined(&self) -> Vec<[bool; 10]> {
        let np = self.prior.len();
        let mut m = self.data.columns(0, np).into_owned();
        for c in 0..np {
            m.column_mut(c).scale_mut(1.0 / self.scale[c]);
        }
        let alone = crate::lsq::determined(&m, 1e-9, 1e-6);
        (alone.chunks(10))
            .map(|link| std::array::from_fn(|i| link[i]))
            .collect()
    }
}

/// A prior link's scale: its mass `m` (kg) and length `ℓ` (m), `ℓ² = ½ tr(I_O)/m` (module docs).
fn link_scale(p: &StandardParameters) -> (f64, f64) {
    let m = p.mass();
    (m, (0.5 * p.inertia().trace() / m).sqrt())
}

/// The variance of the equations' error: the residual of the least-squares solution of
/// `A x = b` (compressed as `R x = d`), over the rows less the unknowns.
fn residual_variance(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    r: &DMatrix<f64>,
    d: &DVector<f64>,
) -> f64 {
    let x = least_squares(r, d);
    let dof = a.nrows().saturating_sub(a.ncols()).max(1);
    (a * x - b).norm_squared() / dof as f64
}

/// Levenberg–Marquardt over `(θ_1..θ_n, c)`.
struct Problem<'a> {
    system: &'a Compressed,
    links: usize,
    x: na::DVector<f64>,
}

impl Problem<'_> {
    fn theta(&self, k: usize) -> [f64; 10] {
        std::array::from_fn(|i| self.x[10 * k + i])
    }

    /// `(π, c)` of the current parameters.
    fn standard(&self) -> DVector<f64> {
        let mut out = DVector::from_iterator(self.x.len(), self.x.iter().copied());
        for k in 0..self.links {
            let p = log_cholesky::standard(&self.theta(k));
            out.rows_mut(10 * k, 10).copy_from_slice(&p.0);
        }
        out
    }
}

impl LeastSquaresProblem<f64, na::Dyn, na::Dyn> for Problem<'_> {
    type ResidualStorage = na::VecStorage<f64, na::Dyn, na::U1>;
    type JacobianStorage = na::VecStorage<f64, na::Dyn, na::Dyn>;
    type ParameterStorage = na::VecStorage<f64, na::Dyn, na::U1>;

    fn set_params(&mut self, x: &na::DVector<f64>) {
        self.x.copy_from(x);
    }

    fn params(&self) -> na::DVector<f64> {
        self.x.clone()
    }

    fn residuals(&self) -> Option<na::DVector<f64>> {
        let s = self.system;
        let x = self.standard();
        let data = &s.data * &x - &s.d;
        let np = s.prior.len();
        let prior = (0..np).map(|i| s.prior_scale(i) * (x[i] - s.prior[i]));
        Some(na::DVector::from_iterator(
            data.len() + np,
            data.iter().copied().chain(prior),
        ))
    }

    fn jacobian(&self) -> Option<na::DMatrix<f64>> {
        let s = self.system;
        let (m, n, np) = (s.data.nrows(), s.unknowns(), s.prior.len());
        // ∂(π, c)/∂(θ, c): block diagonal log-Cholesky Jacobians, identity on c.
        let mut dx = DMatrix::identity(n, n);
        for k in 0..self.links {
            let jk = log_cholesky::jacobian(&self.theta(k));
            dx.view_mut((10 * k, 10 * k), (10, 10)).copy_from(&jk);
        }
        let top = &s.data * &dx;
        let mut j = na::DMatrix::zeros(m + np, n);
        for r in 0..m {
            for c in 0..n {
                j[(r, c)] = top[(r, c)];
            }
        }
        for i in 0..np {
            for c in 0..np {
                j[(m + i, c)] = s.prior_scale(i) * dx[(i, c)];
            }
        }
        Some(j)
    }
}

impl StandardIdim {
    /// The method's name, the `method` column of reports.
    pub fn name(&self) -> &'static str {
        match self.constraint {
            Constraint::None => crate::estimate::EstimatorId::IdimPrior.name(),
            Constraint::Consistent => crate::estimate::EstimatorId::IdimConsistent.name(),
        }
    }

    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let prior = self.prior_parameters(experiment.geometry())?;
        let samples =
            super::periodic_samples(experiment.excitation, experiment.derivatives, self.name())?;
        let full = FullRegressor::of_experiment(experiment)?;
        let (a, b, _) = full.system(&samples, self.min_speed, experiment.filter);
        if a.nrows() < 2 * a.ncols() {
            return Err(self.error(format!(
                "{} equations for {} unknowns",
                a.nrows(),
                a.ncols()
            )));
        }
        let (x, system) = self.solve(&a, &b, &full, &prior)?;
        let np = 10 * prior.len();
        let standard: Vec<StandardParameters> = (0..prior.len())
            .map(|k| StandardParameters(std::array::from_fn(|i| x[10 * k + i])))
            .collect();
        // The base parameters and friction of x: the IDIM torque model.
        let pi = x.rows(0, np).into_owned();
        let mut xb = DVector::zeros(full.len());
        xb.rows_mut(0, full.base.len())
            .copy_from(&full.base.map(&pi));
        let nf = full.len() - full.base.len();
        xb.rows_mut(full.base.len(), nf).copy_from(&x.rows(np, nf));
        let mut out = Estimates::identified(full.parameters(&xb), Box::new(full.model(&xb)));
        // Only what the data determine is an estimate; the prior's completion is in the model.
        let determined = system.determined();
        for (b, p) in standard.iter().enumerate() {
            let d = determined.get(b).copied().unwrap_or([true; 10]);
            let x = std::array::from_fn(|i| d[i].then_some(p.0[i]));
            out.values
                .extend(crate::estimate::standard_values((b + 1) as u8, &x));
        }
        out.model = experiment
            .geometry()
            .with_standard_parameters(&standard)
            .ok();
        out.standard = Some(standard);
        Ok(out)
    }
}

impl StandardIdim {
    /// `(π, c)` and the compressed system it was last solved on. For `idim_consistent` the
    /// drives too are held to what real drives can be (non-negative Coulomb level, viscous
    /// coefficient and rotor inertia): a term the solution makes negative is fixed at 0 (its
    /// column left out) and the problem solved again, until none is (an active set that only
    /// grows: at most one solve per drive term, and one where the data give real drives).
    fn solve(
        &self,
        a: &DMatrix<f64>,
        b: &DVector<f64>,
        full: &FullRegressor,
        prior: &[StandardParameters],
    ) -> Result<(DVector<f64>, Compressed), EstimateError> {
        let (np, nb) = (10 * prior.len(), full.base.len());
        let bounded = nonnegative(full);
        let mut fixed: Vec<usize> = Vec::new();
        loop {
            let kept: Vec<usize> = (0..a.ncols())
                .filter(|&c| c < nb || !fixed.contains(&(c - nb)))
                .collect();
            let a_kept = a.select_columns(&kept);
            let system = Compressed::new(&a_kept, b, full, prior, self.prior_std);
            let x_kept = match self.constraint {
                Constraint::None => system.linear(),
                Constraint::Consistent => self.consistent(&system, prior)?,
            };
            // Back to every column, the fixed terms 0.
            let mut x = DVector::zeros(np + a.ncols() - nb);
            x.rows_mut(0, np).copy_from(&x_kept.rows(0, np));
            for (k, &c) in kept[nb..].iter().enumerate() {
                x[np + c - nb] = x_kept[np + k];
            }
            let negative: Vec<usize> = (bounded.iter().copied())
                .filter(|f| x[np + f] < 0.0 && !fixed.contains(f))
                .collect();
            if self.constraint == Constraint::None || negative.is_empty() {
                return Ok((x, system));
            }
            fixed.extend(negative);
        }
    }

    fn consistent(
        &self,
        system: &Compressed,
        prior: &[StandardParameters],
    ) -> Result<DVector<f64>, EstimateError> {
        // Where the unconstrained minimizer is a real body on every link, it is the constrained
        // one too (the constraint is not active).
        let linear = system.linear();
        let links = |x: &DVector<f64>| {
            (0..prior.len()).all(|k| {
                let p = StandardParameters(std::array::from_fn(|i| x[10 * k + i]));
                sim::physical::check(&p).is_ok()
            })
        };
        if links(&linear) {
            return Ok(linear);
        }
        // Else the constrained minimizer, on the boundary of the consistent set where a link
        // leaves it ([`super::projected`]); Levenberg–Marquardt over the log-Cholesky parameters
        // where that solver does not converge.
        if let Some(x) = system.projected(prior).minimize().filter(|x| links(x)) {
            return Ok(x);
        }
        self.log_cholesky(system, prior, &linear)
    }

    /// Levenberg–Marquardt over the links' log-Cholesky parameters from the prior (friction
    /// from `linear`): consistent at every step, it approaches the boundary only slowly.
    fn log_cholesky(
        &self,
        system: &Compressed,
        prior: &[StandardParameters],
        linear: &DVector<f64>,
    ) -> Result<DVector<f64>, EstimateError> {
        let n = system.unknowns();
        let mut x0 = na::DVector::zeros(n);
        for (k, p) in prior.iter().enumerate() {
            let theta = log_cholesky::from_standard(p)
                .or_else(|| log_cholesky::from_standard(&inside(p)))
                .ok_or_else(|| {
                    self.error(format!(
                        "the prior's link {} is not physically consistent ({:?})",
                        k + 1,
                        sim::physical::check(p).err()
                    ))
                })?;
            for (i, t) in theta.iter().enumerate() {
                x0[10 * k + i] = *t;
            }
        }
        // Friction coefficients start from the unconstrained solution.
        for i in 10 * prior.len()..n {
            x0[i] = linear[i];
        }
        let (problem, report) = LevenbergMarquardt::new()
            .with_xtol(1e-14)
            .with_ftol(1e-14)
            .with_patience(200)
            .minimize(Problem {
                system,
                links: prior.len(),
                x: x0,
            });
        if !report.objective_function.is_finite() {
            return Err(self.error(format!(
                "Levenberg–Marquardt failed: {:?}",
                report.termination
            )));
        }
        Ok(problem.standard())
    }
}

/// A prior on the boundary of consistency (a point mass: its pseudo-inertia is singular, which
/// the log-Cholesky map cannot start from) moved just inside: `Σ_O + δ 1`, i.e. the inertia
/// tensor plus `2δ` on its diagonal, with `δ` 1e-6 of the body's second moment (at least that of
/// its mass at 1 mm). Only the solver's starting point moves; the prior the estimate is drawn to
/// is the one given.
fn inside(p: &StandardParameters) -> StandardParameters {
    let second_moment = 0.5 * p.inertia().trace();
    let delta = 1e-6 * second_moment.max(p.mass() * 1e-6);
    let mut q = *p;
    for i in [4, 7, 9] {
        q.0[i] += 2.0 * delta;
    }
    q
}

/// `idim_consistent`: physically consistent standard-parameter IDIM with a prior
/// ([`StandardIdim`] with [`Constraint::Consistent`]).
#[derive(Clone, Debug)]
pub struct IdimConsistent(StandardIdim);

impl IdimConsistent {
    /// The identifier with the prior model at `prior` (a URDF), if any.
    pub fn new(prior: Option<PathBuf>) -> Self {
        IdimConsistent(StandardIdim::new(Constraint::Consistent, prior))
    }
}

impl Identifier for IdimConsistent {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::IdimConsistent.name()
    }

    fn needs(&self) -> &'static str {
        "an excitation run with joint angles and torques, and a prior model (--prior URDF)"
    }

    fn available(&self) -> Result<(), NotApplicable> {
        self.0.available()
    }

    fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        self.0.identify(experiment)
    }
}

/// Indices, among `full`'s friction columns, of the real drives' terms that cannot be negative:
/// Coulomb level, viscous coefficient, rotor inertia (the paper's friction coefficients and the
/// reading's offset may be).
fn nonnegative(full: &FullRegressor) -> Vec<usize> {
    let mut out = Vec::new();
    let mut col = 0;
    for f in full.friction.iter().flatten() {
        if !matches!(f, super::base::FrictionColumns::Paper(_)) {
            for (i, name) in f.names().iter().enumerate() {
                if ["coulomb", "viscous", "armature"].contains(name) {
                    out.push(col + i);
                }
            }
        }
        col += f.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};
    use sim::physical::check;

    /// arm6's standard parameters and the IDIM system of `states` with torque noise `sigma`.
    fn noisy_system(
        states: usize,
        sigma: f64,
        seed: u64,
    ) -> (FullRegressor, DMatrix<f64>, DVector<f64>) {
        let arm = sim::model::reference::arm6();
        let full = FullRegressor::new(&arm.kinematics_only(), vec![None; arm.joint_ids().len()]);
        let pi = crate::regressor::standard_vector(&arm);
        let beta = full.base.map(&pi);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let noise = Normal::new(0.0, sigma).unwrap();
        let rows: Vec<DMatrix<f64>> = crate::regressor::random_states(&arm, states, seed)
            .iter()
            .map(|[q, qd, qdd]| full.rows(q, qd, qdd))
            .collect();
        let nj = rows[0].nrows();
        let a = DMatrix::from_fn(nj * states, full.len(), |r, c| rows[r / nj][(r % nj, c)]);
        let b = &a * &beta + DVector::from_fn(a.nrows(), |_, _| noise.sample(&mut rng));
        (full, a, b)
    }

    #[test]
    fn the_constrained_estimate_is_consistent_where_the_unconstrained_is_not() {
        let arm = sim::model::reference::arm6();
        // The prior: the true bodies with the masses 30 % high and the moments 30 % low.
        let mut prior_arm = arm.clone();
        for l in &mut prior_arm.links {
            l.body.mass *= 1.3;
            l.body.inertia = l.body.inertia.map(|j| 0.7 * j);
        }
        let prior = in_frames_of(&prior_arm, &arm.kinematics_only()).unwrap();
        let (full, a, b) = noisy_system(12, 20.0, 3);
        let system = Compressed::new(&a, &b, &full, &prior, PRIOR_STD);
        let id = StandardIdim::new(Constraint::Consistent, None);
        let linear = system.linear();
        let constrained = id.consistent(&system, &prior).unwrap();
        let links = |x: &DVector<f64>| -> Vec<StandardParameters> {
            (0..prior.len())
                .map(|k| StandardParameters(std::array::from_fn(|i| x[10 * k + i])))
                .collect()
        };
        let bad = links(&linear).iter().filter(|p| check(p).is_err()).count();
        assert!(
            bad > 0,
            "the unconstrained estimate should be inconsistent here"
        );
        for (k, p) in links(&constrained).iter().enumerate() {
            assert!(check(p).is_ok(), "link {}: {:?}", k + 1, check(p));
        }
        // The constraint costs fit: the constrained residual is not below the linear one.
        let cost = |x: &DVector<f64>| system.objective(x);
        assert!(cost(&constrained) >= cost(&linear) * (1.0 - 1e-9));
        // The boundary point is the minimum over the consistent set, a convex set: no point on
        // the segment to another consistent solution (Levenberg–Marquardt's over the
        // log-Cholesky parameters, the prior) is lower, and it is below Levenberg–Marquardt's.
        let lm = id.log_cholesky(&system, &prior, &linear).unwrap();
        let mut prior_x = linear.clone();
        prior_x
            .rows_mut(0, system.prior.len())
            .copy_from(&system.prior);
        assert!(
            cost(&constrained) <= cost(&lm) * (1.0 + 1e-12),
            "{} vs LM {}",
            cost(&constrained),
            cost(&lm)
        );
        for other in [&lm, &prior_x] {
            for t in [1e-4, 1e-3, 1e-2, 0.1, 0.5] {
                let between = &constrained + (other - &constrained) * t;
                assert!(
                    cost(&between) >= cost(&constrained) * (1.0 - 1e-12),
                    "t = {t}: {} below {}",
                    cost(&between),
                    cost(&constrained)
                );
            }
        }
    }
}
