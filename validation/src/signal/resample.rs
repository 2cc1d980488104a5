//! Resampling a recording's time base to a uniform grid.
//!
//! A recording's stamps may be irregular (a logger's jitter, dropped packets). The grid starts
//! at the first stamp and steps by the **median** interval until the last stamp (the mean
//! interval where the stamps are uniform); every column is
//! interpolated linearly between the two stamps around each grid time (error `h²|ẍ|/8` at
//! most, `h` the local interval). A recording already uniform to 1e-9 of its interval is
//! returned as it is, bit for bit, so a simulated run written out and read back is unchanged.

/// A uniform time base.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// First time (s).
    pub start: f64,
    /// Interval (s).
    pub period: f64,
    /// Number of samples.
    pub len: usize,
    /// Whether the recording's own stamps were already this grid (no interpolation).
    pub uniform: bool,
}

impl Grid {
    /// The grid of stamps `t` (strictly increasing, at least two).
    pub fn of(t: &[f64]) -> Self {
        let n = t.len();
        // Uniform: every stamp within 1e-9 of the mean interval of its place on the line
        // through the first and last (stamps written as k / rate carry rounding of t, not of
        // the interval).
        let mean = (t[n - 1] - t[0]) / (n - 1) as f64;
        let uniform = (t.iter().enumerate())
            .all(|(k, s)| (s - (t[0] + k as f64 * mean)).abs() <= 1e-9 * mean);
        let mut dt: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        dt.sort_by(f64::total_cmp);
        let period = if uniform { mean } else { dt[dt.len() / 2] };
        let span = t[t.len() - 1] - t[0];
        let len = if uniform {
            t.len()
        } else {
            (span / period + 1e-9).floor() as usize + 1
        };
        Grid {
            start: t[0],
            period,
            len,
            uniform,
        }
    }

    /// The grid's times (s); the recording's own where it was uniform.
    pub fn times(&self, t: &[f64]) -> Vec<f64> {
        if self.uniform {
            t.to_vec()
        } else {
            (0..self.len)
                .map(|k| self.start + k as f64 * self.period)
                .collect()
        }
    }

    /// `x` (sampled at `t`) on the grid, each sample held until the next (a command stream:
    /// at each grid time the last value given at or before it).
    pub(crate) fn hold(&self, t: &[f64], x: &[f64]) -> Vec<f64> {
        if self.uniform {
            return x.to_vec();
        }
        let mut i = 0;
        self.times(t)
            .into_iter()
            .map(|s| {
                while i + 1 < t.len() && t[i + 1] <= s + 1e-9 * self.period {
                    i += 1;
                }
                x[i]
            })
            .collect()
    }

    /// `x` (sampled at `t`) on the grid.
    pub(crate) fn resample(&self, t: &[f64], x: &[f64]) -> Vec<f64> {
        if self.uniform {
            return x.to_vec();
        }
        let mut i = 0;
        self.times(t)
            .into_iter()
            .map(|s| {
                while i + 2 < t.len() && t[i + 1] <= s {
                    i += 1;
                }
                let w = ((s - t[i]) / (t[i + 1] - t[i])).clamp(0.0, 1.0);
                x[i] + w * (x[i + 1] - x[i])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_recording_is_kept_bit_for_bit_and_an_irregular_one_interpolated() {
        let t: Vec<f64> = (0..50).map(|k| 0.1 + k as f64 * 0.01).collect();
        let x: Vec<f64> = t.iter().map(|t| t.sin()).collect();
        let g = Grid::of(&t);
        assert!(g.uniform);
        assert_eq!(g.resample(&t, &x), x);
        // Jittered stamps of a line: interpolation is exact for it.
        let jt: Vec<f64> = (0..50)
            .map(|k| k as f64 * 0.01 + if k % 3 == 1 { 0.003 } else { 0.0 })
            .collect();
        let line: Vec<f64> = jt.iter().map(|t| 2.0 - 3.0 * t).collect();
        let g = Grid::of(&jt);
        assert!(!g.uniform && (g.period - 0.01).abs() < 1e-15 && g.len == 50);
        for (s, v) in g.times(&jt).iter().zip(g.resample(&jt, &line)) {
            assert!((v - (2.0 - 3.0 * s)).abs() < 1e-14);
        }
    }
}
