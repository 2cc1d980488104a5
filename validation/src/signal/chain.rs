//! The chain's stages put together; the record of what was applied is the run directory's
//! ([`sim::dataset::recorded::Chain`]).

use super::butterworth::Butterworth;
use super::cutoff;
use super::derivative;
use super::resample::Grid;
use sim::dataset::recorded::{Chain, Lowpass};

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
    fn given_rates_are_used_and_an_unusable_cut_off_is_refused() {
        let (t, [q, qd, qdd]) = analytic(100.0, 2.0);
        let readings = [Readings {
            q,
            qd: Some(qd.clone()),
            qdd: Some(qdd.clone()),
        }];
        let p = process(&t, &readings, &Lowpass::None).unwrap();
        assert_eq!(p.kinematics[0][1], qd);
        assert_eq!(p.kinematics[0][2], qdd);
        let e = process(&t, &readings, &"4:60".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("Nyquist"), "{e}");
    }
}
