//! A payload on the last link (`payload = { mass, centroid, inertia }`, `sim::payload`): the
//! simulated arm's joint forces gain exactly the closed-form Newton–Euler load of a rigid body
//! at the payload's place. At the zero configuration, at rest, with one joint `k` accelerating
//! at `q̈_k`, the payload's centroid `p` accelerates at `a = q̈_k e_k × (p − a_k)` (revolute `k`)
//! and turns at `ω̇ = q̈_k e_k`, so joint `j` (revolute) carries
//! `e_j · ((p − a_j) × m (a − g) + I_c ω̇)` more: the stated axes `e` and points `a` of the
//! model, no kinematics, no combined body.

use nalgebra::{Matrix3, Vector3};
use sim::dynamics::rnea;
use sim::scenario::Scenario;

fn panda(payload: &str) -> Result<Scenario, sim::scenario::ScenarioError> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut text = format!(
        "name = \"panda_payload\"\nmodel = {:?}\n{payload}\n[time]\nend = 0.1\nstep = 1e-3\nsample_period = 1e-2\n",
        root.join("models/panda.urdf")
    );
    for id in 1..=7 {
        // Held where the limits allow; the test evaluates the model at the zero configuration.
        let position = if id == 4 { -1.0 } else { 0.0 };
        text += &format!(
            "\n[[joint]]\nid = {id}\nmotion = {{ type = \"hold\", position = {position:?} }}\n"
        );
    }
    Scenario::from_toml_in(&text, "panda_payload.toml", &root)
}

#[test]
fn a_payload_adds_the_closed_form_load_of_its_body_to_every_joint() {
    let (m, p) = (1.5, Vector3::new(0.12, -0.05, 0.95));
    // A box-like central inertia with products, world axes.
    let i_c = Matrix3::new(
        0.010, 0.001, -0.002, 0.001, 0.008, 0.0005, -0.002, 0.0005, 0.006,
    );
    let payload = format!(
        "payload = {{ mass = {m:?}, centroid = [{:?}, {:?}, {:?}], inertia = [{:?}, {:?}, {:?}, {:?}, {:?}, {:?}] }}\n",
        p.x,
        p.y,
        p.z,
        i_c[(0, 0)],
        i_c[(1, 1)],
        i_c[(2, 2)],
        i_c[(0, 1)],
        i_c[(0, 2)],
        i_c[(1, 2)]
    );
    let bare = panda("").unwrap();
    let carrying = panda(&payload).unwrap();
    let g = sim::gravity_vector();
    let links = &bare.chain.links;
    let axis = |j: usize| Vector3::from(links[j].joint.axis);
    let point = |j: usize| Vector3::from(links[j].joint.anchor);
    let zero = vec![0.0; 7];
    for k in 0..=7 {
        // k = 7: at rest (gravity alone); else joint k accelerates.
        let mut qdd = zero.clone();
        let (a, omega_dot) = if k < 7 {
            qdd[k] = 2.5;
            let e = axis(k) * qdd[k];
            (e.cross(&(p - point(k))), e)
        } else {
            (Vector3::zeros(), Vector3::zeros())
        };
        let with = rnea(&carrying.chain, &zero, &zero, &qdd, &g).tau;
        let without = rnea(&bare.chain, &zero, &zero, &qdd, &g).tau;
        for j in 0..7 {
            let expected = axis(j).dot(&((p - point(j)).cross(&(m * (a - g))) + i_c * omega_dot));
            let got = with[j] - without[j];
            assert!(
                (got - expected).abs() <= 1e-12 * (1.0 + expected.abs()) * 1e3,
                "joint {j}, accelerating {k}: {got} vs {expected}"
            );
        }
    }
}

#[test]
fn a_payload_that_is_no_body_is_refused_naming_its_field() {
    let e = panda("payload = { mass = -1.0, centroid = [0.0, 0.0, 1.0] }\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("payload.mass"), "{e}");
    // Principal moments 1, 0, 0 break the triangle inequality.
    let e = panda("payload = { mass = 1.0, centroid = [0.0, 0.0, 1.0], inertia = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0] }\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("payload.inertia"), "{e}");
}
