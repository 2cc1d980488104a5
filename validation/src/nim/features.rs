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

/// Which inputs NIM sees. Every schema is a sequence of 3-vectors (consecutive columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// The paper's 18.
    Paper,
    /// The paper's 18 and the child joint's force and moment (24).
    WithChild,
    /// The 15 quantities of the body's Newton–Euler equations (MIM's eq. 15), formed from the same
    /// measurements MIM reads: the resultant joint force `f_i − f_{i+1}` and the specific force
    /// `r̈ + g e3` (world), the resultant moment about the centroid (body frame,
    /// [`crate::estimator::mim::centroidal_wrench`]), `ω` and `ω̇` (body frame). Per sample they
    /// determine the mass, and the moments wherever `ω̇` and `ω` excite them.
    Centroidal,
}

impl Inputs {
    /// Column names, in order.
    pub fn names(self) -> Vec<String> {
        if self == Inputs::Centroidal {
            return [
                "force_x",
                "force_y",
                "force_z",
                "moment_c_1",
                "moment_c_2",
                "moment_c_3",
                "specific_force_x",
                "specific_force_y",
                "specific_force_z",
                "omega_1",
                "omega_2",
                "omega_3",
                "omega_dot_1",
                "omega_dot_2",
                "omega_dot_3",
            ]
            .map(String::from)
            .to_vec();
        }
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
            Inputs::Centroidal => 15,
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
        if inputs == Inputs::Centroidal {
            let (force, moment) = crate::estimator::mim::centroidal_wrench(data, b - 1, k);
            row.extend(force.iter());
            row.extend(moment.iter());
            row.extend((s.acc[k] + nalgebra::Vector3::new(0.0, 0.0, sim::GRAVITY)).iter());
            row.extend(s.omega[k].iter());
            row.extend(s.omega_dot[k].iter());
            out.extend(row.iter().map(|v| *v as f32));
            continue;
        }
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

/// A column varies only when its standard deviation exceeds this fraction of its group's RMS
/// value (see [`Scaler::fit`]).
pub const RESOLUTION: f64 = 1e-4;

/// Per-column standardization `z = (x − mean) / scale`, fitted on training rows.
///
/// Columns come in groups (the three components of one vector: inputs; one column each:
/// targets). A column's scale is its standard deviation when that exceeds [`RESOLUTION`] times
/// the RMS value of its group (and 1e-12); otherwise the column counts as constant and its scale
/// is the group's RMS (1 for an all-zero group), so it maps to ≈ 0. Without the group floor, a
/// component that is zero by the arm's kinematics but carries integration residue (B1's `ω2`,
/// `F_y`: 1e-9 to 1e-6 of their vector) would be blown up to unit spread, and a network trained
/// on a population memorizes arms by that residue.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scaler {
    /// Column means.
    pub mean: Vec<f64>,
    /// Column scales.
    pub scale: Vec<f64>,
}

impl Scaler {
    /// Fits on row-major `x` with `cols` columns in consecutive groups of `group` (which divides
    /// `cols`).
    pub fn fit(x: &[f32], cols: usize, group: usize) -> Self {
        assert!(
            group > 0 && cols.is_multiple_of(group),
            "{cols} columns in groups of {group}"
        );
        let n = (x.len() / cols).max(1) as f64;
        let mut mean = vec![0.0; cols];
        let mut square = vec![0.0; cols];
        for r in x.chunks(cols) {
            for ((m, q), v) in mean.iter_mut().zip(&mut square).zip(r) {
                *m += f64::from(*v) / n;
                *q += f64::from(*v).powi(2) / n;
            }
        }
        let mut var = vec![0.0; cols];
        for r in x.chunks(cols) {
            for ((s, v), m) in var.iter_mut().zip(r).zip(&mean) {
                *s += (f64::from(*v) - m).powi(2) / n;
            }
        }
        let scale = (0..cols)
            .map(|c| {
                let g = c / group * group;
                let rms = (square[g..g + group].iter().sum::<f64>() / group as f64).sqrt();
                let sd = var[c].sqrt();
                if sd > RESOLUTION * rms && sd > 1e-12 {
                    sd
                } else if rms > 0.0 {
                    rms
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residue_columns_map_to_zero_and_varying_columns_to_unit_spread() {
        // One 3-vector: x varies (sd 1), y is 1e-8 residue, z is a constant 5.
        let mut x = Vec::new();
        for k in 0..100 {
            let s = if k % 2 == 0 { 1.0 } else { -1.0 };
            x.extend([10.0 + s, 1e-8 * s, 5.0]);
        }
        let sc = Scaler::fit(&x, 3, 3);
        assert!((sc.scale[0] - 1.0).abs() < 1e-6, "{sc:?}");
        assert!(sc.scale[1] > 1.0 && sc.scale[2] > 1.0, "{sc:?}");
        let z = sc.apply(&x);
        assert!(
            z.chunks(3)
                .all(|r| (r[0].abs() - 1.0).abs() < 1e-5 && r[1].abs() < 1e-7 && r[2].abs() < 1e-7)
        );
        let back = sc.invert(&z);
        assert!((back[0] - 11.0).abs() < 1e-5 && (back[2] - 5.0).abs() < 1e-5);
        // A constant target (the paper's protocol) is scaled by its own magnitude.
        let t = Scaler::fit(&[2.0, 2.0, 2.0], 1, 1);
        assert_eq!((t.mean[0], t.scale[0]), (2.0, 2.0));
    }
}
