//! The state friction carries from step to step: LuGre's bristle deflection (`sim::friction::
//! Lugre`) and each joint's constraint load for load-proportional friction
//! (`sim::friction::LoadFriction`).

use super::Simulation;
use super::buffers::StepBuffers;
use crate::drive::Drive;
use crate::dynamics;
use crate::model::JointKind;

impl Simulation<'_> {
    /// Sets every joint's constraint load for the step that starts now, from the inverse
    /// dynamics at the joint state now with the accelerations of the step just taken from the
    /// rates `qd_before` at its start (`None`: before the first step, accelerations 0), a
    /// prescribed joint's its profile's (`sim::friction::LoadFriction`); in `b`'s joint-state,
    /// acceleration and RNEA buffers.
    pub(super) fn update_constraint_loads(
        &mut self,
        qd_before: Option<&[f64]>,
        b: &mut StepBuffers,
    ) {
        if !self.constraint_loads {
            return;
        }
        let (dt, t) = (self.scenario.dt(), self.time(self.step));
        self.joint_state_into(&mut b.load_q, &mut b.load_qd);
        let (qd, qdd) = (&mut b.load_qd, &mut b.load_qdd);
        qdd.clear();
        qdd.resize(qd.len(), 0.0);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            match (&d.drive, qd_before) {
                (Drive::Motion(p), _) => (qd[j], qdd[j]) = (p.eval(t).qd, p.eval(t).qdd),
                _ if self.kinematic[j] => qd[j] = 0.0,
                (_, Some(before)) => qdd[j] = (qd[j] - before[j]) / dt,
                (_, None) => {}
            }
        }
        let g = self.chain().gravity_vector();
        dynamics::rnea_into(self.chain(), &b.load_q, qd, qdd, &g, &mut b.rnea);
        for (j, d) in self.scenario.drives.iter().enumerate() {
            if d.terms.need_constraint_load() {
                let k = j - self.offset;
                let kind = self.chain().links[k].joint.kind;
                let sliding =
                    (kind == JointKind::Prismatic).then_some(&b.rnea.bodies[k].joint_axis);
                self.constraint_load[j] =
                    crate::friction::constraint_load(&b.rnea.wrenches[k].force, sliding);
            }
        }
    }

    /// Advances every joint's friction state over the step from `t` that has just been taken,
    /// at the step's mean rate: the mean of its start and end rates `qd`, `qd_after` (a
    /// prescribed joint's: its profile's at the step's midpoint).
    pub(super) fn advance_friction_state(&mut self, t: f64, qd: &[f64], qd_after: &[f64]) {
        let dt = self.scenario.dt();
        for (j, d) in self.scenario.drives.iter().enumerate() {
            let Some(f) = d.friction.as_ref().filter(|f| f.has_state()) else {
                continue;
            };
            let rate = match &d.drive {
                Drive::Motion(p) => p.eval(t + 0.5 * dt).qd,
                _ => 0.5 * (qd[j] + qd_after[j]),
            };
            self.bristle[j] = f.advance(self.bristle[j], rate, dt);
        }
    }
}
