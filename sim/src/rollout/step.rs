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
//! A smoothed sign's share of a friction's slope (`F_c / ε` of a Coulomb friction,
//! `crate::friction::Friction::sign_slope_at_rest`) is held to `h ≤ SIGN_FRACTION · I_j / c_s`
//! instead: near rest it only stops the joint (a sliding joint sees its constant level), which an
//! explicit step does without reversing the motion for `c_s h / I ≤ 1` (at 1 the step stops the
//! joint exactly: the friction is then the torque that holds the joint, up to its level). A
//! joint held by such a friction creeps at most at `ε τ / F_c` under a load `τ < F_c`, the
//! smoothed model's own creep. Held to the damping's 1 %, the friction loss of Menagerie's
//! SO-101 (0.052 N·m over ε = 0.01 rad/s) asked for 33 µs steps; its damping (joint and servo,
//! 3.3 N·m·s/rad) now sets 84 µs, and the 1 s rollouts of the book's SO-101 chapter give the same
//! mean error to four digits (`armid rollout so101_elbow --holdout 0.3`: 1.7258e-2 rad).
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

/// The largest `c_s·h / I` for a smoothed sign's slope `c_s` (module docs).
pub const SIGN_FRACTION: f64 = 0.5;

/// The shortest rollout step (s).
pub const MIN_STEP: f64 = 1e-5;

/// Whole integrator steps per sample interval `period` (s) for `model` at the state `q`, every
/// servo the model states driving its joint.
pub fn steps_per_sample(model: &Model, q: &[f64], period: f64) -> usize {
    steps_with_servos(model, q, period, |j| model.servo(j).copied())
}

/// [`steps_per_sample`] with `servo(j)` the servo that drives joint `j` (`None`: the joint is
/// torque-driven, a servo the model states for it idle).
pub(super) fn steps_with_servos(
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

/// `min_j` of `STIFF_FRACTION · I_j / c_j`, `SIGN_FRACTION · I_j / c_s,j` and the servo's
/// bound (s), infinite where no joint is damped. A coupled drive adds `r_j² I_a` to joint `j`'s
/// inertia and `r_j²` its damping and friction slopes to the joint's.
fn stiffest_step(model: &Model, q: &[f64], servo: impl Fn(usize) -> Option<PositionServo>) -> f64 {
    let chain = &model.chain;
    let nj = q.len();
    let zero = vec![0.0; nj];
    let mut unit = vec![0.0; nj];
    let mut step = f64::INFINITY;
    for (j, link) in chain.links.iter().enumerate() {
        let joint = &link.joint;
        let friction = joint.friction.as_ref();
        let sign = friction.map_or(0.0, |f| f.sign_slope_at_rest());
        let mut slope = joint.damping + friction.map_or(0.0, |f| f.slope_at_rest(q[j])) - sign;
        let mut sign = sign;
        let mut inertia = joint.armature;
        for d in &model.coupled {
            let r2 = d.row[j] * d.row[j];
            let friction = d.friction.as_ref();
            let drive_sign = friction.map_or(0.0, |f| f.sign_slope_at_rest());
            let at_rest = friction.map_or(0.0, |f| f.slope_at_rest(0.0));
            slope += r2 * (d.damping + at_rest - drive_sign);
            sign += r2 * drive_sign;
            inertia += r2 * d.armature;
        }
        let servo = servo(j);
        let stiffness = servo.map_or(0.0, |s| s.kp);
        slope += servo.map_or(0.0, |s| s.kd);
        if slope <= 0.0 && sign <= 0.0 && stiffness <= 0.0 {
            continue;
        }
        unit[j] = 1.0;
        let tau = crate::dynamics::rnea(chain, q, &zero, &unit, &Vector3::zeros()).tau;
        unit[j] = 0.0;
        let inertia = tau[j] + inertia;
        if slope > 0.0 {
            step = step.min(STIFF_FRACTION * inertia / slope);
        }
        if sign > 0.0 {
            step = step.min(SIGN_FRACTION * inertia / sign);
        }
        if stiffness > 0.0 {
            step = step.min(STIFF_FRACTION.sqrt() * (inertia / stiffness).sqrt());
        }
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::friction::Friction;

    /// Joint 2 of `link2`'s inertia at `q` (kg·m²), with its armature.
    fn inertia(model: &Model, q: &[f64]) -> f64 {
        let unit = [0.0, 1.0];
        let tau = crate::dynamics::rnea(&model.chain, q, &[0.0; 2], &unit, &Vector3::zeros()).tau;
        tau[1] + model.chain.links[1].joint.armature
    }

    #[test]
    fn a_smoothed_sign_asks_for_its_own_fraction_and_damping_for_one_percent() {
        let q = [0.3, 0.2];
        let mut model = Model::from(crate::model::reference::link2());
        for link in &mut model.chain.links {
            (link.joint.damping, link.joint.friction) = (0.0, None);
        }
        assert_eq!(stiffest_step(&model, &q, |_| None), f64::INFINITY);
        let i = inertia(&model, &q);
        let (coulomb, smoothing) = (0.4, 0.01);
        model.chain.links[1].joint.friction = Some(Friction::CoulombViscous {
            coulomb,
            viscous: 0.0,
            smoothing,
        });
        let sign = SIGN_FRACTION * i / (coulomb / smoothing);
        let h = stiffest_step(&model, &q, |_| None);
        assert!((h / sign - 1.0).abs() < 1e-6, "{h} against {sign}");
        // Damping as steep as the sign's slope is held to 1 % of it: 50 times finer.
        model.chain.links[1].joint.damping = coulomb / smoothing;
        let damped = STIFF_FRACTION * i / (coulomb / smoothing);
        let h = stiffest_step(&model, &q, |_| None);
        assert!((h / damped - 1.0).abs() < 1e-6, "{h} against {damped}");
        assert!((sign / damped - SIGN_FRACTION / STIFF_FRACTION).abs() < 1e-9);
    }
}
