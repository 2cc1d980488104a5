//! The identification pipeline on the Franka Emika Panda (`models/panda.urdf`, scenarios
//! `panda_excitation` and `panda_validation`), BIRDy's noise, two seeds: IDIM reaches a
//! validation NRMS below 1 %, the physically consistent estimate gives real bodies in every run
//! where the unconstrained one does not, and its model written as URDF and read back predicts the
//! validation torques with the NRMS it reported.

use std::path::Path;

use sim::reading::write_and_read;
use sim::scenario::Scenario;
use validation::study::industrial::IndustrialStudy;

#[test]
fn the_panda_is_identified_to_the_birdy_standard_with_real_bodies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::env::temp_dir().join(format!("industrial-test-{}", std::process::id()));
    let runs: Vec<_> = ["panda_excitation", "panda_validation"]
        .iter()
        .map(|n| {
            let scenario = Scenario::from_path(&root.join(format!("scenarios/{n}.toml"))).unwrap();
            write_and_read(&sim::simulate(&scenario, None), &tmp.join(n)).unwrap()
        })
        .collect();
    let study = IndustrialStudy::new(
        &runs[0],
        &runs[1],
        &crate::studies::industrial_cases()[..1],
        2,
        &tmp.join("report"),
    )
    .unwrap();
    for method in [
        "idim_ols",
        "idim_wls",
        "idim_tls",
        "idim_prior",
        "idim_consistent",
    ] {
        let r = study.result(0, method).unwrap();
        assert!(r.failures.is_empty(), "{method}: {:?}", r.failures);
        let worst = r.nrms.iter().copied().fold(0.0, f64::max);
        assert!(worst <= 0.01, "{method}: validation NRMS {worst}");
    }
    let consistent = study.result(0, "idim_consistent").unwrap();
    assert_eq!(consistent.inconsistent_links, Some(vec![0, 0]));
    let prior = study.result(0, "idim_prior").unwrap();
    assert!(
        prior
            .inconsistent_links
            .as_ref()
            .unwrap()
            .iter()
            .any(|&k| k > 0),
        "the unconstrained estimate was expected to have an impossible link here: {:?}",
        prior.inconsistent_links
    );
    // The guide's chapter is the report rendered from the serialized study: nothing is lost.
    let json = serde_json::to_string(&study).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let plan =
        validation::kind::Plan::from_path(&root.join("studies/industrial.toml"), &[]).unwrap();
    let chapter = plan.markdown(&json, &tmp.join("industrial.json")).unwrap();
    assert_eq!(chapter, validation::report::industrial::markdown(&study));
    let (path, reported, loaded) = study.exported.clone().unwrap();
    assert!(path.exists());
    assert!(
        (loaded - reported).abs() <= 1e-9 * reported,
        "{loaded} vs {reported}"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}
