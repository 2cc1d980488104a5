//! Populations of random serial arms (`[population.random]`, `sim::scenario::population::random`):
//! every drawn arm is a physical body set on Denavit–Hartenberg kinematics of the stated laws,
//! its motion within its ranges, independent of the other arms; its run records consistent data
//! and reads back about its own joints.

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use sim::drive::Drive;
use sim::population::Shard;
use sim::scenario::{Scenario, ScenarioFile};

fn file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml")
}

/// `scenarios/population_random.toml` with `arms` arms of `end` seconds, edited further by `f`.
fn population(arms: usize, end: f64, f: impl FnOnce(&mut ScenarioFile)) -> Scenario {
    let edit = |s: &mut ScenarioFile| {
        s.time.end = end;
        s.population.as_mut().unwrap().arms = arms;
        f(s);
    };
    Scenario::from_path(&file()).unwrap().edited(edit).unwrap()
}

/// The most a drawn profile leaves 0, sampled over `end` seconds.
fn excursion(drive: &Drive, end: f64) -> f64 {
    let Drive::Motion(p) = drive else {
        panic!("a prescribed motion: {drive:?}")
    };
    (0..=400)
        .map(|k| p.eval(end * k as f64 / 400.0).q.abs())
        .fold(0.0, f64::max)
}

#[test]
fn random_arms_are_physical_serial_arms_of_the_stated_laws() {
    let s = population(200, 10.0, |_| {});
    let mut counts = [0usize; 8];
    for k in 0..200 {
        let arm = s.population_arm(k).unwrap();
        let links = &arm.chain.links;
        counts[links.len()] += 1;
        arm.chain.validate().unwrap();
        assert_eq!(arm.drives.len(), links.len());
        for (i, l) in links.iter().enumerate() {
            // A physical body: positive moments, every triangle inequality.
            let [a, b, c] = l.body.inertia;
            assert!(a > 0.0 && b > 0.0 && c > 0.0, "arm {k} link {i}");
            assert!(a + b > c && b + c > a && a + c > b, "arm {k} link {i}");
            let last = i + 1 == links.len();
            assert!(
                last || (0.2..=20.0).contains(&l.body.mass),
                "arm {k} link {i}"
            );
            // Its motion within 0.9 of its range.
            let range = l.joint.limits.unwrap();
            assert_eq!(range.lower, -range.upper);
            assert!((1.5..=2.9).contains(&range.upper));
            assert!(excursion(&arm.drives[i].drive, 10.0) <= 0.9 * range.upper + 1e-12);
            let Some(next) = links.get(i + 1) else {
                continue;
            };
            // DH steps: consecutive axes parallel or at right angles; the step is d along the
            // axis plus a common normal a, normal to both axes, of the laws' sizes.
            let (z, z_next) = (Vector3::from(l.joint.axis), Vector3::from(next.joint.axis));
            let cos = z.dot(&z_next);
            assert!(
                cos.abs() < 1e-12 || (cos.abs() - 1.0).abs() < 1e-12,
                "arm {k} joints {i}, {}: cos {cos}",
                i + 1
            );
            let step = next.joint.anchor() - l.joint.anchor();
            let d = step.dot(&z);
            let normal = step - d * z;
            assert!((0.0..=0.35).contains(&d), "arm {k} link {i}: d = {d}");
            assert!((0.05..=0.45).contains(&normal.norm()), "arm {k} link {i}");
            assert!(normal.dot(&z_next).abs() < 1e-12, "arm {k} link {i}");
        }
    }
    // Every joint count of [2, 7] drawn, about evenly (200 arms: ~33 each).
    for (n, c) in counts.iter().enumerate().skip(2) {
        assert!((15..=55).contains(c), "{n} joints: {c} arms");
    }
    assert_eq!(counts[0] + counts[1], 0);

    // An arm depends on its index and the seed only.
    let few = population(10, 10.0, |_| {});
    assert_eq!(
        few.population_arm(7).unwrap().chain,
        s.population_arm(7).unwrap().chain
    );
    assert_ne!(
        s.population_arm(7).unwrap().chain,
        s.population_arm(8).unwrap().chain
    );
}

