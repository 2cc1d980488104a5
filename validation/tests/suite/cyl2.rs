//! The MIM paper's appendix 2-DOF cylinder arm (`cyl2`) under prescribed Fourier motion: MIM
//! identifies every parameter the motion excites and flags the rest.

use std::path::Path;

use sim::reading::write_and_read;
use validation::estimate::mim::{SingleInstant, Stacked};
use validation::estimate::score::score;
use validation::estimate::{Estimator, Experiment, engine};

#[test]
fn mim_identifies_the_appendix_arm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario =
        sim::scenario::Scenario::from_path(&root.join("scenarios/mim_cyl2.toml")).unwrap();
    let result = sim::simulate(&scenario, None);
    assert!(
        result.manifest.checks.rnea_max_rel_residual <= 1e-5,
        "{:?}",
        result.manifest.checks
    );
    let dir = std::env::temp_dir().join(format!("validation-test-{}-cyl2", std::process::id()));
    let run = write_and_read(&result, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let (force, moment) = validation::consistency::newton_euler(&run);
    assert!(force <= 1e-9 && moment <= 1e-9);
    let single = SingleInstant {
        time: 1.5,
        tolerance: 1e-4,
    };
    let methods: [&dyn Estimator; 2] = [&Stacked::default(), &single];
    for method in methods {
        let est = engine::required(method, &Experiment::single(&run.measurements))
            .unwrap()
            .values;
        let unidentified: Vec<String> = est
            .iter()
            .filter(|(_, e)| e.value.is_none())
            .map(|(id, _)| id.to_string())
            .collect();
        // B1 spins about its own vertical axis with its centroid on it: no horizontal acceleration
        // and no rotation about e2, e3.
        assert_eq!(
            unidentified,
            ["B1.m_e1", "B1.m_e2", "B1.j22", "B1.j33"],
            "{}",
            method.name()
        );
        for s in score(method.name(), &est, &run.truth)
            .iter()
            .filter(|s| s.estimate.is_some())
        {
            assert!(
                s.rel_error().unwrap().abs() <= 1e-8,
                "{} {}: {:e}",
                s.method,
                s.parameter,
                s.rel_error().unwrap()
            );
        }
    }
}
