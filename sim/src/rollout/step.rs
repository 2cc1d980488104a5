//! The integrator step of a rollout: short enough for the model's stiffest joint.
//!
//! The simulation applies joint damping and friction as loads computed at each step's start
//! (explicit, `crate::simulation`). A joint of inertia `I` under a velocity slope `c` (damping
//! plus the friction curve's slope at rest: `F_c / ε` for a Coulomb friction smoothed over
//! `ε`) then loses accuracy once `c·h / I` is no longer small: at `c·h / I ≈ 0.3` (Menagerie's
//! UR5e, damping 200 N·m·s/rad on a 0.6 kg·m² joint, at 1 ms) its drift over 0.3 s is 38 % short
//! of the converged one, and past 2 the step is unstable. A rollout therefore takes steps
//! `h ≤ STIFF_FRACTION · I_j / c_j` for every joint `j`, with `I_j` the joint-space inertia's
//! diagonal plus armature at the window's start, and at most [`super::MAX_STEP`] (never less
//! than [`MIN_STEP`]: a model whose near-massless joint would need less is simulated at that
//! step, and its rollouts say what they say).
//!
//! A position servo (`crate::position_servo`) is evaluated at each step's start too: its `k_d`
//! adds to the joint's slope `c_j`, and its stiffness `k_p` makes the joint an oscillator of
//! frequency `ω_j = √(k_p / I_j)`, which the step resolves with `ω_j h ≤ √STIFF_FRACTION`
//! (0.1 rad a step: the symplectic step's phase error per period is `(ω h)² / 24` of it).

use ::nalgebra::Vector3;

use super::MAX_STEP;
use super::Model;
use crate::position_servo::PositionServo;

/// The largest `c·h / I` a rollout step allows: first-order errors of about 1 % of the
/// damping's effect.
pub const STIFF_FRACTION: f64 = 0.01;

/// The shortest rollout step (s).
pub const MIN_STEP: f64 = 1e-5;

/// Whole integrator steps per sample interval `period` (s) for `model` at the state `q`, every
/// servo the model states driving its joint.
pub fn steps_per_sample(model: &Model, q: &[f64], period: f64) -> usize {
    steps_with_servos(model, q, period, |j| model.servo(j).copied())
}

/// [`steps_per_sample`] with `servo(j)` the servo that drives joint `j` (`None`: the joint is
/// torque-driven, a servo the model states for it idle).
pub fn steps_with_servos(
    model: &Model,
    q: &[f64],
    period: f64,
    servo: impl Fn(usize) -> Option<PositionServo>,
) -> usize {
    let longest = stiffest_step(model, q, servo).clamp(MIN_STEP, MAX_STEP);
    // A grid interval computed from the stamps may exceed a round one by rounding, which must
    // not add a step.
    (period / longest * (1.0 - 1e-9)).ceil().max(1.0) as usize
}

/// `STIFF_FRACTION · min_j I_j / c_j` (s), infinite where no joint is damped. A coupled drive
/// adds `r_j² I_a` to joint `j`'s inertia and `r_j² c` (its damping and friction slope) to its
/// slope.
fn stiffest_step(model: &Model, q: &[f64], servo: impl Fn(usize) -> Option<PositionServo>) -> f64 {
    let chain = &model.chain;
    let nj = q.len();
    let zero = vec![0.0; nj];
    let mut unit = vec![0.0; nj];
    let mut step = f64::INFINITY;
    for (j, link) in chain.links.iter().enumerate() {
        let joint = &link.joint;
        let mut slope = joint.damping
            + joint
                .friction
                .as_ref()
                .map_or(0.0, |f| f.slope_at_rest(q[j]));
        let mut inertia = joint.armature;
        for d in &model.coupled {
            let r2 = d.row[j] * d.row[j];
            let friction = d.friction.as_ref().map_or(0.0, |f| f.slope_at_rest(0.0));
            slope += r2 * (d.damping + friction);
            inertia += r2 * d.armature;
        }
        let servo = servo(j);
        let stiffness = servo.map_or(0.0, |s| s.kp);
        slope += servo.map_or(0.0, |s| s.kd);
        if slope <= 0.0 && stiffness <= 0.0 {
            continue;
        }
        unit[j] = 1.0;
        let tau = crate::dynamics::rnea(chain, q, &zero, &unit, &Vector3::zeros()).tau;
        unit[j] = 0.0;
        let inertia = tau[j] + inertia;
        if slope > 0.0 {
            step = step.min(STIFF_FRACTION * inertia / slope);
        }
        if stiffness > 0.0 {
            step = step.min(STIFF_FRACTION.sqrt() * (inertia / stiffness).sqrt());
        }
    }
    step
}
