//! NIM's inputs from a run's measurements, and their standardization.
//!
//! The paper's 18 inputs of body `i` (its eq. 23): Cardan angles `(α, β, γ)`, the inner joint's
//! force `F_i^e` and moment `M_i^a`, the centroid acceleration, the angular velocity and the
//! angular acceleration. Our `f`, `n` are what the parent exerts on the body (dataset.md), so
//! `F^e = −f` and `M^a = −n` (world frame, moment about `O_i`); accelerations as recorded
//! (linear: world; angular: body frame). [`Inputs::WithChild`] adds the outer joint's force and
//! moment on the body (`−f_{i+1}`, `−n_{i+1}` about `O_{i+1}`; zero for the last body), the 24
//! inputs that determine the body's Newton–Euler equations. Only measurement columns are read.

use nalgebra::Vector3;

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
    /// The centroidal quantities divided by the scale of their motion, so that the inputs no
    /// longer grow with how fast the arm moves (the body's Newton–Euler equations are
    /// homogeneous in it): the force and the specific force by the specific force's magnitude
    /// `a = |r̈ + g e3|` (`F/a` in kg, `(r̈ + g e3)/a` a unit vector), the moment about the
    /// centroid and `ω̇` by `S = |ω̇| + |ω|²` and `ω` by `√S` (`n_c/S` in kg·m²; `ω̇/S`, `ω/√S`
    /// at most 1). Per sample `m = (F/a)·(r̈ + g e3)/a` and `n_c/S = J ω̇/S + ω/√S × J ω/√S`
    /// exactly, whatever the motion's speed. A body that does not turn (`S = 0`) gives zero
    /// rotational inputs.
    Normalized,
}

/// Components of the vectors every input schema is made of.
pub const COMPONENTS: usize = 3;

const XYZ: [&str; 3] = ["x", "y", "z"];
const BODY: [&str; 3] = ["1", "2", "3"];

impl Inputs {
    /// Every schema.
    pub const ALL: [Inputs; 4] = [
        Inputs::Paper,
        Inputs::WithChild,
        Inputs::Centroidal,
        Inputs::Normalized,
    ];

    /// The schema's name on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Inputs::Paper => "paper",
            Inputs::WithChild => "with-child",
            Inputs::Centroidal => "centroidal",
            Inputs::Normalized => "normalized",
        }
    }

    /// The input vectors, in order: name and component suffixes.
    fn vectors(self) -> Vec<(&'static str, [&'static str; 3])> {
        let paper = [
            ("euler", ["a", "b", "g"]),
            ("fe", XYZ),
            ("ma", XYZ),
            ("acc", XYZ),
            ("omega", BODY),
            ("omega_dot", BODY),
        ];
        match self {
            Inputs::Paper => paper.to_vec(),
            Inputs::WithChild => [&paper[..], &[("child_f", XYZ), ("child_n", XYZ)]].concat(),
            Inputs::Centroidal => vec![
                ("force", XYZ),
                ("moment_c", BODY),
                ("specific_force", XYZ),
                ("omega", BODY),
                ("omega_dot", BODY),
            ],
            Inputs::Normalized => vec![
                ("force_per_a", XYZ),
                ("moment_c_per_s", BODY),
                ("specific_force_unit", XYZ),
                ("omega_per_sqrt_s", BODY),
                ("omega_dot_per_s", BODY),
            ],
        }
    }

    /// Column names, in order (`<vector>_<component>`).
    pub fn names(self) -> Vec<String> {
        self.vectors()
            .iter()
            .flat_map(|(v, c)| c.map(|c| format!("{v}_{c}")))
            .collect()
    }

    /// Number of inputs.
    pub fn len(self) -> usize {
        COMPONENTS * self.vectors().len()
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
        let vectors: Vec<Vector3<f64>> = match inputs {
            Inputs::Centroidal | Inputs::Normalized => {
                let (force, moment) = crate::estimator::mim::centroidal_wrench(data, b - 1, k);
                let specific_force = s.acc[k] + Vector3::new(0.0, 0.0, sim::GRAVITY);
                let v = [force, moment, specific_force, s.omega[k], s.omega_dot[k]];
                if inputs == Inputs::Normalized {
                    normalized(v).to_vec()
                } else {
                    v.to_vec()
                }
            }
            Inputs::Paper | Inputs::WithChild => {
                let mut v = vec![
                    s.euler[k],
                    -s.force[k],
                    -s.moment[k],
                    s.acc[k],
                    s.omega[k],
                    s.omega_dot[k],
                ];
                if inputs == Inputs::WithChild {
                    // The child's joint wrench on this body is minus what this body exerts on it.
                    v.extend(match child {
                        Some(c) => [-c.force[k], -c.moment[k]],
                        None => [Vector3::zeros(); 2],
                    });
                }
                v
            }
        };
        out.extend(vectors.iter().flat_map(|v| v.iter().map(|x| *x as f32)));
    }
    out
}

