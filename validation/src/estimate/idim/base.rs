//! IDIM: inverse-dynamics identification on the base regressor with friction columns, by
//! ordinary (OLS), weighted (WLS), total (TLS) or robustly reweighted (IRLS, [`super::robust`])
//! least squares; IDIM-IV and DIDIM ([`super::iv`], [`super::didim`]) start from its system.
//!
//! Every sample of the excitation run gives one equation per joint,
//! `τ_j = Y_b,j(q, q̇, q̈) β + φ_j(q_j, q̇_j)ᵀ c_j`, with `Y_b` the base columns of the standard
//! regressor ([`crate::regressor`]) and `φ_j` the ten linear terms of the paper's
//! friction model (eq. 15) at the transition velocity and gear ratio found by the sweep
//! analysis ([`super::friction_sweep`]). Equations of a joint moving slower than
//! [`Idim::min_speed`] are dropped: near zero velocity the friction is set by the sign's
//! smoothing, which no model of the data can know (the usual practice in IDIM).
//!
//! WLS weights each joint's equations by `1/σ_j`, `σ_j` the RMS of that joint's OLS residual
//! (Gautier's two-pass scheme). TLS takes the right singular vector of the smallest singular
//! value of `[W | τ]`, columns scaled to unit norm first; it allows for noise in the
//! regressor (from `q̇, q̈`) as well as in `τ`, assuming equal variance after scaling.

use nalgebra::{DMatrix, DVector};
use sim::friction::PAPER_COEFFICIENTS;
use sim::model::Chain;

use super::friction_gravity::JointFriction;
use super::{Estimates, Prepared, Samples, TorqueModel};
use crate::estimate::EstimateError;
use crate::lsq::{CONDITION_LIMIT, least_squares, total_least_squares};
use crate::param::{FrictionTerm, ParamId};
use crate::regressor::{BaseParameters, regressor};

/// How the overdetermined system is solved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weighting {
    /// Ordinary least squares.
    Ordinary,
    /// Per-joint weights from the OLS residuals.
    Weighted,
    /// Total least squares on column-scaled data.
    Total,
    /// Iteratively reweighted least squares with Huber's weights ([`super::robust`]).
    Robust,
}

/// The IDIM identifier.
#[derive(Clone, Debug)]
pub struct Idim {
    /// Solution method.
    pub weighting: Weighting,
    /// Equations of joints slower than this (rad/s) are dropped.
    pub min_speed: f64,
}

impl Idim {
    /// IDIM-OLS.
    pub fn ols() -> Self {
        Idim {
            weighting: Weighting::Ordinary,
            min_speed: super::MIN_SPEED,
        }
    }

    /// IDIM-WLS.
    pub fn wls() -> Self {
        Idim {
            weighting: Weighting::Weighted,
            ..Self::ols()
        }
    }

    /// IDIM-IRLS: Huber's robust weights ([`super::robust::Huber`]).
    pub fn irls() -> Self {
        Idim {
            weighting: Weighting::Robust,
            ..Self::ols()
        }
    }

    /// IDIM-TLS.
    pub fn tls() -> Self {
        Idim {
            weighting: Weighting::Total,
            ..Self::ols()
        }
    }
}

/// The friction columns of one joint in the IDIM regressor.
#[derive(Clone, Debug)]
pub enum FrictionColumns {
    /// The teaching paper's eq. 15 at the shape (`R`, `v_t`) the sweep analysis found: ten
    /// columns ([`PAPER_COEFFICIENTS`]).
    Paper(JointFriction),
    /// The usual IDIM friction `F_c sgn(q̇) + F_v q̇` (Gautier): two columns, `coulomb` and
    /// `viscous`, for experiments without friction sweeps.
    CoulombViscous,
    /// A real drive (recorded runs): [`FrictionColumns::CoulombViscous`] (its sign 0 at rest,
    /// `moving_sign`), a constant `offset`
    /// (current-sensor offset, cables) and, where the data can tell it from the link inertias,
    /// the rotor's reflected inertia `armature · q̈` (Gautier's `Ia`; FIGAROH writes the same
    /// terms). Where the armature column is a combination of the base columns (a first joint,
    /// whose own inertia enters only through `q̈₁`) it is left out: it is then part of that base
    /// parameter ([`separable_armature`]).
    RealDrive {
        /// Whether the joint has its own armature column.
        armature: bool,
    },
}

