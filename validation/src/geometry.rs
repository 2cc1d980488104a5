//! The arm's geometry as an estimator may know it: the kinematics of the run
//! ([`sim::reading::Measurements::geometry`], no inertial values) plus each body's centroid,
//! the MIM paper's known body-joint vectors `C` (its eq. 5), which the frequency-domain paper
//! assumes known too. The centroid is read from the run's `pos`, `o` columns and orientation:
//! `c_i = A⁽ⁱ⁰⁾(r_i − O_i)` in the body frame, averaged over the samples.

use nalgebra::{Matrix3, Vector3};
use sim::model::Chain;

use sim::reading::Measurements;

/// The run's kinematics with every body's centroid placed as the data show it (zero
/// configuration, world frame, as [`sim::model`] describes chains).
pub fn with_known_centroids(data: &Measurements) -> Chain {
    let mut chain = data.geometry.clone();
    for (link, body) in chain.links.iter_mut().zip(&data.bodies) {
        let n = body.pos.len().max(1) as f64;
        let c_body: Vector3<f64> = (0..body.pos.len())
            .map(|k| body.quat[k].inverse() * (body.pos[k] - body.joint_point[k]))
            .sum::<Vector3<f64>>()
            / n;
        let f = link.body.frame;
        let r0 = Matrix3::from_columns(&[f[0].into(), f[1].into(), f[2].into()]);
        let c0 = Vector3::from(link.joint.anchor) + r0 * c_body;
        link.body.centroid = c0.into();
    }
    chain
}
