//! A joint motion played back from a recorded run ([`crate::dataset::recorded`]): the signal
//! chain's coordinate, rate and acceleration on the run's uniform grid, joined between grid
//! points by the quintic Hermite polynomial that matches `q, q̇, q̈` at both ends. So the motion
//! is twice continuously differentiable, passes through every recorded sample exactly, and its
//! rate and acceleration at a grid point are the recorded ones, whatever the integrator step.
//!
//! Time: the profile's `t = 0` is the recording's first grid time. Outside the grid's span the
//! first or last sample's state is held (a scenario is refused if it runs beyond the recording,
//! see [`crate::scenario`]; the hold only absorbs a last step's rounding).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::MotionState;

/// Recorded runs already read while checking one scenario, by directory: every joint of a
/// replay names the same run, which is read (and its checksums verified) once.
pub type Recordings = BTreeMap<
    PathBuf,
    Arc<(
        crate::dataset::recorded::Header,
        crate::dataset::recorded::RecordedTable,
    )>,
>;

/// `motion = { type = "recorded", run = "DIR", joint = j }`: joint `j` (dataset id, 1-based
/// along the chain) of the recorded run in `DIR` (relative to the scenario file's directory).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedMotion {
    /// The recorded run directory.
    pub run: PathBuf,
    /// The run's joint id whose motion is played.
    pub joint: u8,
    /// The series, once read ([`RecordedMotion::resolve`]); not part of the file.
    #[serde(skip)]
    pub series: Option<Arc<Series>>,
}

impl RecordedMotion {
    /// Reads the run (a relative `run` from `base`, the scenario file's directory; from `read`
    /// if it is there already) and checks that it has the joint and lasts at least `duration`
    /// seconds. `Err` holds the field (relative to the profile) and what was expected.
    pub fn resolve(
        &mut self,
        base: &Path,
        duration: f64,
        read: &mut Recordings,
    ) -> Result<(), crate::param::ParamError> {
        let dir = base.join(&self.run);
        let loaded = match read.get(&dir) {
            Some(loaded) => loaded.clone(),
            None => {
                let loaded = Arc::new(crate::dataset::recorded::read(&dir).map_err(|e| {
                    (
                        "run".to_string(),
                        format!("expected a recorded run directory: {e}"),
                    )
                })?);
                read.insert(dir.clone(), loaded.clone());
                loaded
            }
        };
        let (header, table) = (&loaded.0, &loaded.1);
        let joint = table
            .joints
            .iter()
            .find(|j| j.id == self.joint)
            .ok_or_else(|| {
                let ids: Vec<u8> = table.joints.iter().map(|j| j.id).collect();
                (
                    "joint".to_string(),
                    format!(
                        "expected one of the run's joints {ids:?}, got {}",
                        self.joint
                    ),
                )
            })?;
        let series = Series {
            period: header.signal.period,
            q: joint.q.clone(),
            qd: joint.qd.clone(),
            qdd: joint.qdd.clone(),
        };
        if series.period.is_nan() || series.period <= 0.0 || series.q.len() < 2 {
            return Err((
                "run".into(),
                format!(
                    "expected a grid of two samples or more and a positive period in `{}`",
                    dir.display()
                ),
            ));
        }
        if duration > series.duration() * (1.0 + 1e-9) {
            return Err((
                "run".into(),
                format!(
                    "expected a recording at least time.end = {duration} s long; `{}` lasts {} s",
                    dir.display(),
                    series.duration()
                ),
            ));
        }
        self.series = Some(Arc::new(series));
        Ok(())
    }
}

/// One joint's motion on a uniform grid (`t_k = k · period` from the profile's origin).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Grid period (s), positive.
    pub period: f64,
    /// Coordinates (rad or m).
    pub q: Vec<f64>,
    /// Rates (rad/s or m/s).
    pub qd: Vec<f64>,
    /// Accelerations (rad/s² or m/s²).
    pub qdd: Vec<f64>,
}

impl Series {
    /// The span it covers (s).
    pub fn duration(&self) -> f64 {
        self.period * self.q.len().saturating_sub(1) as f64
    }

    /// The state at `t` (s): the quintic Hermite interpolant of the neighbouring samples.
    pub fn eval(&self, t: f64) -> MotionState {
        let n = self.q.len();
        let at = |k: usize| MotionState {
            q: self.q[k],
            qd: self.qd[k],
            qdd: self.qdd[k],
        };
        if n == 1 || t <= 0.0 {
            return at(0);
        }
        let x = t / self.period;
        if x >= (n - 1) as f64 {
            return at(n - 1);
        }
        let k = x.floor() as usize;
        quintic(at(k), at(k + 1), self.period, x - k as f64)
    }
}

