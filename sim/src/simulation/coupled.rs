//! Coupled drives ([`crate::drive_train::CoupledDrive`], [`crate::scenario::Scenario::coupled`])
//! on the simulated arm.
//!
//! A drive turning joints at `v = r·q̇` loads joint `j` with `−r_j (c v + τ_f(v))` and, through
//! its rotor, `−r_j I_a r·q̈`: the inertia matrix gains `I_a r rᵀ`. Rapier's multibody holds a
//! diagonal armature only, so the diagonal `I_a r_j²` is Rapier's (integrated implicitly, as
//! every rotor's) and the off-diagonal share `O` is applied as a load: `−O q̈*`, with `q̈*` the
//! arm's acceleration at the step's start under every load of the step, solved here from
//! `(M(q) + diag(armature) + O) q̈* = loads − h(q, q̇)` (`crate::dynamics::rnea` for `M` and
//! `h`). Rapier's step then starts at exactly `q̈*`; the load is held over the step as every
//! explicit load is (a lag of one step instead costs 14 % of the drift of an iiwa's wrist at
//! 1 ms: its rotor outweighs its link). The friction is evaluated at the step's start, as every
//! joint friction. The recorded columns are consistent with what was integrated:
//! `tau_friction` holds the drives' friction, `tau` (what reaches the link) the applied torque
//! less the drives' inertial share, so that `RNEA = tau + tau_friction` holds.

use ::nalgebra::{DMatrix, DVector, Vector3};

use super::Simulation;
use crate::dynamics;

impl Simulation<'_> {
    /// Each joint's share of the coupled drives' rotor inertia on Rapier's diagonal:
    /// `Σ_m I_a,m r_m,j²`.
    pub(super) fn coupled_diagonal(scenario: &crate::scenario::Scenario) -> Vec<f64> {
        (0..scenario.drives.len())
            .map(|j| {
                (scenario.coupled.iter())
                    .map(|d| d.armature * d.row[j] * d.row[j])
                    .sum()
            })
            .collect()
    }

    /// The coupled drives' friction load on joint `j` at joint rates `qd` (N·m or N; the force
    /// the joint feels).
    pub(super) fn coupled_friction(&self, j: usize, qd: &[f64]) -> f64 {
        (self.scenario.coupled.iter())
            .filter(|d| d.row[j] != 0.0)
            .map(|d| -d.row[j] * d.resistance(d.rate(qd)))
            .sum()
    }

    /// Adds the coupled drives' friction and off-diagonal inertial loads (module docs) to the
    /// step's `loads` at the state `(q, q̇)`, and keeps the inertial ones for the sample's
    /// record.
    pub(super) fn set_coupled_loads(&mut self, q: &[f64], qd: &[f64], loads: &mut [f64]) {
        let nj = q.len();
        for (j, load) in loads.iter_mut().enumerate() {
            *load += self.coupled_friction(j, qd);
        }
        let off = |j: usize, k: usize| -> f64 {
            (self.scenario.coupled.iter())
                .map(|d| d.armature * d.row[j] * d.row[k])
                .sum()
        };
        let chain = self.chain();
        let zero = vec![0.0; nj];
        let h = dynamics::rnea(chain, q, qd, &zero, &chain.gravity_vector()).tau;
        let mut unit = zero.clone();
        let mut m = DMatrix::zeros(nj, nj);
        for k in 0..nj {
            unit[k] = 1.0;
            let column = dynamics::rnea(chain, q, &zero, &unit, &Vector3::zeros()).tau;
            unit[k] = 0.0;
            for j in 0..nj {
                m[(j, k)] = column[j] + if j == k { self.armature[j] } else { off(j, k) };
            }
        }
        let rhs = DVector::from_iterator(nj, (0..nj).map(|j| loads[j] - h[j]));
        let Some(qdd) = m.cholesky().map(|c| c.solve(&rhs)) else {
            // No acceleration to share: the readings will say the inertia is not positive
            // definite at this state, and the run stops there.
            self.coupled_inertia.fill(0.0);
            return;
        };
        let shares: Vec<f64> = (0..nj)
            .map(|j| {
                (0..nj)
                    .filter(|&k| k != j)
                    .map(|k| off(j, k) * qdd[k])
                    .sum()
            })
            .collect();
        for ((load, inertia), share) in loads.iter_mut().zip(&mut self.coupled_inertia).zip(shares)
        {
            *inertia = -share;
            *load -= share;
        }
    }
}