impl FrictionColumns {
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.names().len()
    }

    /// Whether there is none (never).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The coefficients' names (as in [`PAPER_COEFFICIENTS`]).
    pub fn names(&self) -> &'static [&'static str] {
        match self {
            FrictionColumns::Paper(_) => &PAPER_COEFFICIENTS,
            FrictionColumns::CoulombViscous => &["coulomb", "viscous"],
            FrictionColumns::RealDrive { armature: false } => &["coulomb", "viscous", "offset"],
            FrictionColumns::RealDrive { armature: true } => {
                &["coulomb", "viscous", "offset", "armature"]
            }
        }
    }

    /// The columns' values at `(q, q̇, q̈)`.
    pub(crate) fn basis(&self, q: f64, qd: f64, qdd: f64) -> Vec<f64> {
        match self {
            FrictionColumns::Paper(f) => f.basis(q, qd).to_vec(),
            FrictionColumns::CoulombViscous => vec![qd.signum(), qd],
            FrictionColumns::RealDrive { armature: false } => vec![moving_sign(qd), qd, 1.0],
            FrictionColumns::RealDrive { armature: true } => {
                vec![moving_sign(qd), qd, 1.0, qdd]
            }
        }
    }
}

/// The full regressor `[Y_b | Φ_f]`: base parameters, then the friction columns of each joint
/// with a friction model.
#[derive(Clone, Debug)]
pub struct FullRegressor {
    geometry: Chain,
    /// The base of the standard parameters.
    pub base: BaseParameters,
    /// Friction columns per dataset joint.
    pub friction: Vec<Option<FrictionColumns>>,
    /// A transmission that couples the drives ([`Coupling`]), for [`FrictionColumns::RealDrive`].
    pub coupling: Option<Coupling>,
}

/// Drives coupled by a transmission `θm = R q` (a wrist whose motor 6 turns with joints 5 and
/// 6). Drive `m`'s friction and rotor inertia act on its motor, whose speed in joint units is
/// `v_m = Σ_j R̃[m, j] q̇_j` with `R̃[m, ·] = R[m, ·] / R[m, m]`, and reach the joints through
/// `τ = Rᵀ τ_m`: joint `j` sees `R̃[m, j]` times the drive's torque (power balance). Its
/// Coulomb, viscous and armature columns are `sgn(v_m)`, `v_m`, `a_m` spread so, each
/// coefficient in the units of joint `m` (for a diagonal `R`, the usual per-joint columns);
/// offsets stay per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Coupling {
    /// `R̃` (drives × joints), unit diagonal.
    pub normalized: DMatrix<f64>,
}

impl Coupling {
    /// The coupling of the transmission `r` (drives × joints, non-zero diagonal).
    pub fn of(r: &DMatrix<f64>) -> Self {
        let mut normalized = r.clone();
        for m in 0..r.nrows() {
            let d = r[(m, m)];
            normalized.row_mut(m).scale_mut(1.0 / d);
        }
        Coupling { normalized }
    }

    /// Drive `m`'s `(R̃ x)_m`.
    fn drive(&self, m: usize, x: &[f64]) -> f64 {
        (0..x.len()).map(|j| self.normalized[(m, j)] * x[j]).sum()
    }
}

impl FullRegressor {
    /// Base from the kinematics, friction shapes from the sweep analysis.
    pub fn new(geometry: &Chain, friction: Vec<Option<JointFriction>>) -> Self {
        Self::with_columns(
            geometry,
            friction
                .into_iter()
                .map(|f| f.map(FrictionColumns::Paper))
                .collect(),
        )
    }

    /// Base from the kinematics and the given friction columns.
    pub fn with_columns(geometry: &Chain, friction: Vec<Option<FrictionColumns>>) -> Self {
        FullRegressor {
            geometry: geometry.clone(),
            base: BaseParameters::of_chain(geometry),
            friction,
            coupling: None,
        }
    }

