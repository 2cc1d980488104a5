//! An identified model in the loop of a run's design: the arm whose dynamics are a parameter
//! vector `x = (β, c…)` of a [`FullRegressor`], driven as the run was (its servo references and
//! control laws, prescribed profiles, torque signals), integrated from the run's start. IDIM-IV
//! takes its instruments from this simulation ([`super::iv`]) and DIDIM its output
//! ([`super::didim`]).
//!
//! The simulated arm is `M̂(q) q̈ + ĥ(q, q̇) = τ`, `ĥ` with the identified friction: rigid-body
//! terms by the inverse dynamics of a standard-parameter realization of `β`
//! ([`FullRegressor::realization`], exact for the base parameters whatever the others), the
//! mass matrix column by column (`M̂ e_i` is the inverse dynamics at `q̇ = 0`, `q̈ = e_i`, no
//! gravity). Not Rapier, as the "Rapier in the loop" would have it: a base-parameter
//! vector has no unique physical realization and the natural one is not physical (negative
//! masses and inertias), which a rigid-body engine cannot take; Gautier et al. (2013) likewise
//! simulate the identified model itself.
//!
//! Controllers are the run's ([`sim::drive::Control`]), with the identified model in the place of
//! the simulator's perfect one for computed torque (`τ = M̂_rb (q̈_r + k_p e + k_d ė) + ĥ_rb`, the
//! rigid-body part: friction is not compensated, as in the simulator), evaluated continuously
//! (the simulator holds them over its 0.5 ms step: a difference of the instruments, not of the
//! identified model). Prescribed joints follow their profile; the others are integrated by
//! classical Runge–Kutta (RK4) at a step that resolves the loop's fastest mode (half its time
//! constant, at most the sample period).

use nalgebra::DVector;
use sim::drive::{Control, Signal};
use sim::profile::Profile;

pub(crate) mod arm;
mod control;
mod integrator;
mod refine;
mod sensitivity;

pub use arm::BAND;
pub use refine::{Iteration, identify};

use arm::Arm;

use super::Samples;
use super::base::FullRegressor;
use crate::estimate::NotApplicable;
use sim::reading::Measurements;

/// How one joint is driven (the run's design).
#[derive(Clone, Debug)]
enum JointDrive {
    /// The joint follows its profile.
    Prescribed(Profile),
    /// A servo tracks the reference; `gain` is the drive's `K` (the PI velocity loop's unit).
    Servo {
        reference: Profile,
        control: Control,
        gain: f64,
    },
    /// A torque signal.
    Torque(Signal),
}

/// The run's design, ready to drive an identified model.
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    drives: Vec<JointDrive>,
}

impl ClosedLoop {
    /// The design of a simulated run: every joint prescribed, servoed or torque-driven.
    pub fn of_run(data: &Measurements) -> Result<Self, NotApplicable> {
        let drives = data
            .joints
            .iter()
            .map(|j| match (&j.reference, j.control, &j.excitation) {
                (Some(reference), Some(control), _) => Ok(JointDrive::Servo {
                    reference: reference.clone(),
                    control,
                    gain: j.gain,
                }),
                (Some(reference), None, _) => Ok(JointDrive::Prescribed(reference.clone())),
                (None, _, Some(signal)) => Ok(JointDrive::Torque(signal.clone())),
                (None, _, None) => Err(NotApplicable::new(format!(
                    "needs the run's drive design (a reference or a torque signal on every \
                     joint, as a simulated run states it); joint {} has none",
                    j.id
                ))),
            })
            .collect::<Result<_, _>>()?;
        Ok(ClosedLoop { drives })
    }

    /// The simulated loop of the model `x` sampled at `times` (increasing, s), from the run's
    /// initial state at `t = 0`: `q, q̇, q̈` and the actuator torques (`τ` of a prescribed joint
    /// is what the model needs to follow its profile). `Err` says where the loop diverged.
    pub fn simulate(
        &self,
        regressor: &FullRegressor,
        x: &DVector<f64>,
        times: &[f64],
        period: f64,
    ) -> Result<Samples, LoopFailure> {
        let arm = Arm::new(regressor, x);
        let (mut q, mut qd) = self.initial_state();
        let step = self.step(&arm, &q, times)?;
        let mut out = Samples {
            period,
            ..Samples::default()
        };
        let mut t = 0.0;
        for &target in times {
            let intervals = ((target - t) / step).ceil().max(0.0) as usize;
            let h = if intervals > 0 {
                (target - t) / intervals as f64
            } else {
                0.0
            };
            for _ in 0..intervals {
                (q, qd) = self.rk4(&arm, t, &q, &qd, h);
                t += h;
                if q.iter().chain(&qd).any(|v| !v.is_finite() || v.abs() > 1e6) {
                    return Err(LoopFailure::Diverged { t });
                }
            }
            t = target;
            let d = self.derivative(&arm, t, &q, &qd);
            let (qs, qds) = self.prescribed(t, &q, &qd);
            out.t.push(t);
            out.q.push(qs);
            out.qd.push(qds);
            out.qdd.push(d.qdd);
            out.tau.push(d.tau);
        }
        Ok(out)
    }

    /// The joint state at `t = 0`: profiles and references there, the other joints at rest at
    /// 0 (as the simulator starts).
    fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        self.drives
            .iter()
            .map(|d| match d {
                JointDrive::Prescribed(p) | JointDrive::Servo { reference: p, .. } => {
                    let s = p.eval(0.0);
                    (s.q, s.qd)
                }
                JointDrive::Torque(_) => (0.0, 0.0),
            })
            .unzip()
    }

    /// The joints whose motion depends on the model (servoed or torque-driven, not prescribed).
    pub(crate) fn free_joints(&self) -> Vec<usize> {
        (0..self.drives.len())
            .filter(|&j| !self.is_prescribed(j))
            .collect()
    }

    /// Whether joint `j` follows its profile whatever the model (a prescribed joint).
    fn is_prescribed(&self, j: usize) -> bool {
        matches!(self.drives[j], JointDrive::Prescribed(_))
    }
}

/// Why the identified model's loop cannot be simulated.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LoopFailure {
    /// A joint's identified inertia (the mass matrix's diagonal entry, kg·m² or kg) is not
    /// positive at the initial state.
    #[error("the identified inertia of joint {joint} is not positive ({inertia:.3e})")]
    NonPositiveInertia {
        /// The joint (1-based, as the model numbers them).
        joint: usize,
        /// Its inertia.
        inertia: f64,
    },
    /// The state became non-finite or left ±1e6 (rad, m, and their rates).
    #[error("the identified model's loop diverged at t = {t:.4} s")]
    Diverged {
        /// When (s).
        t: f64,
    },
}
