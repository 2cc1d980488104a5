//! A population dataset reads back arm by arm, with each arm's truth and without inertial
//! parameters in what estimators see.

use std::path::Path;

use sim::population::Shard;
use sim::scenario::Scenario;
use validation::dataset::{population_arms, read_population_arm};

#[test]
fn population_arms_read_back_with_their_own_truth() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("arms = 1000", "arms = 3")
        .replace("end = 2.0", "end = 0.1");
    let s = Scenario::from_toml(&text, "population_rail (test)").unwrap();
    let out = std::env::temp_dir().join(format!("validation-pop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    assert_eq!(population_arms(&out).unwrap(), [0, 1, 2]);
    for k in 0..3 {
        let run = read_population_arm(&out, k).unwrap();
        let chain = s.population_arm(k).unwrap().chain;
        assert_eq!(run.manifest.model, chain);
        for (b, link) in run.truth.bodies.iter().zip(&chain.links) {
            assert_eq!(b.mass, link.body.mass);
            assert_eq!(b.j, link.body.inertia);
        }
        assert_eq!(run.measurements.samples(), 6);
        assert!(run.measurements.run_id.ends_with(&format!("arm={k:05}")));
        assert!(
            run.measurements
                .geometry
                .links
                .iter()
                .all(|l| l.body.mass == 0.0 && l.body.inertia == [0.0; 3])
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}
