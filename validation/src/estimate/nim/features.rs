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

use sim::reading::Measurements;

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
    /// [`crate::estimate::mim::algorithm::centroidal_wrench`]), `ω` and `ω̇` (body frame). Per sample they
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
    /// [`Inputs::Normalized`]'s force and specific force, and each axis of Euler's equations
    /// normalized by its own excitation. Axis `i` (cyclic `i, j, k`) reads
    /// `n_i = J_i ω̇_i + ω_j ω_k (J_k − J_j)`; with `S_i = |ω̇_i| + |ω_j ω_k|` the inputs are
    /// `n_i/S_i` (kg·m²), `ω̇_i/S_i` and `ω_j ω_k/S_i` (`|·| + |·| = 1` before the floor below), so
    /// `n_i/S_i = J_i ω̇_i/S_i + (J_k − J_j) ω_j ω_k/S_i` with coefficients of order one on every
    /// axis, however little it moves: an axial moment of a slender link, whose axis turns far
    /// less than the others, is read from its own equation at full scale instead of from a
    /// component `S_i/S` times smaller than the rest. The axis' share `S_i / Σ S` is an input too,
    /// so that the network can tell an axis that hardly moves (and would amplify noise) from one
    /// that carries the motion. An axis that does not move gives zeros. Against noise every `S_i`
    /// gets [`AXIS_FLOOR`] of that axis' motion scale over the run added (`axis_floors`; the
    /// equations still close).
    PerAxis,
    /// [`Inputs::PerAxis`] (18) and 7 logarithms (`PerAxisSample::logs`): `ln |F/a|` and
    /// `ln |n_i/S_i|`, `ln |ω̇_i/S_i|` per axis. The targets are logarithms
    /// ([`super::Parametrization::LogSecondMoments`]), and a body's Newton–Euler equations are
    /// products of its parameters and the motion: `|F/a| = m` exactly, `|n_i/S_i| ≈ J_i |ω̇_i/S_i|`
    /// where the gyroscopic term is small. In logarithms they are sums, which a ReLU network
    /// represents exactly (and extrapolates linearly to bodies outside the training range)
    /// instead of approximating a product. Measured on `population_motions` (600 arms, 6000
    /// steps, two members): the largest moment error on held-out arms 11.7 % with
    /// [`Inputs::Normalized`], 10.1 % with [`Inputs::PerAxis`], 3.2 % with these.
    PerAxisLog,
}

/// Components of a vector input.
const XYZ: &[&str] = &["x", "y", "z"];
const BODY: &[&str] = &["1", "2", "3"];
/// A scalar input (named by its group alone).
const SCALAR: &[&str] = &[""];

impl Inputs {
    /// Every schema.
    pub const ALL: [Inputs; 6] = [
        Inputs::Paper,
        Inputs::WithChild,
        Inputs::Centroidal,
        Inputs::Normalized,
        Inputs::PerAxis,
        Inputs::PerAxisLog,
    ];