    /// The regressor of an experiment: the sweep analysis's friction shapes where the
    /// experiment has sweeps, else Coulomb + viscous columns on every joint.
    pub(crate) fn of_experiment(experiment: &Prepared) -> Result<Self, EstimateError> {
        if experiment.sweeps.is_empty() {
            let nj = experiment.geometry().joint_ids().len();
            let stated = &experiment.excitation.stated;
            if !stated.real_drives {
                let columns = vec![Some(FrictionColumns::CoulombViscous); nj];
                return Ok(Self::with_columns(experiment.geometry(), columns));
            }
            let coupling = stated.transmission.as_ref().map(Coupling::of);
            let base = BaseParameters::of_chain(experiment.geometry());
            let separable = separable_armature(experiment.geometry(), &base, coupling.as_ref());
            let columns = (separable.into_iter())
                .map(|armature| Some(FrictionColumns::RealDrive { armature }))
                .collect();
            return Ok(FullRegressor {
                coupling,
                ..Self::with_columns(experiment.geometry(), columns)
            });
        }
        let fg = super::friction_sweep::analysis(experiment)?;
        Ok(Self::new(experiment.geometry(), fg.friction.clone()))
    }

    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.base.len()
            + self
                .friction
                .iter()
                .flatten()
                .map(|f| f.len())
                .sum::<usize>()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows (one per joint) at a state.
    pub fn rows(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> DMatrix<f64> {
        let yb = self.base.regressor(&regressor(
            &self.geometry,
            q,
            qd,
            qdd,
            &self.geometry.gravity_vector(),
        ));
        let mut w = DMatrix::zeros(q.len(), self.len());
        w.columns_mut(0, self.base.len()).copy_from(&yb);
        self.friction_rows(q, qd, qdd, &mut w);
        w
    }

    /// The friction (and drive) torques `Φ_f(q, q̇, q̈) c` of a parameter vector `x = (β, c…)`,
    /// per joint: the part of the model that is not the rigid body's.
    pub(crate) fn friction_torque(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        x: &DVector<f64>,
    ) -> DVector<f64> {
        let mut w = DMatrix::zeros(q.len(), self.len());
        self.friction_rows(q, qd, qdd, &mut w);
        w * x
    }

    /// Writes the friction columns of the rows at a state into `w` (after the base columns).
    fn friction_rows(&self, q: &[f64], qd: &[f64], qdd: &[f64], w: &mut DMatrix<f64>) {
        let mut col = self.base.len();
        for (j, f) in self.friction.iter().enumerate() {
            if let Some(f) = f {
                match (&self.coupling, f) {
                    (Some(c), FrictionColumns::RealDrive { .. }) => {
                        let (v, a) = (c.drive(j, qd), c.drive(j, qdd));
                        for (k, b) in f.basis(0.0, v, a).iter().enumerate() {
                            if f.names()[k] == "offset" {
                                w[(j, col + k)] = *b;
                                continue;
                            }
                            for i in 0..q.len() {
                                w[(i, col + k)] = c.normalized[(j, i)] * b;
                            }
                        }
                    }
                    _ => {
                        for (i, b) in f.basis(q[j], qd[j], qdd[j]).iter().enumerate() {
                            w[(j, col + i)] = *b;
                        }
                    }
                }
                col += f.len();
            }
        }
    }

    /// The standard parameters (one set per link, link frames) that realize the base
    /// parameters of `x`: `π_independent = β`, `π_dependent = 0`, so that
    /// `Y(q, q̇, q̈) π = Y_b(q, q̇, q̈) β` at every state. Not a physical body (masses and
    /// inertias of the realization may be negative): the inverse dynamics is linear in the
    /// parameters and holds for any, which is all the simulated loop of
    /// [`super::closed_loop`] needs.
    pub fn realization(&self, x: &DVector<f64>) -> Vec<sim::dynamics::StandardParameters> {
        let mut pi = vec![sim::dynamics::StandardParameters([0.0; 10]); self.geometry.len()];
        for (k, &i) in self.base.independent.iter().enumerate() {
            pi[i / 10].0[i % 10] = x[k];
        }
        pi
    }

    /// The arm's kinematics.
    pub fn geometry(&self) -> &Chain {
        &self.geometry
    }

    /// The stacked system over samples, optionally parallel-filtered to harmonics `0..=H`
    /// ([`super::Prepared::filter`]), then dropping equations of joints slower than
    /// `min_speed`; returns `(W, τ, joint of each row)`.
    pub fn system(
        &self,
        samples: &Samples,
        min_speed: f64,
        filter: Option<usize>,
    ) -> (DMatrix<f64>, DVector<f64>, Vec<usize>) {
        let (w, tau) = self.per_joint(samples, filter);
        let keep = kept_equations(samples, min_speed);
        let (a, b) = stack(&w, &tau, &keep);
        (a, b, keep.iter().map(|&(_, j)| j).collect())
    }

    /// The regressor of `simulated` samples (same times as `measured`), filtered alike, with
    /// the equations [`FullRegressor::system`] keeps on `measured`: row for row beside the
    /// measured system, as instruments or as the simulated model's regressor.
    pub(crate) fn system_beside(
        &self,
        simulated: &Samples,
        measured: &Samples,
        min_speed: f64,
        filter: Option<usize>,
    ) -> DMatrix<f64> {
        let (w, tau) = self.per_joint(simulated, filter);
        stack(&w, &tau, &kept_equations(measured, min_speed)).0
    }

    /// Per joint, `W_j` (samples × unknowns) and `τ_j`, parallel-filtered where asked.
    fn per_joint(
        &self,
        samples: &Samples,
        filter: Option<usize>,
    ) -> (Vec<DMatrix<f64>>, Vec<DVector<f64>>) {
        let n = samples.t.len();
        let nj = samples.q.first().map_or(0, Vec::len);
        let p = self.len();
        let mut w: Vec<DMatrix<f64>> = vec![DMatrix::zeros(n, p); nj];
        let mut tau: Vec<DVector<f64>> = vec![DVector::zeros(n); nj];
        for (k, measured) in samples.tau.iter().enumerate() {
            let rows = self.rows(&samples.q[k], &samples.qd[k], &samples.qdd[k]);
            for (j, (wj, tj)) in w.iter_mut().zip(&mut tau).enumerate() {
                wj.row_mut(k).copy_from(&rows.row(j));
                tj[k] = measured[j];
            }
        }
        if let Some(h) = filter {
            let lp = |x: &[f64]| super::low_pass(x, &samples.t, samples.period, h);
            for j in 0..nj {
                for c in 0..p {
                    let col: Vec<f64> = w[j].column(c).iter().copied().collect();
                    w[j].column_mut(c).copy_from_slice(&lp(&col));
                }
                let filtered = lp(tau[j].as_slice());
                tau[j].copy_from_slice(&filtered);
            }
        }
        (w, tau)
    }

    /// The identified model for a parameter vector `x = (β, c…)`.
    pub fn model(&self, x: &DVector<f64>) -> FullModel {
        FullModel {
            regressor: self.clone(),
            x: x.clone(),
        }
    }

    /// The parameters of `x`: the base parameters, then each joint's friction terms.
    pub fn parameters(&self, x: &DVector<f64>) -> Vec<(ParamId, f64)> {
        let mut out: Vec<(ParamId, f64)> = (0..self.base.len())
            .map(|k| (ParamId::Base(k + 1), x[k]))
            .collect();
        let mut col = self.base.len();
        for (f, joint) in self.friction.iter().zip(self.geometry.joint_ids()) {
            if let Some(f) = f {
                for (i, name) in f.names().iter().enumerate() {
                    let term = FrictionTerm::from_name(name).expect("a term of FrictionTerm");
                    out.push((ParamId::Friction { joint, term }, x[col + i]));
                }
                col += f.len();
            }
        }
        out
    }
}

/// The `(sample, joint)` equations of joints at least `min_speed` fast, sample by sample.
fn kept_equations(samples: &Samples, min_speed: f64) -> Vec<(usize, usize)> {
    let nj = samples.q.first().map_or(0, Vec::len);
    (0..samples.t.len())
        .flat_map(|k| (0..nj).map(move |j| (k, j)))
        .filter(|&(k, j)| samples.qd[k][j].abs() >= min_speed)
        .collect()
}

/// The per-joint systems stacked over the kept equations.
fn stack(
    w: &[DMatrix<f64>],
    tau: &[DVector<f64>],
    keep: &[(usize, usize)],
) -> (DMatrix<f64>, DVector<f64>) {
    let p = w.first().map_or(0, |m| m.ncols());
    let a = DMatrix::from_fn(keep.len(), p, |r, c| w[keep[r].1][(keep[r].0, c)]);
    let b = DVector::from_fn(keep.len(), |r, _| tau[keep[r].1][keep[r].0]);
    (a, b)
}

/// `sgn(v)` for a drive moving at [`super::MIN_SPEED`] or faster, else 0: a real drive at rest is
/// held by static friction anywhere within `±F_s`, whose midpoint is the best prediction (and
/// the sign of a rate at rest is the sign of its measurement noise). Identification leaves those
/// equations out anyway; prediction must not flip `±F_c` on that noise.
fn moving_sign(v: f64) -> f64 {
    if v.abs() >= super::MIN_SPEED {
        v.signum()
    } else {
        0.0
    }
}

/// Per joint, whether its drive's armature column (`q̈_j` on its own row, or spread by a
/// [`Coupling`]) is independent of the base columns and of the armature columns kept before it,
/// over 40 random states: the same test (QR with column pivoting, relative pivot 1e-9) that
/// finds the base parameters.
pub fn separable_armature(
    geometry: &Chain,
    base: &BaseParameters,
    coupling: Option<&Coupling>,
) -> Vec<bool> {
    let states = crate::regressor::random_states(geometry, 40, 7);
    let nj = geometry.joint_ids().len();
    let yb = base.regressor(&crate::regressor::stacked(geometry, &states));
    let mut kept = yb.clone();
    let rank = |m: &DMatrix<f64>| BaseParameters::from_regressor(m, 1e-9).len();
    let mut r = rank(&kept);
    (0..nj)
        .map(|j| {
            // Drive j's rotor torque a_j reaching joint i with weight R̃[j, i] (1 on its own
            // joint only, without a coupling).
            let column = DVector::from_fn(states.len() * nj, |row, _| {
                let (state, i) = (&states[row / nj], row % nj);
                match coupling {
                    Some(c) => c.normalized[(j, i)] * c.drive(j, &state[2]),
                    None if i == j => state[2][j],
                    None => 0.0,
                }
            });
            let candidate = kept.clone().insert_column(kept.ncols(), 0.0);
            let mut candidate = candidate;
            candidate.set_column(kept.ncols(), &column);
            let grows = rank(&candidate) > r;
            if grows {
                kept = candidate;
                r += 1;
            }
            grows
        })
        .collect()
}

/// `τ = [Y_b | Φ_f](q, q̇, q̈) x`.
pub struct FullModel {
    regressor: FullRegressor,
    x: DVector<f64>,
}

impl TorqueModel for FullModel {
    fn torque(&self, q: &[f64], qd: &[f64], qdd: &[f64]) -> Vec<f64> {
        (self.regressor.rows(q, qd, qdd) * &self.x)
            .iter()
            .copied()
            .collect()
    }
}

impl Idim {
    /// The method's name, the `method` column of reports.
    pub fn name(&self) -> &'static str {
        match self.weighting {
            Weighting::Ordinary => crate::estimate::EstimatorId::IdimOls.name(),
            Weighting::Weighted => crate::estimate::EstimatorId::IdimWls.name(),
            Weighting::Total => crate::estimate::EstimatorId::IdimTls.name(),
            Weighting::Robust => crate::estimate::EstimatorId::IdimIrls.name(),
        }
    }

