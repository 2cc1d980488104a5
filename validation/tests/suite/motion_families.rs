//! A population whose arms draw their motion family (`scenarios/population_motions.toml`): every
//! family appears, each arm's manifest names its own, each moves as its family says, and every
//! arm's data are physically consistent by an implementation other than the one that wrote
//! them (MIM's Newton–Euler equations recover each arm's own truth).

use std::path::Path;

use sim::population::Shard;
use sim::population::motion::FamilyId;
use sim::reading::read_population_arm;
use sim::scenario::Scenario;
use validation::estimate::mim::Stacked;
use validation::estimate::score::score;
use validation::estimate::{Estimator, Experiment, engine};

const ARMS: usize = 12;

#[test]
fn each_arm_moves_as_its_drawn_family_and_its_data_recover_its_truth() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_motions.toml");
    let s = Scenario::from_path(&path)
        .unwrap()
        .edited(|f| f.population.as_mut().unwrap().arms = ARMS)
        .unwrap();
    let out = std::env::temp_dir().join(format!("validation-motions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    let mut seen = Vec::new();
    for k in 0..ARMS {
        let run = read_population_arm(&out, k).unwrap();
        let arm = s.population_arm(k).unwrap();
        let family = run
            .manifest
            .motion_family
            .expect("every arm names its family");
        assert_eq!(Some(family), arm.motion_family);
        seen.push(family);
        let joints = &run.measurements.joints;
        let peak = |j: usize| joints[j].q.iter().fold(0.0f64, |a, q| a.max(q.abs()));
        match family {
            FamilyId::Paper => {
                assert!((3..=6).all(|j| peak(j) == 0.0), "arm {k}: O3..O6 held");
                assert!((0..=2).all(|j| peak(j) > 0.0), "arm {k}: rail, O1, O2 move");
            }
            FamilyId::Fourier => assert!((0..=6).all(|j| peak(j) > 1e-3), "arm {k}"),
            FamilyId::PointToPoint => {
                assert_eq!(run.manifest.integrator.dt, 0.0005, "arm {k}: its own step");
                for (j, d) in arm.drives.iter().enumerate().skip(1) {
                    let sim::drive::Drive::Servo(servo) = &d.drive else {
                        panic!("arm {k}: joint {j} servo-driven")
                    };
                    let goal = servo.reference.eval(s.file.time.end).q;
                    let (q, qd) = (joints[j].q.last().unwrap(), joints[j].qd.last().unwrap());
                    // Tracked from rest to rest: at the goal, at rest, within the servo's lag.
                    assert!(
                        (q - goal).abs() < 1e-2 * goal.abs().max(0.1),
                        "{k} {j}: {q} vs {goal}"
                    );
                    assert!(qd.abs() < 1e-2, "arm {k} joint {j}: {qd}");
                    assert_ne!(
                        joints[j].tau.iter().fold(0.0f64, |a, t| a.max(t.abs())),
                        0.0
                    );
                }
            }
        }
        let mim = Stacked::default();
        let estimates = engine::required(&mim, &Experiment::single(&run.measurements)).unwrap();
        let scored = score(mim.name(), &estimates.values, &run.truth);
        let identified: Vec<_> = scored.iter().filter(|s| s.estimate.is_some()).collect();
        assert!(
            identified.len() >= 30,
            "arm {k} ({family}): {}",
            identified.len()
        );
        for e in identified {
            let rel = e.rel_error().unwrap().abs();
            assert!(
                rel <= 1e-7,
                "arm {k} ({family}): {} off by {rel:e}",
                e.parameter
            );
        }
    }
    for f in FamilyId::ALL {
        assert!(seen.contains(&f), "{f} drawn in {ARMS} arms: {seen:?}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn motion_families_are_checked_when_read() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_motions.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    for (from, to, field) in [
        (
            "harmonics = { low = 1, high = 4 }",
            "harmonics = { low = 3, high = 2 }",
            "population.motion[1].harmonics",
        ),
        (
            "step = 0.0005",
            "step = 0.0003",
            "population.motion[2].step",
        ),
        (
            "goal = { type = \"uniform\", low = -1.5, high = 1.5 }",
            "goal = { type = \"normal\", mean = 0.0, std = 1.0 }",
            "population.motion[2].goal",
        ),
        (
            "family = \"paper\"\nweight = 1.0",
            "family = \"paper\"\nweight = 0.0",
            "population.motion[0].weight",
        ),
        (
            "seed = 2028",
            "seed = 2028\nexcitation = \"paper\"",
            "population.excitation",
        ),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        let e = Scenario::from_toml(&bad, "motions.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(field) && e.contains("motions.toml"),
            "{field}: {e}"
        );
    }
}