    /// The schema's name on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Inputs::Paper => "paper",
            Inputs::WithChild => "with-child",
            Inputs::Centroidal => "centroidal",
            Inputs::Normalized => "normalized",
            Inputs::PerAxis => "per-axis",
            Inputs::PerAxisLog => "per-axis-log",
        }
    }

    /// The schema named `id` on the command line or in a study file.
    pub fn from_id(id: &str) -> Option<Inputs> {
        Inputs::ALL.into_iter().find(|i| i.id() == id)
    }

    /// Every schema's name and input count, for an error message: `paper (18), …`.
    pub fn known() -> String {
        let ids: Vec<String> = (Inputs::ALL.iter())
            .map(|i| format!("{} ({})", i.id(), i.len()))
            .collect();
        ids.join(", ")
    }

    /// The input groups (vectors and scalars), in order: name and component suffixes.
    fn groups(self) -> Vec<(&'static str, &'static [&'static str])> {
        let paper = [
            ("euler", &["a", "b", "g"][..]),
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
            Inputs::PerAxis => vec![
                ("force_per_a", XYZ),
                ("specific_force_unit", XYZ),
                ("moment_c_per_axis", BODY),
                ("omega_dot_per_axis", BODY),
                ("gyro_per_axis", BODY),
                ("axis_share", BODY),
            ],
            Inputs::PerAxisLog => [
                &Inputs::PerAxis.groups()[..],
                &[
                    ("ln_force_per_a", SCALAR),
                    ("ln_moment_c_per_axis", BODY),
                    ("ln_omega_dot_per_axis", BODY),
                ],
            ]
            .concat(),
        }
    }

    /// Column names, in order (`<group>_<component>`, a scalar's `<group>`).
    pub fn names(self) -> Vec<String> {
        self.groups()
            .iter()
            .flat_map(|(v, c)| {
                c.iter().map(move |c| match *c {
                    "" => v.to_string(),
                    c => format!("{v}_{c}"),
                })
            })
            .collect()
    }

    /// Columns of each group, in order (the standardization's groups, [`Scaler::fit`]).
    pub(crate) fn group_sizes(self) -> Vec<usize> {
        self.groups().iter().map(|(_, c)| c.len()).collect()
    }

    /// Number of inputs.
    pub fn len(self) -> usize {
        self.group_sizes().iter().sum()
    }

    /// Never empty.
    pub fn is_empty(self) -> bool {
        false
    }
}

/// What [`Inputs::PerAxis`] adds to each axis' `S_i`, as a fraction of that axis' largest `S_i`
/// over the run (`axis_floors`): it bounds how much a sample where the axis barely moves
/// amplifies measurement noise (to `1/AXIS_FLOOR` times the noise over the axis' own motion
/// scale), while an axis that moves little over the whole run (a slender link turned about one
/// axis) is still read at full scale. Exact data still close each axis: Euler's equation holds
/// divided by anything.
pub const AXIS_FLOOR: f64 = 1e-2;

/// An axis whose largest `S_i` over the run is below this fraction of the run's largest
/// `|ω̇| + |ω|²` counts as not moving: its floor is [`AXIS_FLOOR`] times this fraction of the run's
/// scale, so that integration residue (B1's out-of-plane axes move by 1e-9 of the rest) is not
/// blown up to unit scale.
pub(crate) const AXIS_RESOLUTION: f64 = 1e-3;

/// `|ω̇| + |ω|²` of a body turning at `omega` with `omega_dot` (body frame; rad/s²).
fn motion_scale(omega: &Vector3<f64>, omega_dot: &Vector3<f64>) -> f64 {
    omega_dot.norm() + omega.norm_squared()
}

/// [`motion_scale`] of body `b` (1-based) at every sample (rad/s²).
fn motion_scales(data: &Measurements, b: usize) -> Vec<f64> {
    let s = &data.bodies[b - 1];
    (0..data.samples())
        .map(|k| motion_scale(&s.omega[k], &s.omega_dot[k]))
        .collect()
}

/// The largest of [`motion_scales`] over the run (rad/s²; 0 for a body that never moves).
fn largest(scales: &[f64]) -> f64 {
    scales.iter().copied().fold(0.0, f64::max)
}

/// `(ω_j ω_k, |ω̇_i| + |ω_j ω_k|)` per body axis `i` (cyclic `i, j, k`): the gyroscopic factor of
/// Euler's equation on axis `i` and the axis' excitation `S_i` (rad/s²).
fn axis_excitation(omega: &Vector3<f64>, omega_dot: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let gyro = Vector3::from_fn(|i, _| omega[(i + 1) % 3] * omega[(i + 2) % 3]);
    let scale = omega_dot.abs() + gyro.abs();
    (gyro, scale)
}

