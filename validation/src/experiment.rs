//! What an estimator is given: one or several runs of one arm, each with the role it plays in
//! the identification experiment.

use std::fmt;
use std::str::FromStr;

use crate::dataset::Measurements;

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
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Role::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("role `{s}`: expected single, sweep, excitation or validation"))
    }
}

/// The runs of one experiment on one arm, each with its role (borrowed: a Monte-Carlo study
/// hands the same runs to many estimators).
#[derive(Clone, Debug)]
pub struct Experiment<'a> {
    runs: Vec<(Role, &'a Measurements)>,
}

impl<'a> Experiment<'a> {
    /// One run on its own.
    pub fn single(run: &'a Measurements) -> Self {
        Experiment {
            runs: vec![(Role::Single, run)],
        }
    }

    /// Runs with roles.
    pub fn new(runs: Vec<(Role, &'a Measurements)>) -> Self {
        Experiment { runs }
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

    /// A name for the experiment: its single run's id, or the ids joined with `+`.
    pub fn id(&self) -> String {
        let ids: Vec<&str> = self.runs.iter().map(|(_, m)| m.run_id.as_str()).collect();
        ids.join("+")
    }
}
