//! The chain's stages put together, and the record of what was applied.

use serde::{Deserialize, Serialize};

use super::butterworth::Butterworth;
use super::cutoff::{self, Choice};
use super::derivative;
use super::resample::Grid;

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
    /// joint angles ([`cutoff`]).
    Auto {
        /// Order of one pass.
        order: usize,
    },
}

impl std::str::FromStr for Lowpass {
    type Err = crate::Error;

    /// `none`, `auto` (order 4), `auto:ORDER`, or `ORDER:CUTOFF_HZ` (e.g. `4:10`).
    fn from_str(s: &str) -> crate::Result<Self> {
        let bad = || crate::Error::Invalid {
            what: format!("low-pass `{s}`"),
            expected: "`none`, `auto`, `auto:ORDER` or `ORDER:CUTOFF_HZ` (e.g. `4:10`)".into(),
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
    pub spectrum: Option<Choice>,
    /// Samples at each end within the filter's end transient (0 without a filter), which
    /// estimators leave out ([`Butterworth::settling`]).
    pub settling: usize,
    /// How the derivatives were formed.
    pub derivatives: String,
    /// What was done to the torques.
    pub torque: String,
}

/// One joint's sampled kinematics as recorded (absent rates are formed by the chain).
#[derive(Clone, Debug, Default)]
pub struct Readings {
    /// Joint coordinate (rad or m).
    pub q: Vec<f64>,
    /// Its rate where recorded.
    pub qd: Option<Vec<f64>>,
    /// Its acceleration where recorded.
    pub qdd: Option<Vec<f64>>,
}

/// The chain's output: a uniform grid and every joint's filtered kinematics.
#[derive(Clone, Debug)]
pub struct Processed {
    /// The grid.
    pub grid: Grid,
    /// Grid times (s).
    pub t: Vec<f64>,
    /// Per joint: `q`, `q̇`, `q̈` (filtered, on the grid).
    pub kinematics: Vec<[Vec<f64>; 3]>,
    /// The record of what was done.
    pub chain: Chain,
}

/// Runs the chain over stamps `t` (s, strictly increasing) and each joint's readings. `Err`
/// for fewer than five samples or a filter that cannot be designed at the grid's rate.
pub fn process(t: &[f64], joints: &[Readings], lowpass: &Lowpass) -> crate::Result<Processed> {
    if t.len() < 5 {
        return Err(crate::Error::invalid(
            "the record's samples",
            format!("at least 5 for the derivatives, got {}", t.len()),
        ));
    }
    let grid = Grid::of(t);
    let rate = 1.0 / grid.period;
    let on_grid: Vec<Readings> = joints
        .iter()
        .map(|j| Readings {
            q: grid.resample(t, &j.q),
            qd: j.qd.as_ref().map(|x| grid.resample(t, x)),
            qdd: j.qdd.as_ref().map(|x| grid.resample(t, x)),
        })
        .collect();
    let times = grid.times(t);
    let span = times[times.len() - 1] - times[0];
    let (filter, spectrum) = match lowpass {
        Lowpass::None => (None, None),
        Lowpass::Butterworth { order, cutoff } => (Some((*order, *cutoff)), None),
        Lowpass::Auto { order } => {
            let qs: Vec<&[f64]> = on_grid.iter().map(|j| j.q.as_slice()).collect();
            let choice = cutoff::choose(&qs, rate, span);
            (Some((*order, choice.cutoff)), Some(choice))
        }
    };
    let design = filter
        .map(|(order, cutoff)| {
            Butterworth::new(order, cutoff, rate)
                .map_err(|(field, e)| crate::Error::invalid(format!("low-pass `{field}`"), e))
        })
        .transpose()?;
    let smooth = |x: &[f64]| match &design {
        Some(f) => f.filtfilt(x),
        None => x.to_vec(),
    };
    let h = grid.period;
    let kinematics = on_grid
        .iter()
        .map(|j| {
            let q = smooth(&j.q);
            let qd = match &j.qd {
                Some(x) => smooth(x),
                None => derivative::first(&q, h),
            };
            let qdd = match &j.qdd {
                Some(x) => smooth(x),
                None => derivative::first(&qd, h),
            };
            [q, qd, qdd]
        })
        .collect();
    let chain = Chain {
        period: h,
        resampled: !grid.uniform,
        lowpass: lowpass.clone(),
        filter,
        spectrum,
        settling: design.as_ref().map_or(0, Butterworth::settling),
        derivatives: "q̇ = five-point first difference of the filtered q where not recorded; \
                      q̈ = five-point first difference of the filtered q̇ where not recorded"
            .into(),
        torque: "resampled onto the grid, never low-pass filtered".into(),
    };
    Ok(Processed {
        grid,
        t: times,
        kinematics,
        chain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `q = a sin(ω t) + b t²` with its analytic rates, at `rate` Hz for `span` s.
    fn analytic(rate: f64, span: f64) -> (Vec<f64>, [Vec<f64>; 3]) {
        let (a, w, b) = (0.7, 2.0 * std::f64::consts::PI * 0.8, 0.05);
        let t: Vec<f64> = (0..=(span * rate) as usize)
            .map(|k| k as f64 / rate)
            .collect();
        let q = t.iter().map(|t| a * (w * t).sin() + b * t * t).collect();
        let qd = t
            .iter()
            .map(|t| a * w * (w * t).cos() + 2.0 * b * t)
            .collect();
        let qdd = t
            .iter()
            .map(|t| -a * w * w * (w * t).sin() + 2.0 * b)
            .collect();
        (t, [q, qd, qdd])
    }

    fn worst(a: &[f64], b: &[f64], skip: usize) -> f64 {
        a.iter()
            .zip(b)
            .skip(skip)
            .take(a.len() - 2 * skip)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn rates_from_filtered_angles_match_the_analytic_ones() {
        let (t, [q, qd, qdd]) = analytic(500.0, 6.0);
        let readings = [Readings {
            q: q.clone(),
            ..Readings::default()
        }];
        // No filter: five-point differences, q̈ through q̇.
        let p = process(&t, &readings, &Lowpass::None).unwrap();
        assert_eq!(p.kinematics[0][0], q);
        assert!(worst(&p.kinematics[0][1], &qd, 0) < 1e-7);
        assert!(worst(&p.kinematics[0][2], &qdd, 4) < 1e-6);
        // A 4th-order filter at 20 Hz passes a 0.8 Hz motion: |H|² − 1 ≈ 2·(0.04)⁸.
        let lp = Lowpass::Butterworth {
            order: 4,
            cutoff: 20.0,
        };
        let p = process(&t, &readings, &lp).unwrap();
        let settle = p.chain.settling;
        // What remains is the end transient decayed to 1e-6 of the reflection's kink in q̈
        // (2|q̈(T)| ≈ 34 rad/s² here): ~2e-9 rad in q, ω_c times that in q̇, ω_c² in q̈.
        assert!(worst(&p.kinematics[0][0], &q, settle) < 1e-8);
        assert!(worst(&p.kinematics[0][1], &qd, settle) < 1e-6);
        assert!(worst(&p.kinematics[0][2], &qdd, settle) < 1e-4);
        // Away from the ends the filter's passband error is all: |H|² − 1 ≈ 1e-11.
        let middle = t.len() / 2 - 100;
        assert!(worst(&p.kinematics[0][0], &q, middle) < 1e-11);
        assert!(worst(&p.kinematics[0][1], &qd, middle) < 1e-8);
        assert_eq!(p.chain.filter, Some((4, 20.0)));
    }

    #[test]
    fn given_rates_are_used_and_lowpass_specs_parse() {
        let (t, [q, qd, qdd]) = analytic(100.0, 2.0);
        let readings = [Readings {
            q,
            qd: Some(qd.clone()),
            qdd: Some(qdd.clone()),
        }];
        let p = process(&t, &readings, &Lowpass::None).unwrap();
        assert_eq!(p.kinematics[0][1], qd);
        assert_eq!(p.kinematics[0][2], qdd);
        assert_eq!("none".parse::<Lowpass>().unwrap(), Lowpass::None);
        assert_eq!(
            "auto".parse::<Lowpass>().unwrap(),
            Lowpass::Auto { order: 4 }
        );
        assert_eq!(
            "2:12.5".parse::<Lowpass>().unwrap(),
            Lowpass::Butterworth {
                order: 2,
                cutoff: 12.5
            }
        );
        let e = "fast".parse::<Lowpass>().unwrap_err().to_string();
        assert!(e.contains("ORDER:CUTOFF_HZ") && e.contains("fast"), "{e}");
        let e = process(&t, &readings, &"4:60".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("Nyquist"), "{e}");
    }
}
