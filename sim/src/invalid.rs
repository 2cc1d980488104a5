//! The verdict on a run that failed a validity gate ([`crate::validity`] decides it): which
//! gate, where, when and by how much. A leaf type, so that the writers and readers of run
//! directories can carry it without depending on the gates.

use serde::{Deserialize, Serialize};

/// Which gate failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// A NaN or infinite value.
    NonFinite,
    /// The recorded forces disagree with the inverse dynamics of the recorded motion.
    InverseDynamics,
    /// A prescribed joint left its profile.
    Tracking,
    /// World positions too far out for `f64` to resolve the model.
    Precision,
    /// The engine's step does not resolve the motion.
    Integration,
    /// A run that must end at steady state does not.
    SteadyState,
    /// The readings cannot be evaluated at the engine's state.
    Dynamics,
    /// A body's recorded wrenches and motion break the Newton–Euler equations.
    NewtonEuler,
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Gate::NonFinite => "non_finite",
            Gate::InverseDynamics => "inverse_dynamics",
            Gate::Tracking => "tracking",
            Gate::Precision => "precision",
            Gate::Integration => "integration",
            Gate::SteadyState => "steady_state",
            Gate::Dynamics => "dynamics",
            Gate::NewtonEuler => "newton_euler",
        })
    }
}

/// The first failed gate of a run: where, when, by how much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(deny_unknown_fields)]
pub struct Invalid {
    /// Run id.
    pub run: String,
    /// The gate.
    pub gate: Gate,
    /// The joint (`joint 2 (O2)`) or body column (`body 3 f`); for `dynamics`, why the
    /// readings cannot be evaluated.
    pub place: String,
    /// First bad sample.
    pub sample: usize,
    /// Its time (s).
    pub time: f64,
    /// The offending value (the residual, the error, or the non-finite value itself; JSON
    /// writes a non-finite one as the string `NaN`, `inf` or `-inf`).
    #[serde(with = "lossless")]
    pub value: f64,
    /// The gate's tolerance (0 for `non_finite`).
    pub tolerance: f64,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (run, gate, sample, time) = (&self.run, self.gate, self.sample, self.time);
        if gate == Gate::Dynamics {
            return write!(
                f,
                "run `{run}` is invalid: check `{gate}` failed at sample {sample} (t = {time} s): \
                 {}; the run stops there",
                self.place
            );
        }
        write!(
            f,
            "run `{run}` is invalid: check `{gate}` failed at {}, sample {sample} (t = {time} s): ",
            self.place
        )?;
        match gate {
            Gate::NonFinite => write!(f, "the value is {}", self.value),
            _ => write!(f, "{:e} > tolerance {:e}", self.value, self.tolerance),
        }
    }
}

/// A float in JSON whatever its value: finite ones as numbers, the others as strings.
mod lossless {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            Repr::Number(*v)
        } else {
            Repr::Text(v.to_string())
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}
