//! Joint elasticity (`[[joint]] spring = { stiffness, damping }`, with `rotor = { inertia,
//! gear_ratio }`): the motor's rotor is a body of its own behind a torsional spring and damper
//! in the gear, the flexible-joint model of Spong (1987), as in harmonic drives. With
//! `θ` the motor's angle in joint units (motor angle over the gear ratio), `J = J_m G²` the
//! rotor's inertia reflected to the joint and `u` the motor's torque in joint units:
//!
//! `J θ̈ = u − τ_s`, `τ_s = k (θ − q) + d (θ̇ − q̇)`, and the link receives `τ_s`.
//!
//! `k` in N·m/rad (N/m), `d` in N·m·s/rad (N·s/m). The link side stays Rapier's multibody: the
//! spring's torque, from the state at the start of each step, is the joint's load over the step
//! (explicit coupling, stable while `h² k (1/J + 1/M_jj) < 4`). The motor side is integrated
//! here after Rapier's step, by implicit Euler against the link's state at the step's end, which
//! is stable for any stiffness: `θ̇' (J/h + d + k h) = J θ̇/h + u − k (θ − q') + d q̇'`,
//! `θ' = θ + h θ̇'`. The rotor no longer adds its inertia to the link (no armature): it is the
//! second body. Friction stays on the link side.
//!
//! Servos read the motor side (`θ, θ̇`: the motor encoder, what industrial drives close their
//! loops on); the run starts with the spring holding the link's static load, `θ(0) = q(0) +
//! RNEA(q, q̇, 0)_j / k`, `θ̇(0) = q̇(0)`. Recorded: `tau` is the spring's torque (what reaches the
//! link: the contract `RNEA = tau + tau_friction` holds), the current measures the motor
//! (`K i = u = τ_s + J θ̈`), and `joints.parquet` gains `q_motor`, `qd_motor` (`θ, θ̇`).
//!
//! **Backlash** (`spring = { …, backlash = b }`, rad or m, default 0): the gear's teeth have a
//! play of total width `b`, the dead-zone model of backlash (Nordin & Gutman, "Controlling
//! mechanical systems with backlash — a survey", Automatica 38, 2002): with the deflection
//! `δ = θ − q` and `β = b/2`, the gear passes nothing while `|δ| ≤ β` and, in contact,
//! `τ_s = k (δ ∓ β) + d (θ̇ − q̇)` (the damper acts only in contact). The motor side's implicit
//! step is solved piecewise: the free rotor's step if it ends inside the play, else the
//! contact step on the side it ended on. The run starts in contact on the side the static
//! load presses (`θ(0) = q(0) + sign(load) β + load / k`). A stiff spring with backlash is a
//! rigid gear with play.

use serde::{Deserialize, Serialize};

use crate::param::{ParamError, non_negative, positive};

/// A torsional spring and damper between a joint's rotor and its link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Stiffness `k` (N·m/rad; N/m on a prismatic joint).
    pub stiffness: f64,
    /// Damping `d` (N·m·s/rad; N·s/m), default 0; it acts while the teeth are in contact.
    #[serde(default)]
    pub damping: f64,
    /// Backlash: the total width `b` of the gear's play (rad; m), default 0 (none).
    #[serde(default)]
    pub backlash: f64,
}

/// The motor side of an elastic joint: its state `(θ, θ̇)` in joint units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MotorSide {
    /// Motor angle over the gear ratio `θ` (rad or m).
    pub position: f64,
    /// Its rate `θ̇`.
    pub velocity: f64,
}

impl Spring {
    /// Checks the parameters; `Err` names the offending field and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("stiffness", self.stiffness, "spring stiffness in N·m/rad")?;
        non_negative("damping", self.damping)?;
        non_negative("backlash", self.backlash)
    }

    /// Half the play, `β = b/2`.
    fn half_play(&self) -> f64 {
        0.5 * self.backlash
    }

    /// Which flank is in contact at the deflection `δ = θ − q`: `+1` (the motor leads), `−1`
    /// (it trails), `0` inside the play.
    pub fn contact(&self, deflection: f64) -> f64 {
        let beta = self.half_play();
        if deflection > beta {
            1.0
        } else if deflection < -beta {
            -1.0
        } else {
            0.0
        }
    }

    /// The torque `τ_s` the spring passes to the link at the motor state `m` and the link state
    /// `(q, q̇)`: zero inside the play.
    pub fn torque(&self, m: MotorSide, q: f64, qd: f64) -> f64 {
        let deflection = m.position - q;
        let side = self.contact(deflection);
        if side == 0.0 {
            return 0.0;
        }
        self.stiffness * (deflection - side * self.half_play()) + self.damping * (m.velocity - qd)
    }

    /// The motor side after a step `h` under the motor torque `u` held over it, against the
    /// link's state `(q, q̇)` at the step's end (implicit Euler; `inertia` is `J = J_m G²`).
    pub fn advance(
        &self,
        m: MotorSide,
        inertia: f64,
        u: f64,
        q: f64,
        qd: f64,
        h: f64,
    ) -> MotorSide {
        let free = m.velocity + h * u / inertia;
        let side = self.contact(m.position + h * free - q);
        let velocity = if side == 0.0 {
            free
        } else {
            let (k, d) = (self.stiffness, self.damping);
            let gap = m.position - q - side * self.half_play();
            (inertia * m.velocity / h + u - k * gap + d * qd) / (inertia / h + d + k * h)
        };
        MotorSide {
            position: m.position + h * velocity,
            velocity,
        }
    }

    /// The motor side that holds a link at `(q, q̇)` against the static load `load` (N·m), in
    /// contact on the flank the load presses (the leading one if there is no load).
    pub fn preloaded(&self, q: f64, qd: f64, load: f64) -> MotorSide {
        let side = if load < 0.0 { -1.0 } else { 1.0 };
        MotorSide {
            position: q + side * self.half_play() + load / self.stiffness,
            velocity: qd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rotor on a spring against a held link (q = 0): the implicit Euler steps settle where
    /// the spring carries the motor torque, `θ = u / k`, and never grow, even for `h² k / J ≫ 4`.
    #[test]
    fn a_held_link_settles_the_rotor_where_the_spring_carries_the_motor() {
        let s = Spring {
            stiffness: 1e6,
            damping: 10.0,
            backlash: 0.0,
        };
        let mut m = MotorSide::default();
        for _ in 0..20_000 {
            m = s.advance(m, 1e-3, 2.0, 0.0, 0.0, 1e-3);
            assert!(m.position.abs() < 1.0);
        }
        assert!((m.position - 2e-6).abs() < 1e-12, "{}", m.position);
    }
}
