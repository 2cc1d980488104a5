//! Cogging (`[[joint]] cogging`, `sim::cogging::Cogging`), a registered joint term
//! (`sim::term`): the recorded passive force is its closed form, and the arm moves under it as
//! under a potential: a passive double pendulum released in its wells keeps its energy, the
//! links' kinetic and gravitational energy from the recorded body motion plus the cogging
//! potential, while without that potential the sum swings.

use sim::scenario::Scenario;

fn link2(end: f64, step: f64, joints: &str) -> Scenario {
    let text = format!(
        "name = \"cogging\"\nmodel = \"link2\"\n[time]\nend = {end}\nstep = {step}\nsample_period = 0.01\n{joints}"
    );
    Scenario::from_toml(&text, "cogging").unwrap()
}

/// `tau_friction` is `−c q̇ − A sin(2π q/p + φ)` on a prescribed and on a free joint, to rounding.
#[test]
fn the_recorded_passive_force_is_the_closed_form() {
    let (a, p, phase, c) = (0.8, 0.3, 0.4, 0.05);
    let s = link2(
        1.0,
        5e-4,
        &format!(
            r#"
[[joint]]
id = 1
motion = {{ type = "fourier", base_frequency = 1.0, a = [1.5, -0.8], b = [0.3, 0.6] }}
cogging = {{ amplitude = {a}, period = {p}, phase = {phase} }}
[[joint]]
id = 2
free = true
damping = {c}
cogging = {{ amplitude = {a}, period = {p}, phase = {phase} }}
"#
        ),
    );
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    for k in 0..rec.t.len() {
        for (j, damping) in [(0, 0.0), (1, c)] {
            let r = rec.joint(k, j);
            let expected = -damping * r.qd - a * (std::f64::consts::TAU * r.q / p + phase).sin();
            assert!(
                (r.tau_friction - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
                "sample {k}, joint {j}: {} vs {expected}",
                r.tau_friction
            );
        }
    }
}

/// The energies of a sample (J): the links' kinetic and gravitational energy from the recorded
/// body motion, and the joints' cogging potential.
fn energies(s: &Scenario, rec: &sim::recording::Recording, k: usize) -> (f64, f64) {
    let mut mechanical = 0.0;
    for (i, link) in s.chain.links.iter().enumerate() {
        let b = rec.body(k, i + 1);
        let (m, j) = (link.body.mass, link.body.inertia);
        let spin: f64 = (0..3).map(|a| j[a] * b.omega[a].powi(2)).sum();
        mechanical += 0.5 * m * b.vel.norm_squared() + 0.5 * spin + m * sim::GRAVITY * b.pos.z;
    }
    let cogging: f64 = (s.drives.iter().enumerate())
        .filter_map(|(j, d)| d.terms.cogging.map(|c| c.potential(rec.joint(k, j).q)))
        .sum();
    (mechanical, cogging)
}

/// Both joints free, no damping, released at rest with the detents off the bottom (`φ = π/2`):
/// the arm swings, and `E + U_cog` stays within 0.1 % of the cogging potential's swing while `E`
/// alone moves by more than half of it.
#[test]
fn a_free_arm_in_its_cogging_wells_keeps_its_energy() {
    let cogging = "cogging = { amplitude = 3.0, period = 0.5, phase = 1.5707963267948966 }";
    let s = link2(
        1.0,
        1e-4,
        &format!(
            "[[joint]]\nid = 1\nfree = true\n{cogging}\n[[joint]]\nid = 2\nfree = true\n{cogging}\n"
        ),
    );
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let range = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(*x), h.max(*x)));
        hi - lo
    };
    let e: Vec<(f64, f64)> = (0..rec.t.len()).map(|k| energies(&s, rec, k)).collect();
    let total: Vec<f64> = e.iter().map(|(m, c)| m + c).collect();
    let mechanical: Vec<f64> = e.iter().map(|(m, _)| *m).collect();
    let potential: Vec<f64> = e.iter().map(|(_, c)| *c).collect();
    let swing = range(&potential);
    eprintln!(
        "cogging swing {swing:.4} J; E + U moves {:.3e} J, E alone {:.4} J",
        range(&total),
        range(&mechanical)
    );
    assert!(swing > 0.1, "the arm moves through its wells ({swing} J)");
    assert!(
        range(&total) <= 1e-3 * swing,
        "E + U moves {}",
        range(&total)
    );
    assert!(
        range(&mechanical) >= 0.5 * swing,
        "E alone moves {}",
        range(&mechanical)
    );
}

/// Bad sections are refused naming the field; the rail takes none.
#[test]
fn bad_cogging_names_the_field() {
    let base = "[[joint]]\nid = 1\ntorque = { type = \"constant\", value = 1.0 }\n";
    for (extra, field) in [
        (
            "cogging = { amplitude = -1.0, period = 0.1 }",
            "joint[0].cogging.amplitude",
        ),
        (
            "cogging = { amplitude = 1.0, period = 0.0 }",
            "joint[0].cogging.period",
        ),
        (
            "cogging = { amplitude = 1.0, period = 0.1, phase = inf }",
            "joint[0].cogging.phase",
        ),
        ("cogging = { amplitude = 1.0, perod = 0.1 }", "perod"),
    ] {
        let text = format!(
            "name = \"bad\"\nmodel = \"link2\"\n[time]\nend = 0.1\nstep = 5e-4\nsample_period = 0.01\n{base}{extra}\n"
        );
        let e = Scenario::from_toml(&text, "bad").unwrap_err().to_string();
        assert!(e.contains(field), "{field}: {e}");
    }
}

/// The kinematic rail takes no cogging: its carriage is moved, not driven.
#[test]
fn the_rail_takes_no_cogging() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let arm = Scenario::from_path(&root.join("scenarios/arm6_fourier.toml")).unwrap();
    let rail = arm.file.joint.iter().position(|j| j.id == 0).unwrap();
    let e = arm
        .edited(|f| {
            f.joint[rail].cogging = Some(sim::cogging::Cogging {
                amplitude: 1.0,
                period: 0.1,
                phase: 0.0,
            })
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("joint[{rail}].cogging")) && e.contains("rail"),
        "{e}"
    );
}
