//! Friction and gravity from the forward/backward constant-velocity sweeps (the teaching
//! paper's section 4.1).
//!
//! On a constant-velocity stretch the inertial and Coriolis torques vanish (the latter up to
//! `O(q̇²)`, 1e-4 of gravity at 4 °/s), so the measured torque is gravity plus friction. At the
//! same angle, friction reverses with the motion and gravity does not: half the difference of
//! the forward and backward torques is the friction at that angle and speed, half their sum is
//! the gravity torque. Pairs are formed at equal *measured* angles (the backward stretch is
//! interpolated at each forward sample), velocities are local least-squares slopes of the
//! measured angle over ±1 s, and the first and last [`SETTLE`] seconds of each stretch (where
//! the servo settles after the blend) are dropped.
//!
//! Friction model: the paper's eq. 15 as the simulator states it ([`sim::friction::Friction`]),
//! with a plain sign (the stretches are far from zero velocity). It is linear in its ten
//! coefficients once the transition velocity `v_t` and the gear ratio `R` of the ripple terms
//! are fixed, so `(v_t, 1/R)` are first located by variable projection on a grid (linear least
//! squares for the coefficients at every grid point), then all twelve are refined together by
//! Levenberg–Marquardt (the `levenberg-marquardt` crate). Gravity: the half-sums against the
//! swept joint's rows of the gravity regressor `Y(q, 0, 0)`, solved for its base parameters.

use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector};
use nalgebra034 as na;
use sim::friction::paper_basis;
use sim::profile::Profile;

use super::Prepared;
use super::friction_gravity::{FrictionGravity, Gravity, JointFriction, SIGN, gravity_regressor};
use crate::estimate::EstimateError;
use crate::lsq::least_squares;
use crate::regressor::BaseParameters;
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// Seconds dropped at each end of a constant-velocity stretch.
pub const SETTLE: f64 = 2.0;
/// Half-width of the window of the local velocity fit (s).
const VELOCITY_WINDOW: f64 = 1.0;

/// A half-difference sample `(q, q̇, τ_f)`: angle (rad), velocity of the forward stretch with
/// the mean speed of the pair (rad/s), friction torque along the motion (N·m).
pub type FrictionSample = (f64, f64, f64);

/// Half-difference (friction) and half-sum (gravity) samples of one swept joint.
#[derive(Default)]
struct SweepSamples {
    friction: Vec<FrictionSample>,
    /// `(q of all joints, τ_g of the swept joint)`.
    gravity: Vec<(Vec<f64>, f64)>,
}

/// Local least-squares slope of `q` around each sample of `range` (within it).
fn local_velocity(t: &[f64], q: &[f64], range: std::ops::Range<usize>) -> Vec<f64> {
    let dt = t[1] - t[0];
    let w = (VELOCITY_WINDOW / dt).round() as usize;
    range
        .clone()
        .map(|k| {
            let (a, b) = (
                k.saturating_sub(w).max(range.start),
                (k + w + 1).min(range.end),
            );
            let n = (b - a) as f64;
            let (tm, qm) = (
                t[a..b].iter().sum::<f64>() / n,
                q[a..b].iter().sum::<f64>() / n,
            );
            let (mut num, mut den) = (0.0, 0.0);
            for i in a..b {
                num += (t[i] - tm) * (q[i] - qm);
                den += (t[i] - tm).powi(2);
            }
            num / den
        })
        .collect()
}