    /// The stacked equations of the experiment's excitation run, or why there are too few.
    pub fn system(&self, experiment: &Prepared, name: &str) -> Result<System, EstimateError> {
        let samples = super::periodic_samples(experiment.excitation, experiment.derivatives, name)?;
        let full = FullRegressor::of_experiment(experiment)?;
        let (a, b, joint) = full.system(&samples, self.min_speed, experiment.filter);
        if a.nrows() < 2 * a.ncols() {
            return Err(EstimateError {
                estimator: name.into(),
                message: format!("{} equations for {} unknowns", a.nrows(), a.ncols()),
            });
        }
        Ok(System {
            samples,
            full,
            a,
            b,
            joint,
        })
    }

    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        let System {
            full, a, b, joint, ..
        } = self.system(experiment, self.name())?;
        let x = match self.weighting {
            Weighting::Ordinary => {
                let x = least_squares(&a, &b);
                let values: Vec<Option<f64>> = x.iter().map(|v| Some(*v)).collect();
                let std = crate::lsq::ols_std(&a, &b, &values);
                let mut identified = full.identified(&x);
                if let Some(std) = std.into_iter().collect::<Option<Vec<f64>>>() {
                    identified = identified.with_std(full.parameters(&DVector::from_vec(std)));
                }
                return Ok(identified);
            }
            Weighting::Total => {
                let (x, reported) = total_least_squares(&a, &b, CONDITION_LIMIT);
                let mut identified = full.identified(&x);
                // A parameter the data do not determine is not an estimate (the model keeps
                // the whole solution).
                for ((p, _), reported) in full.parameters(&x).iter().zip(reported) {
                    if !reported {
                        identified
                            .values
                            .insert(*p, crate::param::Estimate::value(None));
                    }
                }
                return Ok(identified);
            }
            Weighting::Weighted => {
                let x0 = least_squares(&a, &b);
                let sigma = super::robust::joint_rms(&(&a * &x0 - &b), &joint);
                super::robust::rows_divided(&a, &b, |row| sigma[joint[row]])
            }
            Weighting::Robust => super::robust::Huber::default().solve(&a, &b, &joint),
        };
        Ok(full.identified(&x))
    }
}