#[test]
fn a_tool_is_a_point_mass_beyond_the_flange_merged_into_the_last_body() {
    let tool = |probability: f64| {
        population(5, 1.0, |f| {
            let r = f.population.as_mut().unwrap().random.as_mut().unwrap();
            let p = r.payload.as_mut().unwrap();
            p.probability = probability;
            p.mass = sim::population::Distribution::Constant { value: 1.5 };
        })
    };
    let (bare, carrying) = (tool(0.0), tool(1.0));
    for k in 0..5 {
        let (a, b) = (
            bare.population_arm(k).unwrap().chain,
            carrying.population_arm(k).unwrap().chain,
        );
        let n = a.links.len();
        assert_eq!(a.links[..n - 1], b.links[..n - 1]);
        let (x, y) = (&a.links[n - 1].body, &b.links[n - 1].body);
        assert!((y.mass - x.mass - 1.5).abs() < 1e-12);
        // The merged centroid lies between the link's and the tool's: farther from the joint.
        let from = a.links[n - 1].joint.anchor();
        assert!((y.centroid() - from).norm() > (x.centroid() - from).norm());
    }
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-random-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn a_random_population_records_consistent_data_that_reads_back_about_each_arm() {
    let s = population(4, 1.0, |_| {});
    let out = temp("runs");
    let g = sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    assert_eq!(g.written, 4);
    for k in 0..4 {
        let m = crate::population::arm_manifest(&out, k, sim::population::DEFAULT_ARMS_PER_SHARD);
        assert!(m.invalid.is_none(), "arm {k}: {:?}", m.invalid);
        assert!(m.checks.rnea_max_rel_residual < 1e-12, "{:?}", m.checks);
        let arm = s.population_arm(k).unwrap();
        assert_eq!(m.model, arm.chain);
        // The recorded scenario reads back about the arm's own joints (the first templates).
        let again = Scenario::from_toml_with_model(&m.scenario, "manifest", &m.model).unwrap();
        assert_eq!(again.drives.len(), m.model.links.len());
        // Its design is the arm's own: the motions it drew, not the file's templates.
        for (read, drawn) in again.drives.iter().zip(&arm.drives) {
            assert_eq!(read.drive, drawn.drive);
        }
    }
    std::fs::remove_dir_all(out).unwrap();
}

/// The file's `[population.random]` section.
fn random(f: &mut ScenarioFile) -> &mut sim::population::random::RandomArms {
    f.population.as_mut().unwrap().random.as_mut().unwrap()
}

#[test]
fn bad_random_sections_name_the_field() {
    let error = |f: fn(&mut ScenarioFile)| {
        let s = Scenario::from_path(&file()).unwrap();
        s.edited(f).unwrap_err().to_string()
    };
    let e = error(|f| random(f).joints = [1, 7]);
    assert!(
        e.contains("population.random.joints") && e.contains("2 ≤"),
        "{e}"
    );
    let e = error(|f| random(f).joints = [2, 8]);
    assert!(
        e.contains("population.random.joints") && e.contains("≤ 7"),
        "{e}"
    );
    let e = error(|f| {
        f.population.as_mut().unwrap().excitation = Some(sim::population::ExcitationKind::Scenario)
    });
    assert!(e.contains("population.excitation"), "{e}");
    let e = error(|f| {
        random(f).mass = sim::population::Distribution::Uniform {
            low: -1.0,
            high: 2.0,
        }
    });
    assert!(e.contains("population.random.mass"), "{e}");
    let e = error(|f| {
        f.population.as_mut().unwrap().length =
            Some(sim::population::Distribution::Constant { value: 1.0 })
    });
    assert!(e.contains("population.length"), "{e}");
}

/// `[population.friction]`: every joint of every arm gets its own Coulomb–viscous friction
/// within the laws, recorded in the arm's truth and scenario; the arms' bodies and motions are
/// those of the file without it.
#[test]
fn friction_is_drawn_per_arm_and_joint_within_its_laws() {
    let with = population(20, 1.0, |_| {});
    let without = population(20, 1.0, |f| f.population.as_mut().unwrap().friction = None);
    let mut levels = Vec::new();
    for k in 0..20 {
        let (a, b) = (
            with.population_arm(k).unwrap(),
            without.population_arm(k).unwrap(),
        );
        for (la, lb) in a.chain.links.iter().zip(&b.chain.links) {
            assert_eq!(la.body, lb.body);
            let Some(sim::friction::Friction::CoulombViscous {
                coulomb, viscous, ..
            }) = la.joint.friction
            else {
                panic!("arm {k}: {:?}", la.joint.friction)
            };
            assert!((0.0..=1.5).contains(&coulomb) && (0.0..=0.5).contains(&viscous));
            assert_eq!(lb.joint.friction, None);
            levels.push(coulomb);
        }
        for (da, db) in a.drives.iter().zip(&b.drives) {
            assert_eq!(da.drive, db.drive);
        }
        // The arm's own scenario states its friction.
        let again = Scenario::from_toml_with_model(&a.source, "arm", &a.chain).unwrap();
        for (d, l) in again.drives.iter().zip(&a.chain.links) {
            assert_eq!(d.friction, l.joint.friction);
        }
    }
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    assert!(
        levels.len() > 40,
        "drawn per joint: {} distinct levels",
        levels.len()
    );
}
