//! Output sensitivities of the simulated loop, `S(t) = ∂q_s(t)/∂x` (rad per unit of each
//! parameter), for closed-loop output error ([`crate::estimate::idim::cloe`]).
//!
//! The free joints `F` of the loop obey `R(t, q, q̇, q̈; x) = M̂ q̈ + ĥ − u(t, q, q̇; x) = 0`
//! (`u` the drives' torques). Differentiating along a simulated run with respect to `x`:
//!
//! `M̂_FF S̈_F + K S_F + D Ṡ_F = −G`, `K = ∂R_F/∂q_F`, `D = ∂R_F/∂q̇_F`,
//! `G = ∂R_F/∂x = W_F(q, q̇, q̈) − ∂u_F/∂x`,
//!
//! `K` and `D` by forward differences of `R` at the simulated state (`q̈` held), `W` the
//! regressor's rows and `∂u/∂x` a computed-torque law's model rows `W_rb(q, q̇, a)` (the rigid
//! body's columns; the other laws do not depend on `x`). Prescribed joints follow their profile
//! whatever `x`: `S_P = 0`. The initial state is the design's, so `S(0) = Ṡ(0) = 0`.
//!
//! The linear system is integrated by the trapezoidal rule (A-stable: servo modes are stiff),
//! its coefficients linear between samples, in substeps of at most half the fastest mode's time
//! constant. This costs a few inverse dynamics per sample where finite differences of the loop
//! would cost a simulation per parameter (57 on the Panda). Inside the friction band
//! (`|q̇| < BAND`, [`super::BAND`]) `G`'s friction columns are interpolated as the simulated
//! friction is.

use nalgebra::{DMatrix, DVector};
use sim::drive::Control;

use super::{Arm, ClosedLoop, JointDrive};
use crate::estimate::idim::Samples;
use crate::estimate::idim::base::FullRegressor;

/// Forward-difference step of the joint state (rad, rad/s).
const DELTA: f64 = 1e-6;

/// Largest substep of the trapezoidal rule, times the fastest mode's rate.
const RESOLUTION: f64 = 0.5;

/// The loop linearized at one sample: `ż = A z + b` for `z = (S_F, Ṡ_F)` (`2 n_F × p`).
struct Linearized {
    a: DMatrix<f64>,
    b: DMatrix<f64>,
    /// The fastest rate of `A` (1/s), bounded by row sums.
    rate: f64,
}

impl ClosedLoop {
    /// `S(t_k)` (joints × parameters, zero rows on prescribed joints) at every sample of
    /// `simulated`, the loop of the model `x` simulated from `t = 0`
    /// ([`ClosedLoop::simulate`]).
    pub fn sensitivities(
        &self,
        regressor: &FullRegressor,
        x: &DVector<f64>,
        simulated: &Samples,
    ) -> Vec<DMatrix<f64>> {
        let arm = Arm::new(regressor, x);
        let n = self.drives.len();
        let free = self.free_joints();
        let p = regressor.len();
        let lines: Vec<Linearized> = (0..simulated.t.len())
            .map(|k| self.linearize(&arm, &free, simulated, k))
            .collect();
        let mut z = DMatrix::zeros(2 * free.len(), p);
        let mut before = 0.0;
        let mut out = Vec::with_capacity(lines.len());
        for (k, line) in lines.iter().enumerate() {
            let start = &lines[k.saturating_sub(1)];
            let span = simulated.t[k] - before;
            if span > 0.0 {
                z = trapezoid(z, start, line, span);
            }
            let mut s = DMatrix::zeros(n, p);
            for (r, &j) in free.iter().enumerate() {
                s.set_row(j, &z.row(r));
            }
            out.push(s);
            before = simulated.t[k];
        }
        out
    }

