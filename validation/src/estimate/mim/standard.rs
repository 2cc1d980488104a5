//! MIM on the ten standard parameters of every body: `π_i = (m, m·c, I_O)` in the link frame
//! (body axes, origin at the joint point `O_i`; [`sim::dynamics::StandardParameters`]), for
//! arms whose centroids are off their link axes and whose inertia tensors are full.
//!
//! The paper's MIM ([`super::algorithm`]) takes the centroid as known and estimates the mass and the
//! three principal moments; it is the special case of this one with `c` fixed and the products
//! of inertia zero. Here nothing inertial is known. Body `i`'s Newton–Euler equations about its
//! joint point are linear in `π_i` ([`sim::dynamics::net_wrench`]):
//!
//! ```text
//! f_i − f_{i+1}                             = m (a_O − g) + ω̇ × h + ω × (ω × h)
//! n_i − n_{i+1} − (O_{i+1} − O_i) × f_{i+1} = I_O ω̇ + ω × I_O ω + h × (a_O − g)
//! ```
//!
//! (world frame, `h = R m c`, `I_O = R I Rᵀ`), six equations per sample and body. The wrenches
//! are the measured joint wrenches (`f`, `n`, their `_meas` copies where the run has them); the
//! motion of the link frame (`R`, `ω`, `ω̇`, `a_O`) comes from the joint states through the
//! arm's kinematics (`q` measured where measured). Each body is solved over all samples by
//! column-scaled least squares ([`crate::lsq::solve_identifiable`]); a parameter the motion does not
//! determine well is `None`.

use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use sim::dynamics::{StandardParameters, kinematics, net_wrench};

use crate::lsq::solve_identifiable;
use sim::reading::Measurements;
use sim::recording::JointColumn;

/// Default threshold: the reciprocal of the largest condition of a reported parameter
/// ([`crate::lsq::CONDITION_LIMIT`]; 1e-6 until issue 61, which let a first body's first
/// moments through 1.3e-6 off on exact data of a slow UR10 motion).
pub const TOLERANCE: f64 = 1.0 / crate::lsq::CONDITION_LIMIT;

/// The six equations of every body at sample `k`: `(Y, z)` with `Y π_i = z`, body by body.
pub fn equations(data: &Measurements, k: usize) -> Vec<(SMatrix<f64, 6, 10>, SVector<f64, 6>)> {
    let joint = |name: &str| -> Vec<f64> {
        data.joints
            .iter()
            .map(|j| match name {
                "q" => j.measured_or_clean(JointColumn::Q)[k],
                "qd" => j.qd[k],
                _ => j.qdd[k],
            })
            .collect()
    };
    let motion = kinematics(&data.geometry, &joint("q"), &joint("qd"), &joint("qdd"));
    let g = data.geometry.gravity_vector();
    (0..motion.len())
        .map(|b| {
            let mut y = SMatrix::<f64, 6, 10>::zeros();
            for col in 0..10 {
                let mut unit = StandardParameters([0.0; 10]);
                unit.0[col] = 1.0;
                let (f, n) = net_wrench(&motion[b], &unit, &g);
                y.fixed_view_mut::<3, 1>(0, col).copy_from(&f);
                y.fixed_view_mut::<3, 1>(3, col).copy_from(&n);
            }
            let body = &data.bodies[b];
            let (fc, nc, oc) = match (data.bodies.get(b + 1), motion.get(b + 1)) {
                (Some(child), Some(m)) => (child.force[k], child.moment[k], m.joint_point),
                _ => Default::default(),
            };
            let o = motion[b].joint_point;
            let mut z = SVector::<f64, 6>::zeros();
            z.fixed_rows_mut::<3>(0).copy_from(&(body.force[k] - fc));
            let moment = body.moment[k] - nc - (oc - o).cross(&fc);
            z.fixed_rows_mut::<3>(3).copy_from(&moment);
            (y, z)
        })
        .collect()
}

/// Every body's ten standard parameters over all samples (`None` where not determined).
pub fn estimate(data: &Measurements, tolerance: f64) -> Vec<[Option<f64>; 10]> {
    let n = data.bodies.len();
    let samples = data.samples();
    let mut y = vec![DMatrix::zeros(6 * samples, 10); n];
    let mut z = vec![DVector::zeros(6 * samples); n];
    for k in 0..samples {
        for (b, (yk, zk)) in equations(data, k).into_iter().enumerate() {
            y[b].view_mut((6 * k, 0), (6, 10)).copy_from(&yk);
            z[b].rows_mut(6 * k, 6).copy_from(&zk);
        }
    }
    (0..n)
        .map(|b| {
            let x = solve_identifiable(&y[b], &z[b], tolerance);
            std::array::from_fn(|i| x[i])
        })
        .collect()
}
