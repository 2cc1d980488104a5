//! The sensors' view of a run: each column replaced by its measured copy where it has one.

use crate::recording::BodyGroup;
use nalgebra::Vector3;

use super::{BodySeries, JointSeries, Measurements};

impl BodySeries {
    /// The series of `group` as the run's sensors gave it: its measured copy where there is one,
    /// else the clean column (`ImuSf` has no clean column: empty where no IMU was measured).
    pub fn measured_or_clean(&self, group: BodyGroup) -> &[Vector3<f64>] {
        if let Some(m) = self.measured.get(&group) {
            return m;
        }
        match group {
            BodyGroup::Pos => &self.pos,
            BodyGroup::Euler => &self.euler,
            BodyGroup::EulerD => &self.euler_d,
            BodyGroup::EulerDd => &self.euler_dd,
            BodyGroup::Vel => &self.vel,
            BodyGroup::Acc => &self.acc,
            BodyGroup::Omega => &self.omega,
            BodyGroup::OmegaDot => &self.omega_dot,
            BodyGroup::F => &self.force,
            BodyGroup::N => &self.moment,
            BodyGroup::ImuSf => &[],
        }
    }

    fn sensed(&self) -> BodySeries {
        let get = |g| self.measured_or_clean(g).to_vec();
        BodySeries {
            pos: get(BodyGroup::Pos),
            quat: self.quat.clone(),
            euler: get(BodyGroup::Euler),
            euler_d: get(BodyGroup::EulerD),
            euler_dd: get(BodyGroup::EulerDd),
            vel: get(BodyGroup::Vel),
            acc: get(BodyGroup::Acc),
            omega: get(BodyGroup::Omega),
            omega_dot: get(BodyGroup::OmegaDot),
            force: get(BodyGroup::F),
            moment: get(BodyGroup::N),
            joint_point: self.joint_point.clone(),
            measured: self.measured.clone(),
        }
    }
}

impl JointSeries {
    fn sensed(&self) -> JointSeries {
        let get = |c| self.measured_or_clean(c).to_vec();
        use crate::recording::JointColumn::{Current, Q, Qd, Qdd, Tau};
        JointSeries {
            q: get(Q),
            qd: get(Qd),
            qdd: get(Qdd),
            tau: get(Tau),
            current: get(Current),
            ..self.clone()
        }
    }
}

impl Measurements {
    /// The ideal sensors' view: every measured copy dropped, so that `measured_or_clean` gives
    /// the clean columns ([`super::Run::clean`]).
    pub fn ideal(mut self) -> Measurements {
        for j in &mut self.joints {
            j.measured.clear();
        }
        for b in &mut self.bodies {
            b.measured.clear();
        }
        self
    }

    /// What the sensors give: every body group and joint column replaced by its measured copy
    /// where the run has one (the `measured` maps are kept, so an estimator can still tell
    /// which columns are measured). Columns without a copy are ideal sensors. The quaternion,
    /// the joint points `o` and `tau_friction` have no measured copies.
    pub fn sensed(&self) -> Measurements {
        Measurements {
            bodies: self.bodies.iter().map(BodySeries::sensed).collect(),
            joints: self.joints.iter().map(JointSeries::sensed).collect(),
            ..self.clone()
        }
    }
}