    /// The residual `R = M̂ q̈ + ĥ − u` of every joint at a state.
    fn residual(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64], qdd: &[f64]) -> DVector<f64> {
        arm.inverse(q, qd, qdd) - DVector::from_vec(self.commands(arm, t, q, qd))
    }

    /// The loop linearized at sample `k` of `simulated`.
    fn linearize(&self, arm: &Arm, free: &[usize], simulated: &Samples, k: usize) -> Linearized {
        let (t, q, qd, qdd) = (
            simulated.t[k],
            &simulated.q[k],
            &simulated.qd[k],
            &simulated.qdd[k],
        );
        let nf = free.len();
        let r0 = self.residual(arm, t, q, qd, qdd);
        let mut stiffness = DMatrix::zeros(nf, nf);
        let mut damping = DMatrix::zeros(nf, nf);
        for (c, &j) in free.iter().enumerate() {
            let (mut qp, mut qdp) = (q.clone(), qd.clone());
            qp[j] += DELTA;
            qdp[j] += DELTA;
            let dq = (self.residual(arm, t, &qp, qd, qdd) - &r0) / DELTA;
            let dqd = (self.residual(arm, t, q, &qdp, qdd) - &r0) / DELTA;
            for (r, &i) in free.iter().enumerate() {
                stiffness[(r, c)] = dq[i];
                damping[(r, c)] = dqd[i];
            }
        }
        let forcing = self.forcing(arm, t, q, qd, qdd);
        let g = DMatrix::from_fn(nf, forcing.ncols(), |r, c| forcing[(free[r], c)]);
        let m = arm.mass(q);
        let m_ff = DMatrix::from_fn(nf, nf, |r, c| m[(free[r], free[c])]).lu();
        let solve = |rhs: &DMatrix<f64>| {
            m_ff.solve(rhs)
                .unwrap_or_else(|| DMatrix::from_element(rhs.nrows(), rhs.ncols(), f64::NAN))
        };
        let (p, d, b) = (solve(&stiffness), solve(&damping), solve(&g));
        let mut a = DMatrix::zeros(2 * nf, 2 * nf);
        a.view_mut((0, nf), (nf, nf))
            .copy_from(&DMatrix::identity(nf, nf));
        a.view_mut((nf, 0), (nf, nf)).copy_from(&(-&p));
        a.view_mut((nf, nf), (nf, nf)).copy_from(&(-&d));
        let mut forced = DMatrix::zeros(2 * nf, b.ncols());
        forced.view_mut((nf, 0), (nf, b.ncols())).copy_from(&(-b));
        let row_sum = |m: &DMatrix<f64>| {
            m.row_iter()
                .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
                .fold(0.0, f64::max)
        };
        Linearized {
            a,
            b: forced,
            rate: row_sum(&d).max(row_sum(&p).sqrt()),
        }
    }

    /// `G = ∂R/∂x` of every joint at a state: the regressor's rows less a computed-torque law's
    /// model rows on its joints.
    fn forcing(&self, arm: &Arm, t: f64, q: &[f64], qd: &[f64], qdd: &[f64]) -> DMatrix<f64> {
        let mut g = arm.rows(q, qd, qdd);
        if let Some(a) = self.computed_acceleration(t, q, qd) {
            let model = arm.regressor.rows(q, qd, &a);
            let rigid = arm.regressor.base.len();
            for (j, d) in self.drives.iter().enumerate() {
                if let JointDrive::Servo {
                    control: Control::ComputedTorque { .. },
                    ..
                } = d
                {
                    for c in 0..rigid {
                        g[(j, c)] -= model[(j, c)];
                    }
                }
            }
        }
        g
    }
}

/// `z` carried over `span` seconds by the trapezoidal rule, the coefficients linear from
/// `start` to `end`.
fn trapezoid(mut z: DMatrix<f64>, start: &Linearized, end: &Linearized, span: f64) -> DMatrix<f64> {
    let rate = start.rate.max(end.rate);
    let steps = ((span * rate / RESOLUTION).ceil() as usize).max(1);
    let h = span / steps as f64;
    let identity = DMatrix::<f64>::identity(z.nrows(), z.nrows());
    let at = |s: f64| {
        (
            &start.a * (1.0 - s) + &end.a * s,
            &start.b * (1.0 - s) + &end.b * s,
        )
    };
    for i in 0..steps {
        let (a0, b0) = at(i as f64 / steps as f64);
        let (a1, b1) = at((i + 1) as f64 / steps as f64);
        let rhs = (&identity + &a0 * (h / 2.0)) * &z + (b0 + b1) * (h / 2.0);
        z = (&identity - &a1 * (h / 2.0))
            .lu()
            .solve(&rhs)
            .unwrap_or_else(|| DMatrix::from_element(rhs.nrows(), rhs.ncols(), f64::NAN));
    }
    z
}
