//! NIM's inputs from a run's measurements, and their standardization.
//!
//! The paper's 18 inputs of body `i` (its eq. 23): Cardan angles `(α, β, γ)`, the inner joint's
//! force `F_i^e` and moment `M_i^a`, the centroid acceleration, the angular velocity and the
//! angular acceleration. Our `f`, `n` are what the parent exerts on the body (dataset.md), so
//! `F^e = −f` and `M^a = −n` (world frame, moment about `O_i`); accelerations as recorded
//! (linear: world; angular: body frame). [`Inputs::WithChild`] adds the outer joint's force and
//! moment on the body (`−f_{i+1}`, `−n_{i+1}` about `O_{i+1}`; zero for the last body), the 24
//! inputs that determine the body's Newton–Euler equations. Only measurement columns are read.

use crate::dataset::Measurements;

/// Which inputs NIM sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// The paper's 18.
    Paper,
    /// The paper's 18 and the child joint's force and moment (24).
    WithChild,
}

impl Inputs {
    /// Column names, in order.
    pub fn names(self) -> Vec<String> {
        let mut v: Vec<String> = [
            "euler_a",
            "euler_b",
            "euler_g",
            "fe_x",
            "fe_y",
            "fe_z",
            "ma_x",
            "ma_y",
            "ma_z",
            "acc_x",
            "acc_y",
            "acc_z",
            "omega_1",
            "omega_2",
            "omega_3",
            "omega_dot_1",
            "omega_dot_2",
            "omega_dot_3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if self == Inputs::WithChild {
            v.extend(
                [
                    "child_f_x",
                    "child_f_y",
                    "child_f_z",
                    "child_n_x",
                    "child_n_y",
                    "child_n_z",
                ]
                .map(String::from),
            );
        }
        v
    }

    /// Number of inputs.
    pub fn len(self) -> usize {
        match self {
            Inputs::Paper => 18,
            Inputs::WithChild => 24,
        }
    }

    /// Never empty.
    pub fn is_empty(self) -> bool {
        false
    }
}

/// Input rows (row-major, `samples.len() × inputs.len()`) of body `b` (1-based).
pub fn rows(data: &Measurements, b: usize, inputs: Inputs, samples: &[usize]) -> Vec<f32> {
    let s = &data.bodies[b - 1];
    let child = data.bodies.get(b);
    let mut out = Vec::with_capacity(samples.len() * inputs.len());
    for &k in samples {
        let mut row: Vec<f64> = Vec::with_capacity(inputs.len());
        row.extend(s.euler[k].iter());
        row.extend((-s.force[k]).iter());
        row.extend((-s.moment[k]).iter());
        row.extend(s.acc[k].iter());
        row.extend(s.omega[k].iter());
        row.extend(s.omega_dot[k].iter());
        if inputs == Inputs::WithChild {
            match child {
                // The child's joint force on this body is minus what this body exerts on it.
                Some(c) => {
                    row.extend((-c.force[k]).iter());
                    row.extend((-c.moment[k]).iter());
                }
                None => row.extend([0.0; 6]),
            }
        }
        out.extend(row.iter().map(|v| *v as f32));
    }
    out
}

/// Per-column standardization `z = (x − mean) / scale`, fitted on training rows. A column
/// whose standard deviation is below 1e-9 of its mean's magnitude or below 1e-12 (SI units:
/// rounding noise on an exactly constant quantity) counts as constant: it gets scale `|mean|`
/// (or 1 if the mean is 0), so it maps to 0 without dividing by ~0.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scaler {
    /// Column means.
    pub mean: Vec<f64>,
    /// Column scales.
    pub scale: Vec<f64>,
}

impl Scaler {
    /// Fits on row-major `x` with `cols` columns.
    pub fn fit(x: &[f32], cols: usize) -> Self {
        let n = (x.len() / cols).max(1) as f64;
        let mut mean = vec![0.0; cols];
        for r in x.chunks(cols) {
            for (m, v) in mean.iter_mut().zip(r) {
                *m += f64::from(*v) / n;
            }
        }
        let mut var = vec![0.0; cols];
        for r in x.chunks(cols) {
            for ((s, v), m) in var.iter_mut().zip(r).zip(&mean) {
                *s += (f64::from(*v) - m).powi(2) / n;
            }
        }
        let scale = var
            .iter()
            .zip(&mean)
            .map(|(v, m): (&f64, &f64)| {
                let sd = v.sqrt();
                if sd > 1e-9 * m.abs() && sd > 1e-12 {
                    sd
                } else if *m != 0.0 {
                    m.abs()
                } else {
                    1.0
                }
            })
            .collect();
        Scaler { mean, scale }
    }

    /// Standardized copy of row-major `x`.
    pub fn apply(&self, x: &[f32]) -> Vec<f32> {
        let cols = self.mean.len();
        x.chunks(cols)
            .flat_map(|r| {
                r.iter()
                    .zip(self.mean.iter().zip(&self.scale))
                    .map(|(v, (m, s))| ((f64::from(*v) - m) / s) as f32)
            })
            .collect()
    }

    /// Inverse of [`Scaler::apply`].
    pub fn invert(&self, z: &[f32]) -> Vec<f64> {
        let cols = self.mean.len();
        z.chunks(cols)
            .flat_map(|r| {
                r.iter()
                    .zip(self.mean.iter().zip(&self.scale))
                    .map(|(v, (m, s))| f64::from(*v) * s + m)
            })
            .collect()
    }
}
