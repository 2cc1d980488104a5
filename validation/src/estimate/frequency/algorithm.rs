//! The frequency-domain paper's method: link parameters from the Fourier coefficients of the
//! steady-state joint angles under a multisine torque.
//!
//! Both estimators extract, over whole steady-state periods, the coefficients `(C_k, D_k)` of
//! every joint angle (the `q_meas` column where the run has one) and of every joint torque at
//! each excited harmonic `k ω₀` (the paper's eqs. 48 and 60), as phasors `Q_k = C_k − j D_k`.
//!
//! * [`LinearizedFrequency`] (corrected): the arm linearized about the hanging equilibrium
//!   `q = 0` obeys `(−ω² M₀ + jω D + K₀) Q(jω) = T(jω)`, linear in the unknown masses `m_i`,
//!   moments `J_i` (through `M₀`, `K₀`) and damping `c_j` (`D = diag(c)`). The real and imaginary
//!   parts at every excited harmonic are solved by least squares. Assumed known: the geometry
//!   (link lengths, joint axes, centroid positions: [`KnownGeometry`]). Estimated: `m_i`, `J_i`,
//!   `c_j`.
//! * [`PaperFrequency`] (as published): each joint on its own as a second-order system
//!   `Q = (b s + p) U / (s² − 2σ₀ s + ω₀²)` (eqs. 16–17), fitted per joint by eqs. 52–58 and
//!   63–69 for `(ω₀², σ₀, p, b)`. That model is wrong for a 2-DOF arm (whose response has a
//!   fourth-order denominator) and its eqs. 13–15 are garbled (a point-mass model with `l`
//!   where the centroid distances `r` belong, `a₂₂` without `g`). The masses follow from eq. 15 at
//!   `q₀ = 0`: `b₁₁ = 1/(l₁² m₁)` gives `m₁`; the paper labels joint 2's `b` as `b₂₁`, which at
//!   `q₀ = 0` does not depend on `m₂`, so we read it as `b₂₂ = (l₁² m₁ + (l₁+l₂)² m₂)/(l₁² l₂² m₁ m₂)`,
//!   the only reading that yields `m₂`. `J` and `c` are not estimated.

use nalgebra::{Complex, DMatrix, DVector};

use crate::estimate::known_geometry::{KnownGeometry, require};
use crate::estimate::{EstimateError, NotApplicable};
use crate::fourier::{Window, coefficients, last_periods, phasor};
use crate::lsq::solve_identifiable;
use crate::param::{Estimate, ParamId, Values};
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// The multisine excitation an estimator is told about, and which periods it may use.
#[derive(Clone, Debug)]
pub struct Excitation {
    /// Fundamental frequency `f₀` (Hz).
    pub base_frequency: f64,
    /// Excited harmonics `k` (the torque has `cos(k ω₀ t)` terms).
    pub harmonics: Vec<u32>,
    /// Number of whole periods at the end of the record to use (steady state).
    pub periods: usize,
}

impl Excitation {
    /// The excitation of a run, from its design: every joint torque-driven by multisines (or
    /// sums of them) of one fundamental; the excited harmonics are the union over joints; all
    /// whole periods but the first (the transient) are used. `Err` says what is missing.
    pub(crate) fn from_data(data: &Measurements) -> Result<Self, NotApplicable> {
        fn collect(s: &sim::drive::Signal, base: &mut Vec<f64>, harmonics: &mut Vec<u32>) {
            match s {
                sim::drive::Signal::Multisine {
                    base_frequency,
                    harmonics: h,
                    ..
                } => {
                    base.push(*base_frequency);
                    harmonics.extend(h);
                }
                sim::drive::Signal::Sum { terms } => {
                    terms.iter().for_each(|t| collect(t, base, harmonics))
                }
                _ => {}
            }
        }
        let (mut base, mut harmonics) = (Vec::new(), Vec::new());
        for j in &data.joints {
            let signal = j.excitation.as_ref().ok_or_else(|| {
                NotApplicable::new(format!("needs a multisine torque excitation on every joint (joint O{} is not torque-driven)", j.id))
            })?;
            collect(signal, &mut base, &mut harmonics);
        }
        let f0 = *base.first().ok_or(NotApplicable::new(
            "needs a multisine torque excitation on every joint",
        ))?;
        if base.iter().any(|f| (f - f0).abs() > 1e-12 * f0) {
            return Err(NotApplicable::new(
                "needs one fundamental frequency for every joint's multisine",
            ));
        }
        harmonics.sort_unstable();
        harmonics.dedup();
        let span = data.t.last().copied().unwrap_or(0.0) - data.t.first().copied().unwrap_or(0.0);
        let whole = (span * f0 + 1e-9).floor() as usize;
        if whole < 2 {
            return Err(NotApplicable::new(format!(
                "needs at least two whole periods of the {} s excitation (the first is dropped as transient); the run spans {span} s",
                1.0 / f0
            )));
        }
        Ok(Excitation {
            base_frequency: f0,
            harmonics,
            periods: whole - 1,
        })
    }

    /// `ω₀` (rad/s).
    pub(crate) fn omega0(&self) -> f64 {
        2.0 * std::f64::consts::PI * self.base_frequency
    }

    /// The steady-state window of a record.
    pub fn window(&self, name: &str, data: &Measurements) -> Result<Window, EstimateError> {
        last_periods(&data.t, 1.0 / self.base_frequency, self.periods).map_err(|e| EstimateError {
            estimator: name.into(),
            message: e.to_string(),
        })
    }