fn sweep_samples(data: &Measurements, joint: usize, profile: &Profile) -> SweepSamples {
    let t = &data.t;
    let dt = t[1] - t[0];
    let q = data.joints[joint].measured_or_clean(JointColumn::Q);
    let tau = data.joints[joint].motor_torque();
    let all_q: Vec<&[f64]> = data
        .joints
        .iter()
        .map(|j| j.measured_or_clean(JointColumn::Q))
        .collect();
    let index = |time: f64| ((time / dt).round().max(0.0) as usize).min(t.len());
    let stretches = profile.constant_velocity_stretches();
    let mut out = SweepSamples::default();
    for pair in stretches.chunks(2) {
        let [fwd, bwd] = pair else { continue };
        let range = |s: &sim::profile::ConstantVelocity| {
            index(s.start + SETTLE)..index(s.end - SETTLE).max(index(s.start + SETTLE))
        };
        let (rf, rb) = (range(fwd), range(bwd));
        if rf.len() < 3 || rb.len() < 3 {
            continue;
        }
        let (vf, vb) = (
            local_velocity(t, q, rf.clone()),
            local_velocity(t, q, rb.clone()),
        );
        // Backward samples sorted by angle, for interpolation.
        let mut back: Vec<(f64, f64, f64)> = rb
            .clone()
            .zip(&vb)
            .map(|(k, v)| (q[k], tau[k], *v))
            .collect();
        back.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (i, k) in rf.clone().enumerate() {
            let x = q[k];
            let p = back.partition_point(|b| b.0 < x);
            if p == 0 || p == back.len() {
                continue;
            }
            let (a, b) = (back[p - 1], back[p]);
            if b.0 - a.0 <= 0.0 {
                continue;
            }
            let s = (x - a.0) / (b.0 - a.0);
            let (tb, vbk) = (a.1 + s * (b.1 - a.1), a.2 + s * (b.2 - a.2));
            let speed = 0.5 * (vf[i].abs() + vbk.abs());
            let sign = vf[i].signum();
            out.friction
                .push((x, sign * speed, 0.5 * sign * (tau[k] - tb)));
            out.gravity
                .push((all_q.iter().map(|c| c[k]).collect(), 0.5 * (tau[k] + tb)));
        }
    }
    out
}

/// The joint a run sweeps (dataset index) and its sweep reference.
pub(crate) fn swept_joint(data: &Measurements) -> Option<(usize, Profile)> {
    data.joints
        .iter()
        .enumerate()
        .find_map(|(j, s)| match &s.reference {
            Some(p @ Profile::Sweep { .. }) => Some((j, p.clone())),
            _ => None,
        })
}

/// The half-difference friction samples `(q, q̇, τ_f)` of a sweep run and the swept joint's
/// dataset index (for plots and checks).
pub(crate) fn friction_samples(data: &Measurements) -> Option<(usize, Vec<FrictionSample>)> {
    let (joint, profile) = swept_joint(data)?;
    Some((joint, sweep_samples(data, joint, &profile).friction))
}

/// The friction basis matrix for samples `(q, v)` at `(v_t, 1/R)`.
fn basis_matrix(samples: &[FrictionSample], vt: f64, rho: f64) -> DMatrix<f64> {
    let mut a = DMatrix::zeros(samples.len(), 10);
    for (r, (q, v, _)) in samples.iter().enumerate() {
        for (c, b) in paper_basis(*q, *v, 1.0 / rho, vt, SIGN).iter().enumerate() {
            a[(r, c)] = *b;
        }
    }
    a
}

/// Levenberg–Marquardt problem on `x = (ln v_t, 1/R, c₀..c₉)`.
struct FrictionProblem<'a> {
    samples: &'a [FrictionSample],
    x: na::DVector<f64>,
}

impl FrictionProblem<'_> {
    fn model(&self, x: &na::DVector<f64>, q: f64, v: f64) -> f64 {
        paper_basis(q, v, 1.0 / x[1], x[0].exp(), SIGN)
            .iter()
            .enumerate()
            .map(|(i, b)| b * x[2 + i])
            .sum()
    }
}

impl LeastSquaresProblem<f64, na::Dyn, na::Dyn> for FrictionProblem<'_> {
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
        Some(na::DVector::from_iterator(
            self.samples.len(),
            self.samples
                .iter()
                .map(|(q, v, y)| self.model(&self.x, *q, *v) - y),
        ))
    }

    fn jacobian(&self) -> Option<na::DMatrix<f64>> {
        let n = self.samples.len();
        let mut j = na::DMatrix::zeros(n, 12);
        let (vt, rho) = (self.x[0].exp(), self.x[1]);
        for (r, (q, v, _)) in self.samples.iter().enumerate() {
            for (c, b) in paper_basis(*q, *v, 1.0 / rho, vt, SIGN).iter().enumerate() {
                j[(r, 2 + c)] = *b;
            }
            for p in 0..2 {
                let h = 1e-6 * self.x[p].abs().max(1e-3);
                let (mut xp, mut xm) = (self.x.clone(), self.x.clone());
                xp[p] += h;
                xm[p] -= h;
                j[(r, p)] = (self.model(&xp, *q, *v) - self.model(&xm, *q, *v)) / (2.0 * h);
            }
        }
        Some(j)
    }
}