/// The floor [`Inputs::PerAxis`] adds to each axis' `S_i` for a body whose angular velocity and
/// acceleration (body frame) over the run are `omega`, `omega_dot`: [`AXIS_FLOOR`] times the
/// axis' largest `S_i` over the run, or times [`AXIS_RESOLUTION`] of the run's largest
/// `|ω̇| + |ω|²` if that is more (rad/s²).
fn axis_floors(omega: &[Vector3<f64>], omega_dot: &[Vector3<f64>]) -> Vector3<f64> {
    let (own, run) = omega.iter().zip(omega_dot).fold(
        (Vector3::zeros(), 0.0f64),
        |(own, run): (Vector3<f64>, f64), (w, wd)| {
            let scale = axis_excitation(w, wd).1;
            (own.sup(&scale), run.max(motion_scale(w, wd)))
        },
    );
    own.map(|o| AXIS_FLOOR * o.max(AXIS_RESOLUTION * run))
}

/// A sample counts as at rest, for the schemas that divide by the motion's scale, when its
/// `S = |ω̇| + |ω|²` is below this fraction of the run's largest (see [`Inputs::pooled_samples`]).
pub const REST: f64 = 1e-3;

impl Inputs {
    /// The column holding a sample's `ln |F/a|` (`ln m` wherever Newton's equation holds), if
    /// the schema has one: a NIM with log targets regresses `ln m` relative to it
    /// ([`super::Nim::train_as`]).
    pub(crate) fn log_mass_column(self) -> Option<usize> {
        (self == Inputs::PerAxisLog).then_some(Inputs::PerAxis.len())
    }

    /// Whether the schema divides the rotational quantities by the motion's scale.
    pub fn is_normalized(self) -> bool {
        matches!(
            self,
            Inputs::Normalized | Inputs::PerAxis | Inputs::PerAxisLog
        )
    }

    /// The samples of body `b` (1-based) a run's estimate pools: every sample, except, for the
    /// normalized schemas, those at rest ([`REST`]). At rest the body's rotational equations read
    /// `0 = 0` and carry nothing on its moments, and the normalized inputs `0/0` have no value:
    /// they are set to zero, a point no moving sample reaches, where a network's output (and its
    /// predicted variance) is an extrapolation. Measured on a rest-to-rest move (the
    /// `point_to_point` family, whose first and last samples are at rest) held out of training:
    /// one such sample predicted B2's mass 77 % low with a variance 10⁴ times below the others',
    /// and outweighed the run. A body that never moves keeps every sample.
    pub fn pooled_samples(self, data: &Measurements, b: usize) -> Vec<usize> {
        let all: Vec<usize> = (0..data.samples()).collect();
        if !self.is_normalized() {
            return all;
        }
        let scale = motion_scales(data, b);
        let top = largest(&scale);
        if top <= 0.0 {
            return all;
        }
        all.into_iter()
            .filter(|&k| scale[k] >= REST * top)
            .collect()
    }
}

/// Input rows (row-major, `samples.len() × inputs.len()`) of body `b` (1-based).
pub fn rows(data: &Measurements, b: usize, inputs: Inputs, samples: &[usize]) -> Vec<f32> {
    let mut out = Vec::with_capacity(samples.len() * inputs.len());
    let floor = match inputs {
        Inputs::PerAxis | Inputs::PerAxisLog => {
            let s = &data.bodies[b - 1];
            axis_floors(&s.omega, &s.omega_dot)
        }
        _ => Vector3::zeros(),
    };
    let vector_columns = |out: &mut Vec<f32>, v: &[Vector3<f64>]| {
        out.extend(v.iter().flat_map(|v| v.iter().map(|x| *x as f32)));
    };
    for &k in samples {
        match inputs {
            Inputs::PerAxis | Inputs::PerAxisLog => {
                let p = PerAxisSample::of(centroidal(data, b, k), floor);
                vector_columns(&mut out, &p.vectors());
                if inputs == Inputs::PerAxisLog {
                    out.extend(p.logs().map(|x| x as f32));
                }
            }
            Inputs::Centroidal => vector_columns(&mut out, &centroidal(data, b, k)),
            Inputs::Normalized => vector_columns(&mut out, &normalized(centroidal(data, b, k))),
            Inputs::Paper => vector_columns(&mut out, &paper(data, b, k, false)),
            Inputs::WithChild => vector_columns(&mut out, &paper(data, b, k, true)),
        }
    }
    out
}

