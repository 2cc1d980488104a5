//! What an estimator is given: one or several runs of one arm, each with the role it plays in
//! the identification experiment.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use sim::reading::Measurements;

/// The role of a run in an experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// A run on its own (MIM, NIM, the multisine estimators).
    Single,
    /// A slow forward/backward sweep of one joint (friction and gravity).
    Sweep,
    /// The identification (excitation) trajectory.
    Excitation,
    /// A separate trajectory on which an identified torque model is scored.
    Validation,
}

impl Role {
    /// Every role, in order.
    pub const ALL: [Role; 4] = [
        Role::Single,
        Role::Sweep,
        Role::Excitation,
        Role::Validation,
    ];

    /// Its name on the command line (`sweep=DIR`).
    pub fn name(self) -> &'static str {
        match self {
            Role::Single => "single",
            Role::Sweep => "sweep",
            Role::Excitation => "excitation",
            Role::Validation => "validation",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Role {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Role::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| crate::Error::Invalid {
                what: format!("role `{s}`"),
                expected: "single, sweep, excitation or validation".into(),
            })
    }
}

/// Results computed from an experiment's runs alone, by type, shared by the estimators that
/// need them.
type Derived = Arc<Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>;

/// The runs of one experiment on one arm, each with its role (borrowed: a Monte-Carlo study
/// hands the same runs to many estimators), and what estimators derive from them alone and
/// share ([`Experiment::derived`]: the teaching pipeline's sweep analysis, which five of its
/// identifiers build on).
#[derive(Clone)]
pub struct Experiment<'a> {
    runs: Vec<(Role, &'a Measurements)>,
    derived: Derived,
}

impl fmt::Debug for Experiment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Experiment")
            .field("runs", &self.id())
            .finish()
    }
}

impl<'a> Experiment<'a> {
    /// One run on its own.
    pub fn single(run: &'a Measurements) -> Self {
        Self::new(vec![(Role::Single, run)])
    }

    /// Runs with roles.
    pub fn new(runs: Vec<(Role, &'a Measurements)>) -> Self {
        Experiment {
            runs,
            derived: Derived::default(),
        }
    }

    /// Every run with its role.
    pub fn runs(&self) -> &[(Role, &'a Measurements)] {
        &self.runs
    }

    /// The runs of one role, in order.
    pub fn with_role(&self, role: Role) -> Vec<&'a Measurements> {
        self.runs
            .iter()
            .filter(|(r, _)| *r == role)
            .map(|(_, m)| *m)
            .collect()
    }

    /// The first run of a role.
    pub fn first(&self, role: Role) -> Option<&'a Measurements> {
        self.with_role(role).into_iter().next()
    }

    /// The value of type `T` derived from the runs alone: computed by `compute` for the first
    /// estimator that asks, shared with the next (clones of the experiment share it too). Only
    /// for results that depend on nothing but the runs: one value per type.
    pub fn derived<T: Any + Send + Sync>(&self, compute: impl FnOnce() -> T) -> Arc<T> {
        let mut map = self.derived.lock().unwrap_or_else(|e| e.into_inner());
        let value = map
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(compute()))
            .clone();
        value.downcast().expect("stored under its own type")
    }

    /// The first joint (dataset id) of some run that logs no torque: a servo arm's joint whose
    /// log holds its commands only (its torque and current NaN, `sim::dataset::recorded`).
    pub fn torque_less_joint(&self) -> Option<u8> {
        let missing = |j: &sim::reading::JointSeries| {
            let read = |c| j.measured_or_clean(c).iter().any(|v: &f64| v.is_nan());
            read(sim::recording::JointColumn::Tau) && read(sim::recording::JointColumn::Current)
        };
        (self.runs.iter())
            .flat_map(|(_, m)| m.joints.iter())
            .find(|j| missing(j))
            .map(|j| j.id)
    }

    /// A name for the experiment: its single run's id, or the ids joined with `+`.
    pub fn id(&self) -> String {
        let ids: Vec<&str> = self.runs.iter().map(|(_, m)| m.run_id.as_str()).collect();
        ids.join("+")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_derived_value_is_computed_once_and_shared_by_clones() {
        let experiment = Experiment::new(vec![]);
        let calls = AtomicUsize::new(0);
        let compute = || {
            calls.fetch_add(1, Ordering::SeqCst);
            7u32
        };
        assert_eq!(*experiment.derived(compute), 7);
        assert_eq!(*experiment.clone().derived(compute), 7);
        assert_eq!(*experiment.derived(|| 2.5f64), 2.5);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Another experiment derives its own.
        assert_eq!(*Experiment::new(vec![]).derived(|| 8u32), 8);
    }
}