/// Fits eq. 15 to half-difference samples.
fn fit_friction(samples: &[FrictionSample]) -> JointFriction {
    let y = DVector::from_iterator(samples.len(), samples.iter().map(|s| s.2));
    // Variable projection on a grid, on every 4th sample.
    let thin: Vec<FrictionSample> = samples.iter().step_by(4).copied().collect();
    let y_thin = DVector::from_iterator(thin.len(), thin.iter().map(|s| s.2));
    let mut best = (f64::INFINITY, 0.02, 1.0);
    for i in 0..=24 {
        let vt = 1e-3 * 200f64.powf(f64::from(i) / 24.0);
        for k in 1..=160 {
            let rho = 0.1 * f64::from(k);
            let a = basis_matrix(&thin, vt, rho);
            let r = (&a * least_squares(&a, &y_thin) - &y_thin).norm_squared();
            if r < best.0 {
                best = (r, vt, rho);
            }
        }
    }
    let (_, vt, rho) = best;
    let a = basis_matrix(samples, vt, rho);
    let c = least_squares(&a, &y);
    let mut x0 = na::DVector::zeros(12);
    x0[0] = vt.ln();
    x0[1] = rho;
    for i in 0..10 {
        x0[2 + i] = c[i];
    }
    let (problem, _report) = LevenbergMarquardt::new()
        .with_xtol(1e-14)
        .with_ftol(1e-14)
        .minimize(FrictionProblem { samples, x: x0 });
    let x = problem.x;
    // The linear coefficients at the refined (v_t, R), solved exactly.
    let (vt, rho) = (x[0].exp(), x[1]);
    let a = basis_matrix(samples, vt, rho);
    let c = least_squares(&a, &y);
    JointFriction {
        gear_ratio: 1.0 / rho,
        transition_velocity: vt,
        coefficients: std::array::from_fn(|i| c[i]),
    }
}

/// The sweep analysis: friction per swept joint and gravity.
pub fn fit(experiment: &Prepared) -> Result<FrictionGravity, EstimateError> {
    let geometry = experiment.geometry();
    let nj = geometry.joint_ids().len();
    let err = |message: String| EstimateError {
        estimator: "friction_sweep".into(),
        message,
    };
    let base = BaseParameters::of_gravity(geometry);
    let mut friction = vec![None; nj];
    let mut rows: Vec<DMatrix<f64>> = Vec::new();
    let mut rhs: Vec<f64> = Vec::new();
    for data in &experiment.sweeps {
        let Some((joint, profile)) = swept_joint(data) else {
            return Err(err(format!("run `{}` sweeps no joint", data.run_id)));
        };
        let samples = sweep_samples(data, joint, &profile);
        if samples.friction.len() < 50 {
            return Err(err(format!(
                "run `{}`: only {} forward/backward pairs at equal angles",
                data.run_id,
                samples.friction.len()
            )));
        }
        friction[joint] = Some(fit_friction(&samples.friction));
        for (q, g) in &samples.gravity {
            rows.push(
                gravity_regressor(geometry, &base, q)
                    .rows(joint, 1)
                    .into_owned(),
            );
            rhs.push(*g);
        }
    }
    if rows.is_empty() {
        return Err(err("no sweep runs".into()));
    }
    let mut a = DMatrix::zeros(rows.len(), base.len());
    for (r, row) in rows.iter().enumerate() {
        a.row_mut(r).copy_from(row);
    }
    let beta = least_squares(&a, &DVector::from_vec(rhs));
    Ok(FrictionGravity {
        friction,
        gravity: Gravity {
            geometry: geometry.clone(),
            base,
            beta,
        },
    })
}

/// The friction and gravity of `experiment`'s sweep analysis ([`fit`]), computed on first use
/// and kept in the experiment (or given by [`Prepared::with_sweep_fit`]).
pub(crate) fn analysis<'a>(experiment: &'a Prepared) -> Result<&'a FrictionGravity, EstimateError> {
    (experiment.sweep_fit)
        .get_or_init(|| fit(experiment))
        .as_ref()
        .map_err(Clone::clone)
}