/// The centroidal vectors `[F, n_c, r̈ + g e3, ω, ω̇]` of sample `k` of body `b` (1-based):
/// [`Inputs::Centroidal`].
fn centroidal(data: &Measurements, b: usize, k: usize) -> [Vector3<f64>; 5] {
    let s = &data.bodies[b - 1];
    let (force, moment) = crate::estimate::mim::algorithm::centroidal_wrench(data, b - 1, k);
    let specific_force = s.acc[k] - data.geometry.gravity_vector();
    [force, moment, specific_force, s.omega[k], s.omega_dot[k]]
}

/// [`Inputs::Paper`]'s 3-vectors of sample `k` of body `b` (1-based), and with `child` the
/// outer joint's force and moment on the body ([`Inputs::WithChild`]).
fn paper(data: &Measurements, b: usize, k: usize, child: bool) -> Vec<Vector3<f64>> {
    let s = &data.bodies[b - 1];
    let mut v = vec![
        s.euler[k],
        -s.force[k],
        -s.moment[k],
        s.acc[k],
        s.omega[k],
        s.omega_dot[k],
    ];
    if child {
        // The child's joint wrench on this body is minus what this body exerts on it.
        v.extend(match data.bodies.get(b) {
            Some(c) => [-c.force[k], -c.moment[k]],
            None => [Vector3::zeros(); 2],
        });
    }
    v
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

/// One sample of [`Inputs::PerAxis`] (the 3-vectors in schema order) and of
/// [`Inputs::PerAxisLog`]'s logarithms ([`PerAxisSample::logs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct PerAxisSample {
    /// `F/a` (kg, world frame).
    force_per_a: Vector3<f64>,
    /// `(r̈ + g e3)/a` (world frame).
    specific_force_unit: Vector3<f64>,
    /// `n_i/S_i` per body axis (kg·m²).
    moment: Vector3<f64>,
    /// `ω̇_i/S_i` per body axis.
    omega_dot: Vector3<f64>,
    /// `ω_j ω_k/S_i` per body axis.
    gyro: Vector3<f64>,
    /// `S_i / Σ S` per body axis.
    share: Vector3<f64>,
}

impl PerAxisSample {
    /// From the centroidal vectors `[F, n_c, r̈ + g e3, ω, ω̇]`; `floor[i]` is added to axis
    /// `i`'s `S_i` ([`axis_floors`]).
    fn of(v: [Vector3<f64>; 5], floor: Vector3<f64>) -> Self {
        let [_, moment, _, omega, omega_dot] = v;
        let [f, _, u, _, _] = normalized(v);
        let (gyro, scale) = axis_excitation(&omega, &omega_dot);
        let total = scale.sum();
        let d = scale + floor;
        let over =
            |x: &Vector3<f64>| Vector3::from_fn(|i, _| if d[i] > 0.0 { x[i] / d[i] } else { 0.0 });
        PerAxisSample {
            force_per_a: f,
            specific_force_unit: u,
            moment: over(&moment),
            omega_dot: over(&omega_dot),
            gyro: over(&gyro),
            share: if total > 0.0 {
                scale / total
            } else {
                Vector3::zeros()
            },
        }
    }

    /// The 3-vectors in [`Inputs::PerAxis`]'s order.
    fn vectors(&self) -> [Vector3<f64>; 6] {
        [
            self.force_per_a,
            self.specific_force_unit,
            self.moment,
            self.omega_dot,
            self.gyro,
            self.share,
        ]
    }

    /// [`Inputs::PerAxisLog`]'s logarithms: `ln |F/a|` (`= ln m` where Newton's equation
    /// holds; 0 when `F/a` vanishes, in free fall) and [`log_magnitudes`] of `n_i/S_i` and
    /// `ω̇_i/S_i`.
    fn logs(&self) -> [f64; 7] {
        let f = self.force_per_a.norm();
        let (n, wd) = (log_magnitudes(self.moment), log_magnitudes(self.omega_dot));
        [
            if f > 0.0 { f.ln() } else { 0.0 },
            n[0],
            n[1],
            n[2],
            wd[0],
            wd[1],
            wd[2],
        ]
    }
}

