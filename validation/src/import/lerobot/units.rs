//! A LeRobot value to the joint's radians ([`sim::dataset::recorded::LeRobotReading`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sim::dataset::recorded::{LeRobotReading, LeRobotUnits};

use crate::import::ImportError;

/// One motor of LeRobot's calibration file (ticks).
#[derive(Clone, Copy, Debug, Deserialize)]
struct Motor {
    drive_mode: u8,
    range_min: f64,
    range_max: f64,
}

/// How each joint's values become radians.
#[derive(Clone, Debug)]
pub struct Units {
    reading: LeRobotReading,
    calibration: Option<(PathBuf, BTreeMap<String, Motor>)>,
    /// Where the unit was stated (the configuration file), for errors.
    config: PathBuf,
}

impl Units {
    /// The configuration's `[lerobot]` section (`config` its file, for errors and the
    /// calibration's relative path), its calibration read where the units need one.
    pub fn new(reading: Option<&LeRobotReading>, config: &Path) -> Result<Self, ImportError> {
        let field = |field: &str, problem: &str| ImportError::Field {
            file: config.to_owned(),
            field: field.into(),
            problem: problem.into(),
        };
        let reading = reading.cloned().ok_or_else(|| {
            field(
                "lerobot.units",
                "missing: a LeRobot dataset does not state its unit; expected `[lerobot] units = \
                 \"degrees\"`, \"radians\" or \"range_m100_100\" in the recording configuration \
                 (--config)",
            )
        })?;
        if !(reading.resolution >= 2.0 && reading.resolution.is_finite()) {
            return Err(field(
                "lerobot.resolution",
                "expected the encoder's ticks per turn (4096)",
            ));
        }
        let calibration = match (&reading.calibration, reading.units) {
            (Some(file), _) => {
                let file = config.parent().unwrap_or(Path::new(".")).join(file);
                Some((file.clone(), read_calibration(&file)?))
            }
            (None, LeRobotUnits::RangeM100To100) => {
                return Err(field(
                    "lerobot.calibration",
                    "missing: range_m100_100 needs the arm's LeRobot calibration file (JSON with \
                     range_min, range_max and drive_mode per motor)",
                ));
            }
            (None, _) => None,
        };
        Ok(Units {
            reading,
            calibration,
            config: config.to_owned(),
        })
    }

    /// `values` of `joint` (LeRobot's motor name) in radians.
    pub fn to_radians(&self, joint: &str, values: &mut [f64]) -> Result<(), ImportError> {
        let ticks = self.reading.resolution;
        let scale = match self.reading.units {
            LeRobotUnits::Radians => 1.0,
            LeRobotUnits::Degrees => LeRobotReading::radians_per_degree(ticks),
            LeRobotUnits::RangeM100To100 => {
                let (file, motors) = self.calibration.as_ref().expect("checked in new");
                let m = motors.get(joint).ok_or_else(|| ImportError::Field {
                    file: file.clone(),
                    field: joint.into(),
                    problem: "missing: the dataset has this motor; expected its range_min, \
                              range_max and drive_mode"
                        .into(),
                })?;
                let sign = if m.drive_mode == 1 { -1.0 } else { 1.0 };
                sign * (m.range_max - m.range_min) / 200.0 * std::f64::consts::TAU / ticks
            }
        };
        values.iter_mut().for_each(|v| *v *= scale);
        Ok(())
    }

    /// The configuration file that stated the units.
    pub fn config(&self) -> &Path {
        &self.config
    }
}

fn read_calibration(file: &Path) -> Result<BTreeMap<String, Motor>, ImportError> {
    let text = std::fs::read_to_string(file).map_err(|source| ImportError::Io {
        file: file.to_owned(),
        source,
    })?;
    let motors: BTreeMap<String, Motor> =
        serde_json::from_str(&text).map_err(|e| ImportError::Format {
            file: file.to_owned(),
            message: format!(
                "{e} (expected LeRobot's calibration: {{\"<motor>\": {{\"id\", \"drive_mode\", \
                 \"homing_offset\", \"range_min\", \"range_max\"}}, …}})"
            ),
        })?;
    for (name, m) in &motors {
        if m.range_max <= m.range_min || m.drive_mode > 1 {
            return Err(ImportError::Field {
                file: file.to_owned(),
                field: name.clone(),
                problem: format!(
                    "expected range_min < range_max and drive_mode 0 or 1, got {} … {} and {}",
                    m.range_min, m.range_max, m.drive_mode
                ),
            });
        }
    }
    Ok(motors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LeRobot's normalizations undone: degrees over its 4095-tick degree, −100…100 over the
    /// calibrated range with `drive_mode` flipping the sign, radians as they are.
    #[test]
    fn lerobot_values_turn_into_radians() {
        let dir = std::env::temp_dir().join(format!("lerobot-units-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("arm.toml");
        std::fs::write(
            dir.join("cal.json"),
            r#"{"a": {"id": 1, "drive_mode": 1, "homing_offset": 7, "range_min": 1000,
                "range_max": 3000}, "b": {"id": 2, "drive_mode": 0, "homing_offset": 0,
                "range_min": 0, "range_max": 4095}}"#,
        )
        .unwrap();
        let reading = |units| LeRobotReading {
            units,
            calibration: Some(PathBuf::from("cal.json")),
            resolution: 4096.0,
        };
        let convert = |units, joint: &str, v: f64| {
            let mut x = [v];
            Units::new(Some(&reading(units)), &config)
                .unwrap()
                .to_radians(joint, &mut x)
                .unwrap();
            x[0]
        };
        let tick = std::f64::consts::TAU / 4096.0;
        // 90 LeRobot degrees are 90 · 4095/360 ticks from the middle.
        let degrees = convert(LeRobotUnits::Degrees, "a", 90.0);
        assert!((degrees - 90.0 * 4095.0 / 360.0 * tick).abs() < 1e-12);
        // 50 % of the half range: 500 ticks, the sign flipped by drive_mode 1.
        let range = convert(LeRobotUnits::RangeM100To100, "a", 50.0);
        assert!((range + 500.0 * tick).abs() < 1e-12, "{range}");
        let range = convert(LeRobotUnits::RangeM100To100, "b", -100.0);
        assert!((range + 2047.5 * tick).abs() < 1e-12, "{range}");
        assert_eq!(convert(LeRobotUnits::Radians, "a", 0.25), 0.25);
        let mut x = [1.0];
        let e = (Units::new(Some(&reading(LeRobotUnits::RangeM100To100)), &config).unwrap())
            .to_radians("c", &mut x)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cal.json") && e.contains("`c`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