/// [`Inputs::Normalized`] from the centroidal vectors `[F, n_c, r̈ + g e3, ω, ω̇]`.
fn normalized(v: [Vector3<f64>; 5]) -> [Vector3<f64>; 5] {
    let [force, moment, specific_force, omega, omega_dot] = v;
    let over = |x: Vector3<f64>, d: f64| if d > 0.0 { x / d } else { Vector3::zeros() };
    let a = specific_force.norm();
    let s = omega_dot.norm() + omega.norm_squared();
    [
        over(force, a),
        over(moment, s),
        over(specific_force, a),
        over(omega, s.sqrt()),
        over(omega_dot, s),
    ]
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

    /// Fits on row-major `x` with `cols` columns, each scaled by its standard deviation but at
    /// least `floor` (for targets whose units carry no meaning, such as logarithms, where a
    /// constant column must not be divided by its magnitude).
    pub fn fit_spread(x: &[f32], cols: usize, floor: f64) -> Self {
        let n = (x.len() / cols).max(1) as f64;
        let mean: Vec<f64> = (0..cols)
            .map(|c| x.chunks(cols).map(|r| f64::from(r[c])).sum::<f64>() / n)
            .collect();
        let scale = (0..cols)
            .map(|c| {
                let var = x
                    .chunks(cols)
                    .map(|r| (f64::from(r[c]) - mean[c]).powi(2))
                    .sum::<f64>()
                    / n;
                var.sqrt().max(floor)
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
    fn normalized_inputs_keep_newton_euler_and_do_not_depend_on_the_motion_speed() {
        let (m, j) = (3.5, Vector3::new(0.02, 0.3, 0.31));
        let jm = nalgebra::Matrix3::from_diagonal(&j);
        let wrench = |omega: Vector3<f64>, omega_dot: Vector3<f64>, sf: Vector3<f64>| {
            let n = jm * omega_dot + omega.cross(&(jm * omega));
            [m * sf, n, sf, omega, omega_dot]
        };
        let (w, wd, sf) = (
            Vector3::new(0.4, -1.1, 0.7),
            Vector3::new(-2.0, 0.5, 3.0),
            Vector3::new(1.2, -0.3, 9.81),
        );
        let [f, n, u, w_n, wd_n] = normalized(wrench(w, wd, sf));
        assert!((f.dot(&u) - m).abs() < 1e-12 && (u.norm() - 1.0).abs() < 1e-15);
        let closure = n - (jm * wd_n + w_n.cross(&(jm * w_n)));
        assert!(closure.norm() < 1e-14, "{closure}");
        assert!(w_n.norm() <= 1.0 && wd_n.norm() <= 1.0);
        // Three times as fast (ω × 3, ω̇ × 9): the same inputs.
        let fast = normalized(wrench(3.0 * w, 9.0 * wd, sf));
        for (a, b) in fast.iter().zip([f, n, u, w_n, wd_n]) {
            assert!((a - b).norm() < 1e-14 * b.norm().max(1.0), "{a} vs {b}");
        }
        // A body that does not turn: zero rotational inputs, not NaN.
        let still = normalized(wrench(Vector3::zeros(), Vector3::zeros(), sf));
        assert!(still[1] == Vector3::zeros() && still[3] == Vector3::zeros());
    }

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