/// The IDIM equations of an experiment: the samples they come from, the regressor and the
/// stacked system `A x = b` (equation `r` of joint `joint[r]`).
pub struct System {
    /// The excitation run's samples (`q̇, q̈` as the experiment obtains them).
    pub samples: Samples,
    /// The regressor.
    pub full: FullRegressor,
    /// The stacked regressor (filtered, slow equations dropped).
    pub a: DMatrix<f64>,
    /// The stacked measured torques.
    pub b: DVector<f64>,
    /// The joint of each equation.
    pub joint: Vec<usize>,
}

impl FullRegressor {
    /// The identified model of a parameter vector: its estimates and torque predictor.
    pub fn identified(&self, x: &DVector<f64>) -> Estimates {
        Estimates::identified(self.parameters(x), Box::new(self.model(x)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first joint about the vertical turns its rotor and its link's own axial inertia with
    /// the same `q̈₁` and nothing else, and so does the second of these arms (its axis meets
    /// the first at right angles): no data separate them, and FIGAROH's TX40 base parameters
    /// fold them likewise (`Izz1 + Ia1 + …`, `Izz2 + Ia2 + …`). Joints 3–6 have their own
    /// armature column (FIGAROH's `Ia3` … `Ia5`).
    #[test]
    fn only_armatures_the_data_can_tell_from_link_inertias_get_a_column() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for file in [
            "models/example-robot-data/ur10_robot.urdf",
            "models/tx40/tx40_mdh_modified.urdf",
        ] {
            let arm = sim::urdf::read(&root.join(file)).unwrap().kinematics_only();
            let base = BaseParameters::of_chain(&arm);
            let separable = separable_armature(&arm, &base, None);
            assert_eq!(separable, [false, false, true, true, true, true], "{file}");
        }
    }

    /// The TX40's wrist: motor 6 turns with joints 5 and 6 (`θm6 = N6 (q5 + q6)`), so drive 6's
    /// viscous column is `q̇5 + q̇6` on both joints' rows; the other drives' stay on their own.
    #[test]
    fn a_coupled_drive_acts_on_every_joint_its_motor_turns_with() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let file = root.join("models/tx40/tx40_mdh_modified.urdf");
        let arm = sim::urdf::read(&file).unwrap().kinematics_only();
        let mut r = DMatrix::from_diagonal(&DVector::from_vec(vec![
            32.0, 32.0, 45.0, -48.0, 45.0, 32.0,
        ]));
        r[(5, 4)] = 32.0;
        let plain = FullRegressor::with_columns(
            &arm,
            vec![Some(FrictionColumns::RealDrive { armature: false }); 6],
        );
        let coupled = FullRegressor {
            coupling: Some(Coupling::of(&r)),
            ..plain.clone()
        };
        let (q, qd, qdd) = ([0.1; 6], [0.3, -0.2, 0.5, 0.7, -0.4, 0.9], [0.0; 6]);
        let (a, b) = (plain.rows(&q, &qd, &qdd), coupled.rows(&q, &qd, &qdd));
        // Drive 6's columns (coulomb, viscous, offset) are the last three.
        let viscous6 = plain.len() - 2;
        assert_eq!(a[(4, viscous6)], 0.0);
        assert!((b[(4, viscous6)] - (qd[4] + qd[5])).abs() < 1e-15);
        assert!((b[(5, viscous6)] - (qd[4] + qd[5])).abs() < 1e-15);
        assert_eq!(b[(4, viscous6 + 1)], 0.0, "offsets stay on their joint");
        let first_five = plain.len() - 3;
        assert_eq!(
            a.columns(0, first_five).into_owned(),
            b.columns(0, first_five).into_owned()
        );
    }
}