/// Smallest component magnitude `log_magnitudes` resolves, relative to the vector's largest.
pub(crate) const LOG_FLOOR: f64 = 1e-3;

/// `ln |x_i|` of each component, floored at [`LOG_FLOOR`] times the largest (`ln 0` has no
/// value; a component that small carries no information on the parameters). A zero vector
/// gives zeros.
fn log_magnitudes(x: Vector3<f64>) -> Vector3<f64> {
    let floor = LOG_FLOOR * x.amax();
    if floor > 0.0 {
        x.map(|v| v.abs().max(floor).ln())
    } else {
        Vector3::zeros()
    }
}

/// A column varies only when its standard deviation exceeds this fraction of its group's RMS
/// value (see [`Scaler::fit`]).
pub const RESOLUTION: f64 = 1e-4;

/// Per-column standardization `z = (x − mean) / scale`, fitted on training rows.
///
/// Columns come in groups (the components of one input vector, or one scalar; one column each:
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
    /// Fits on row-major `x` whose columns come in consecutive groups of `groups[i]` columns.
    pub fn fit(x: &[f32], groups: &[usize]) -> Self {
        let cols: usize = groups.iter().sum();
        assert!(groups.iter().all(|g| *g > 0), "empty group in {groups:?}");
        let starts: Vec<usize> = groups
            .iter()
            .scan(0, |s, g| {
                *s += g;
                Some(*s - g)
            })
            .collect();
        let group_of: Vec<(usize, usize)> = starts
            .iter()
            .zip(groups)
            .flat_map(|(s, g)| std::iter::repeat_n((*s, *g), *g))
            .collect();
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
                let (g, group) = group_of[c];
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
    pub(crate) fn fit_spread(x: &[f32], cols: usize, floor: f64) -> Self {
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
    pub(crate) fn invert(&self, z: &[f32]) -> Vec<f64> {
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

impl std::str::FromStr for Inputs {
    type Err = crate::Error;

    /// `--inputs ID`: the schema of that name ([`Inputs::id`]).
    fn from_str(id: &str) -> crate::Result<Self> {
        Inputs::from_id(id).ok_or_else(|| crate::Error::Invalid {
            what: format!("--inputs {id}"),
            expected: format!("one of {}", Inputs::known()),
        })
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
    fn per_axis_inputs_close_each_axis_of_euler_at_unit_scale() {
        let j = Vector3::new(0.02, 0.3, 0.31);
        let jm = nalgebra::Matrix3::from_diagonal(&j);
        let (w, wd, sf) = (
            Vector3::new(0.05, -1.1, 0.02),
            Vector3::new(-0.01, 0.5, 3.0),
            Vector3::new(1.2, -0.3, 9.81),
        );
        let n = jm * wd + w.cross(&(jm * w));
        let p = PerAxisSample::of([2.0 * sf, n, sf, w, wd], Vector3::zeros());
        let [_, _, n_i, wd_i, g_i, share] = p.vectors();
        // The logarithms: ln |F/a| = ln m; ln |n_i/S_i| − ln |ω̇_i/S_i| = ln J_i on axis 3, whose
        // gyroscopic term is small here.
        let logs = p.logs();
        assert!((logs[0] - 2f64.ln()).abs() < 1e-14, "{logs:?}");
        assert!((logs[3] - logs[6] - j[2].ln()).abs() < 0.02, "{logs:?}");
        for i in 0..3 {
            let (k, l) = ((i + 1) % 3, (i + 2) % 3);
            let closure = n_i[i] - (j[i] * wd_i[i] + (j[l] - j[k]) * g_i[i]);
            assert!(closure.abs() < 1e-14, "axis {i}: {closure}");
            assert!((wd_i[i].abs() + g_i[i].abs() - 1.0).abs() < 1e-14);
        }
        assert!((share.sum() - 1.0).abs() < 1e-14 && share[0] < 0.05);
        // With a floor on S_i the inputs shrink, and each axis still closes.
        let [_, _, n_f, wd_f, g_f, _] =
            PerAxisSample::of([2.0 * sf, n, sf, w, wd], Vector3::repeat(0.5)).vectors();
        for i in 0..3 {
            let (k, l) = ((i + 1) % 3, (i + 2) % 3);
            assert!((n_f[i] - (j[i] * wd_f[i] + (j[l] - j[k]) * g_f[i])).abs() < 1e-14);
            assert!(wd_f[i].abs() + g_f[i].abs() < 1.0);
        }
        // Twice as fast: the same inputs; a body that does not turn: zeros.
        let fast = PerAxisSample::of([2.0 * sf, 4.0 * n, sf, 2.0 * w, 4.0 * wd], Vector3::zeros());
        assert!((fast.moment - n_i).norm() < 1e-14 && (fast.share - share).norm() < 1e-14);
        let still = PerAxisSample::of(
            [
                2.0 * sf,
                Vector3::zeros(),
                sf,
                Vector3::zeros(),
                Vector3::zeros(),
            ],
            Vector3::zeros(),
        )
        .vectors();
        assert!(still[2..].iter().all(|v| *v == Vector3::zeros()));
    }

    #[test]
    fn an_axis_that_moves_little_over_the_run_is_floored_by_its_own_motion_not_the_runs() {
        // Axis 1 carries the motion; axis 2 moves at 1e-2 of it all run long; axis 3 only by
        // integration residue (1e-9).
        let omega: Vec<Vector3<f64>> = (0..50)
            .map(|k| {
                let t = k as f64 / 10.0;
                Vector3::new(t.sin(), 0.0, 0.0)
            })
            .collect();
        let omega_dot: Vec<Vector3<f64>> = (0..50)
            .map(|k| {
                let t = k as f64 / 10.0;
                Vector3::new(t.cos(), 1e-2 * t.cos(), 1e-9 * t.sin())
            })
            .collect();
        let run = (0..50)
            .map(|k| omega_dot[k].norm() + omega[k].norm_squared())
            .fold(0.0, f64::max);
        let floor = axis_floors(&omega, &omega_dot);
        assert!((floor[0] - AXIS_FLOOR).abs() < 1e-12, "{floor}");
        assert!((floor[1] - AXIS_FLOOR * 1e-2).abs() < 1e-14, "{floor}");
        assert!(
            (floor[2] - AXIS_FLOOR * AXIS_RESOLUTION * run).abs() < 1e-15,
            "{floor}"
        );
        // Axis 2's equation is read at full scale (|ω̇_2/S_2| close to 1 where it moves), the
        // residue on axis 3 stays negligible.
        let j = Vector3::new(0.3, 0.31, 0.02);
        let jm = nalgebra::Matrix3::from_diagonal(&j);
        let (w, wd) = (omega[0], omega_dot[0]);
        let n = jm * wd + w.cross(&(jm * w));
        let sf = Vector3::new(0.0, 0.0, 9.81);
        let p = PerAxisSample::of([sf, n, sf, w, wd], floor);
        assert!(
            p.omega_dot[1].abs() > 0.98 && p.omega_dot[2].abs() < 1e-5,
            "{p:?}"
        );
        assert!((p.moment[1] - j[1] * p.omega_dot[1]).abs() < 1e-14, "{p:?}");
    }

    #[test]
    fn residue_columns_map_to_zero_and_varying_columns_to_unit_spread() {
        // One 3-vector: x varies (sd 1), y is 1e-8 residue, z is a constant 5.
        let mut x = Vec::new();
        for k in 0..100 {
            let s = if k % 2 == 0 { 1.0 } else { -1.0 };
            x.extend([10.0 + s, 1e-8 * s, 5.0]);
        }
        let sc = Scaler::fit(&x, &[3]);
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
        let t = Scaler::fit(&[2.0, 2.0, 2.0], &[1]);
        assert_eq!((t.mean[0], t.scale[0]), (2.0, 2.0));
    }
}
