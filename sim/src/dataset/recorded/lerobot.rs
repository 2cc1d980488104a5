//! How a LeRobot dataset's joint values read: the `[lerobot]` section of a recording's
//! configuration ([`super::Config`]).
//!
//! A LeRobot dataset stores what its motor bus hands it (`observation.state`, `action`), in a
//! unit the dataset does not state: the robot's `use_degrees` and norm modes chose it when it was
//! recorded. The configuration states it:
//!
//! ```toml
//! [lerobot]
//! units = "degrees"            # degrees | radians | range_m100_100
//! calibration = "so101.json"   # LeRobot's calibration file of the arm (range_m100_100 only)
//! resolution = 4096            # encoder ticks per turn (Feetech STS3215, Dynamixel XL330)
//! ```
//!
//! * `degrees`: LeRobot's `(ticks − mid) · 360 / (resolution − 1)`, `mid` the middle of the
//!   calibrated range. LeRobot divides by the largest tick, not the ticks per turn, so its degree
//!   is `360/4095` of a tick's `360/4096`: read as it is meant, a LeRobot degree is
//!   `(resolution − 1)/resolution` of a true one (2.4e-4 short at 4096), and the import turns the
//!   value back into ticks, then into radians: `rad = v · (resolution − 1)/resolution · π/180`.
//! * `range_m100_100`: −100 … 100 over the calibrated range `[range_min, range_max]` (ticks),
//!   sign flipped where the calibration's `drive_mode` is 1: `rad = ±v/100 · (range_max −
//!   range_min)/2 · 2π/resolution`.
//! * `radians`: as they are.
//!
//! Either way the zero is the middle of the calibrated range (LeRobot's), which is where
//! MuJoCo Menagerie's SO-100/SO-101 models have theirs; an arm whose model puts it elsewhere
//! states the difference in `[offset]`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The `[lerobot]` section (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeRobotReading {
    /// The unit of `observation.state` and `action`.
    pub units: LeRobotUnits,
    /// LeRobot's calibration file (JSON; relative to the configuration file), which
    /// `range_m100_100` needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<PathBuf>,
    /// Encoder ticks per turn.
    #[serde(default = "ticks_per_turn")]
    pub resolution: f64,
}

/// The units a LeRobot dataset's joint values may be in (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeRobotUnits {
    /// LeRobot's degrees about the middle of the calibrated range.
    Degrees,
    /// Radians.
    Radians,
    /// −100 … 100 over the calibrated range.
    #[serde(rename = "range_m100_100")]
    RangeM100To100,
}

impl LeRobotReading {
    /// Radians per LeRobot degree at `resolution` ticks per turn: `(resolution − 1)/resolution ·
    /// π/180` (module docs), what the import multiplies by and the export divides by.
    pub fn radians_per_degree(resolution: f64) -> f64 {
        (resolution - 1.0) / resolution * std::f64::consts::PI / 180.0
    }
}

/// 4096 ticks per turn: the Feetech STS3215 of the SO-100/SO-101, the Dynamixel XL330 of Koch.
fn ticks_per_turn() -> f64 {
    4096.0
}