/// The quintic with `q, q̇, q̈` of `a` at `s = 0` and of `b` at `s = 1`, over an interval of `h`
/// seconds, evaluated at `s ∈ [0, 1)`.
fn quintic(a: MotionState, b: MotionState, h: f64, s: f64) -> MotionState {
    let d = b.q - a.q;
    let (v0, v1) = (h * a.qd, h * b.qd);
    let (a0, a1) = (h * h * a.qdd, h * h * b.qdd);
    let c = [
        a.q,
        v0,
        0.5 * a0,
        10.0 * d - 6.0 * v0 - 4.0 * v1 - 1.5 * a0 + 0.5 * a1,
        -15.0 * d + 8.0 * v0 + 7.0 * v1 + 1.5 * a0 - a1,
        6.0 * d - 3.0 * v0 - 3.0 * v1 - 0.5 * a0 + 0.5 * a1,
    ];
    let (mut q, mut dq, mut ddq) = (0.0, 0.0, 0.0);
    for k in (0..6).rev() {
        q = q * s + c[k];
        if k >= 1 {
            dq = dq * s + k as f64 * c[k];
        }
        if k >= 2 {
            ddq = ddq * s + (k * (k - 1)) as f64 * c[k];
        }
    }
    MotionState {
        q,
        qd: dq / h,
        qdd: ddq / (h * h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampled(f: impl Fn(f64) -> MotionState, period: f64, n: usize) -> Series {
        let states: Vec<MotionState> = (0..n).map(|k| f(k as f64 * period)).collect();
        Series {
            period,
            q: states.iter().map(|s| s.q).collect(),
            qd: states.iter().map(|s| s.qd).collect(),
            qdd: states.iter().map(|s| s.qdd).collect(),
        }
    }

    #[test]
    fn a_quintic_is_reproduced_exactly_between_samples() {
        let p = |t: f64| MotionState {
            q: 0.3 - t + 2.0 * t.powi(3) - 0.5 * t.powi(5),
            qd: -1.0 + 6.0 * t * t - 2.5 * t.powi(4),
            qdd: 12.0 * t - 10.0 * t.powi(3),
        };
        let s = sampled(p, 0.1, 11);
        for t in [0.0, 0.013, 0.05, 0.37, 0.999, 1.0] {
            let (got, want) = (s.eval(t), p(t));
            assert!((got.q - want.q).abs() < 1e-13, "q at {t}");
            assert!((got.qd - want.qd).abs() < 1e-11, "q̇ at {t}");
            assert!((got.qdd - want.qdd).abs() < 1e-9, "q̈ at {t}");
        }
    }

    #[test]
    fn a_sine_sampled_at_100_hz_is_followed_to_its_sixth_order() {
        let w = 2.0 * std::f64::consts::PI * 1.5;
        let p = |t: f64| MotionState {
            q: (w * t).sin(),
            qd: w * (w * t).cos(),
            qdd: -w * w * (w * t).sin(),
        };
        let s = sampled(p, 0.01, 201);
        let worst = (0..2000)
            .map(|k| k as f64 * 0.000_997)
            .map(|t| (s.eval(t).q - p(t).q).abs())
            .fold(0.0, f64::max);
        // Quintic Hermite error ≤ h⁶ max|q⁽⁶⁾| / 46080: (0.01·w)⁶ / 46080 ≈ 1.4e-11.
        assert!(worst < 2e-11, "worst {worst:e}");
    }

    #[test]
    fn grid_points_are_the_samples_and_ends_are_held() {
        let s = Series {
            period: 0.5,
            q: vec![1.0, 2.0, 4.0],
            qd: vec![0.0, 3.0, 1.0],
            qdd: vec![0.5, -1.0, 2.0],
        };
        assert_eq!(s.duration(), 1.0);
        let mid = s.eval(0.5);
        assert!((mid.q - 2.0).abs() < 1e-15 && (mid.qd - 3.0).abs() < 1e-13);
        assert!((mid.qdd + 1.0).abs() < 1e-12);
        assert_eq!(s.eval(-1.0).q, 1.0);
        assert_eq!(s.eval(7.0).q, 4.0);
    }
}
