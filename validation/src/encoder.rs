//! The encoder-only path: what a robot without link IMUs knows of its bodies' motion. Body
//! kinematics — poses, Cardan angles and rates, centroid velocities and accelerations, `ω`,
//! `ω̇` — are reconstructed from the measured joint angles alone, through the arm's known
//! kinematics and centroids ([`sim::dynamics::kinematics`] on
//! [`crate::geometry::with_known_centroids`]).
//!
//! **Differentiator**: `q̇` and `q̈` from the sampled `q` by the five-point differences of
//! [`crate::signal::derivative`] (exact for polynomials of degree ≤ 4, such as `paper_rail`'s
//! constant accelerations). Noise is not filtered: a quantization step `r` gives `q̈` errors of
//! order `r / h²`, which is what this path is for showing.
//!
//! The reconstruction is the continuous-time kinematics at the sampled state, so on clean data
//! it differs from the recorded body columns (the discrete world's, see the `sim` crate root) by
//! the run's `O(dt)` residual.

use nalgebra::Vector3;
use sim::kinematics::{cardan_angles, cardan_rates, unwrap_angle};

use sim::reading::{BodySeries, Measurements};

/// First and second derivatives of a uniformly sampled series (step `h`) by the five-point
/// stencils of [`crate::signal::derivative`]. Needs at least five samples.
pub fn differentiate(x: &[f64], h: f64) -> (Vec<f64>, Vec<f64>) {
    (
        crate::signal::derivative::first(x, h),
        crate::signal::derivative::second(x, h),
    )
}

/// The measurements with every body's kinematics reconstructed from the joint angles (their
/// measured copies where the run has them); joint wrenches, joint columns and everything else
/// as given. The joints' `qd`, `qdd` become the differentiated ones.
pub fn reconstruct(data: &Measurements) -> Measurements {
    let h = data.t[1] - data.t[0];
    let nj = data.joints.len();
    let derivs: Vec<(Vec<f64>, Vec<f64>)> =
        data.joints.iter().map(|j| differentiate(&j.q, h)).collect();
    let chain = crate::geometry::with_known_centroids(data);
    let mut out = data.clone();
    for (j, (qd, qdd)) in out.joints.iter_mut().zip(&derivs) {
        j.qd = qd.clone();
        j.qdd = qdd.clone();
    }
    let mut bodies: Vec<BodySeries> = data
        .bodies
        .iter()
        .map(|b| BodySeries {
            measured: b.measured.clone(),
            force: b.force.clone(),
            moment: b.moment.clone(),
            ..Default::default()
        })
        .collect();
    for k in 0..data.samples() {
        let q: Vec<f64> = data.joints.iter().map(|j| j.q[k]).collect();
        let qd: Vec<f64> = (0..nj).map(|j| derivs[j].0[k]).collect();
        let qdd: Vec<f64> = (0..nj).map(|j| derivs[j].1[k]).collect();
        for (b, m) in sim::dynamics::kinematics(&chain, &q, &qd, &qdd)
            .iter()
            .enumerate()
        {
            let s = &mut bodies[b];
            let rt = m.rotation.inverse();
            let (w, wd) = (rt * m.omega, rt * m.omega_dot);
            let mut euler = cardan_angles(&m.rotation);
            if let Some(prev) = s.euler.last() {
                for i in 0..3 {
                    euler[i] = unwrap_angle(euler[i], prev[i]);
                }
            }
            let nan = Vector3::repeat(f64::NAN);
            let (ed, edd) = cardan_rates(&euler, &w, &wd).unwrap_or((nan, nan));
            s.pos.push(m.centroid);
            s.quat
                .push(nalgebra::UnitQuaternion::from_rotation_matrix(&m.rotation));
            s.euler.push(euler);
            s.euler_d.push(ed);
            s.euler_dd.push(edd);
            s.vel.push(m.vel);
            s.acc.push(m.acc);
            s.omega.push(w);
            s.omega_dot.push(wd);
            s.joint_point.push(m.joint_point);
        }
    }
    out.bodies = bodies;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_point_stencils_are_exact_for_quartics() {
        let h = 0.02;
        let t: Vec<f64> = (0..11).map(|k| k as f64 * h).collect();
        let f = |t: f64| 1.0 - 2.0 * t + 3.0 * t * t - 0.5 * t.powi(3) + 0.25 * t.powi(4);
        let x: Vec<f64> = t.iter().map(|&s| f(s)).collect();
        let (d1, d2) = differentiate(&x, h);
        for (k, &s) in t.iter().enumerate() {
            let (e1, e2) = (
                -2.0 + 6.0 * s - 1.5 * s * s + s.powi(3),
                6.0 - 3.0 * s + 3.0 * s * s,
            );
            assert!((d1[k] - e1).abs() < 1e-9, "{k}: {} vs {e1}", d1[k]);
            assert!((d2[k] - e2).abs() < 1e-7, "{k}: {} vs {e2}", d2[k]);
        }
    }
}