    /// Phasors of every joint's measured angle and torque at every excited harmonic:
    /// `[harmonic][joint] → (Q, T)`.
    fn phasors(
        &self,
        data: &Measurements,
        window: Window,
    ) -> Vec<Vec<(Complex<f64>, Complex<f64>)>> {
        self.harmonics
            .iter()
            .map(|&k| {
                let w = self.omega0() * f64::from(k);
                data.joints
                    .iter()
                    .map(|j| {
                        let q = phasor(coefficients(
                            j.measured_or_clean(JointColumn::Q),
                            &data.t,
                            window,
                            w,
                        ));
                        let t = phasor(coefficients(
                            j.measured_or_clean(JointColumn::Tau),
                            &data.t,
                            window,
                            w,
                        ));
                        (q, t)
                    })
                    .collect()
            })
            .collect()
    }
}

/// The corrected linearized frequency-domain estimator (see the module docs).
#[derive(Clone, Debug)]
pub struct LinearizedFrequency {
    /// Known geometry.
    pub geometry: KnownGeometry,
    /// Excitation.
    pub excitation: Excitation,
}

impl LinearizedFrequency {
    /// Short name, the `method` column of reports.
    pub(crate) fn name(&self) -> String {
        "frequency_linearized".into()
    }

    /// Estimates the parameters of every body it can.
    pub(crate) fn estimate(&self, data: &Measurements) -> Result<Values, EstimateError> {
        let n = self.geometry.bodies();
        require(&self.name(), &self.geometry, data.joints.len())?;
        let window = self.excitation.window(&self.name(), data)?;
        let ph = self.excitation.phasors(data, window);
        let lin = self.geometry.linearization();
        let rows = 2 * n * ph.len();
        let mut y = DMatrix::zeros(rows, 3 * n);
        let mut z = DVector::zeros(rows);
        for (h, (&k, per_joint)) in self.excitation.harmonics.iter().zip(&ph).enumerate() {
            let w = self.excitation.omega0() * f64::from(k);
            let q: Vec<Complex<f64>> = per_joint.iter().map(|p| p.0).collect();
            for i in 0..n {
                let (re, im) = (2 * (h * n + i), 2 * (h * n + i) + 1);
                for (p, (m, kk)) in lin.iter().enumerate() {
                    let v: Complex<f64> = (0..n)
                        .map(|j| q[j] * (kk[(i, j)] - w * w * m[(i, j)]))
                        .sum();
                    y[(re, p)] = v.re;
                    y[(im, p)] = v.im;
                }
                let damping = q[i] * Complex::new(0.0, w);
                y[(re, 2 * n + i)] = damping.re;
                y[(im, 2 * n + i)] = damping.im;
                z[re] = per_joint[i].1.re;
                z[im] = per_joint[i].1.im;
            }
        }
        Ok(self.geometry.estimates(&self.geometry.solve(&y, &z)))
    }
}

/// The paper's per-joint second-order fit, as published (see the module docs).
#[derive(Clone, Debug)]
pub struct PaperFrequency {
    /// Known geometry (for `l₁`, `l₂`).
    pub geometry: KnownGeometry,
    /// Excitation.
    pub excitation: Excitation,
}

impl PaperFrequency {
    /// `(ω₀², σ₀, p, b)` of joint `i` from eqs. 52–53 (63–64).
    fn fit(&self, ph: &[Vec<(Complex<f64>, Complex<f64>)>], i: usize) -> Vec<Option<f64>> {
        let h = self.excitation.harmonics.len();
        let mut y = DMatrix::zeros(2 * h, 4);
        let mut z = DVector::zeros(2 * h);
        for (r, (&k, per_joint)) in self.excitation.harmonics.iter().zip(ph).enumerate() {
            let w = self.excitation.omega0() * f64::from(k);
            let (q, t) = per_joint[i];
            let (c, d) = (q.re, -q.im);
            let amplitude = t.re; // the input d_k: cosine amplitude of the measured torque
            y.set_row(
                2 * r,
                &nalgebra::RowVector4::new(c, -2.0 * d * w, -amplitude, 0.0),
            );
            z[2 * r] = c * w * w;
            y.set_row(
                2 * r + 1,
                &nalgebra::RowVector4::new(d, 2.0 * c * w, 0.0, amplitude * w),
            );
            z[2 * r + 1] = d * w * w;
        }
        solve_identifiable(&y, &z, 1e-12)
    }
}

impl PaperFrequency {
    /// Short name, the `method` column of reports.
    pub(crate) fn name(&self) -> String {
        "frequency_paper".into()
    }

    /// Estimates the parameters of every body it can.
    pub(crate) fn estimate(&self, data: &Measurements) -> Result<Values, EstimateError> {
        require(&self.name(), &self.geometry, data.joints.len())?;
        if self.geometry.bodies() != 2 {
            return Err(EstimateError {
                estimator: self.name(),
                message: "the paper's equations are for two links".into(),
            });
        }
        let window = self.excitation.window(&self.name(), data)?;
        let ph = self.excitation.phasors(data, window);
        let chain = self.geometry.chain();
        let (l1, l2) = (
            chain.links[0].body.shape.length(),
            chain.links[1].body.shape.length(),
        );
        let b1 = self.fit(&ph, 0)[3];
        let b2 = self.fit(&ph, 1)[3];
        let m1 = b1.map(|b| 1.0 / (l1 * l1 * b));
        let m2 = match (m1, b2) {
            (Some(m1), Some(b)) => {
                Some(l1 * l1 * m1 / (b * l1 * l1 * l2 * l2 * m1 - (l1 + l2).powi(2)))
            }
            _ => None,
        };
        Ok([m1, m2]
            .iter()
            .enumerate()
            .map(|(k, v)| (ParamId::mass(k as u8 + 1), Estimate::value(*v)))
            .collect())
    }
}
