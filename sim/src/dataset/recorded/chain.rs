//! The record of the signal chain in a recorded run's manifest: the low-pass asked for and what
//! the importer's chain (`validation::signal`) did. The chain's computation lives with the
//! importer; this module holds only the record, which the run directory keeps.

use serde::{Deserialize, Serialize};

use super::config::ConfigError;

/// The low-pass stage as asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Lowpass {
    /// No filter: the samples as given (simulated runs, data filtered upstream).
    None,
    /// A Butterworth filter of stated order and cut-off (Hz), run forward and backward.
    Butterworth {
        /// Order of one pass.
        order: usize,
        /// −3 dB cut-off of one pass (Hz).
        cutoff: f64,
    },
    /// A Butterworth filter of stated order, its cut-off chosen from the spectrum of the
    /// joint angles ([`SpectrumChoice`]).
    Auto {
        /// Order of one pass.
        order: usize,
    },
}

impl std::str::FromStr for Lowpass {
    type Err = ConfigError;

    /// `none`, `auto` (order 4), `auto:ORDER`, or `ORDER:CUTOFF_HZ` (e.g. `4:10`).
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let bad = || ConfigError::Field {
            file: "command line".into(),
            field: "low-pass".into(),
            problem: format!(
                "`{s}`: expected `none`, `auto`, `auto:ORDER` or `ORDER:CUTOFF_HZ` (e.g. `4:10`)"
            ),
        };
        match s.split_once(':') {
            None if s == "none" => Ok(Lowpass::None),
            None if s == "auto" => Ok(Lowpass::Auto { order: 4 }),
            Some(("auto", o)) => Ok(Lowpass::Auto {
                order: o.parse().map_err(|_| bad())?,
            }),
            Some((o, c)) => Ok(Lowpass::Butterworth {
                order: o.parse().map_err(|_| bad())?,
                cutoff: c.parse().map_err(|_| bad())?,
            }),
            None => Err(bad()),
        }
    }
}

/// What the spectrum gave, where the cut-off was chosen from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpectrumChoice {
    /// The chosen cut-off (Hz).
    pub cutoff: f64,
    /// Each series' signal edge (Hz).
    pub edges: Vec<f64>,
}

/// What the chain did to a run (written in its manifest).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// Sample interval of the uniform grid (s).
    pub period: f64,
    /// Whether the stamps were irregular and every column was interpolated onto the grid.
    pub resampled: bool,
    /// The low-pass stage as asked for.
    pub lowpass: Lowpass,
    /// The filter applied to the kinematics: `(order, cut-off Hz)` of one pass; `None`: none.
    pub filter: Option<(usize, f64)>,
    /// Where the cut-off came from the spectrum: the edges found and the choice.
    pub spectrum: Option<SpectrumChoice>,
    /// Samples at each end within the filter's end transient (0 without a filter), which
    /// estimators leave out.
    pub settling: usize,
    /// How the derivatives were formed.
    pub derivatives: String,
    /// What was done to the torques.
    pub torque: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowpass_specs_parse() {
        assert_eq!("none".parse::<Lowpass>().unwrap(), Lowpass::None);
        assert_eq!(
            "auto".parse::<Lowpass>().unwrap(),
            Lowpass::Auto { order: 4 }
        );
        assert_eq!(
            "auto:2".parse::<Lowpass>().unwrap(),
            Lowpass::Auto { order: 2 }
        );
        assert_eq!(
            "2:12.5".parse::<Lowpass>().unwrap(),
            Lowpass::Butterworth {
                order: 2,
                cutoff: 12.5
            }
        );
        for wrong in ["fast", "auto:x", "4:y", "x:10"] {
            let e = wrong.parse::<Lowpass>().unwrap_err().to_string();
            assert!(e.contains("ORDER:CUTOFF_HZ") && e.contains(wrong), "{e}");
        }
    }
}
