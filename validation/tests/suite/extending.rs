//! The "Extending" chapter's estimator, compiled and run: an estimator written outside the
//! crate, as a user writes one in their own crate, from the crate's public pieces, run beside
//! the registry on a clean UR10 run. The chapter shows this file's code between the `chapter:`
//! markers; the test fails when the two differ.

use std::path::Path;

use validation::estimate::engine::{Loaded, run_all};

// chapter: begin
use validation::estimate::idim::single::system;
use validation::estimate::{
    Estimate, EstimateError, Estimates, Estimator, Experiment, Family, NotApplicable, ParamId, Role,
};
use validation::lsq::least_squares;

/// IDIM by the minimum-norm least-squares solution of the base regressor (no friction model).
struct MinNormIdim;

impl Estimator for MinNormIdim {
    fn name(&self) -> &str {
        "idim_min_norm"
    }

    fn family(&self) -> Family {
        Family::Idim
    }

    fn needs(&self) -> &str {
        "a single run with joint angles, rates, accelerations and torques"
    }

    fn applies(&self, experiment: &Experiment) -> Result<(), NotApplicable> {
        match experiment.with_role(Role::Single).as_slice() {
            [_] => Ok(()),
            _ => Err(NotApplicable::new("needs one run of role `single`")),
        }
    }

    fn estimate(&self, experiment: &Experiment) -> Result<Estimates, EstimateError> {
        let run = experiment.with_role(Role::Single)[0];
        // The stacked regressor W and torques τ of every sample (validation::estimate::idim).
        let (w, tau) = system(run, None);
        let x = least_squares(&w, &tau);
        let mut out = Estimates::default();
        for (k, value) in x.iter().enumerate() {
            let estimate = Estimate {
                value: Some(*value),
                std: None,
            };
            out.values.insert(ParamId::Base(k + 1), estimate);
        }
        Ok(out)
    }
}
// chapter: end

/// The chapter's Rust blocks, in order: the study kind, the estimator, the effect, the joint
/// term and its swept effect.
fn chapter_code() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/extending.md");
    let text = std::fs::read_to_string(path).unwrap();
    (crate::docs::fenced(&text, "rust").into_iter())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_chapters_estimator_is_this_file_and_agrees_with_idim_single() {
    let own = include_str!("extending.rs");
    let begin = own.find("// chapter: begin\n").unwrap() + "// chapter: begin\n".len();
    let end = own.find("// chapter: end").unwrap();
    assert_eq!(
        chapter_code()[1],
        &own[begin..end],
        "book/src/extending.md shows another estimator than tests/suite/extending.rs"
    );

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario = sim::scenario::Scenario::from_path(&root.join("scenarios/ur10_fourier.toml"))
        .unwrap()
        .edited(|f| f.time.end = 2.0)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("extending-{}", std::process::id()));
    sim::reading::write_and_read(&sim::simulate(&scenario, None), &dir).unwrap();
    let run = Loaded::read(&dir).unwrap();
    let registry = validation::estimate::by_name(&Default::default(), "idim_single").unwrap();
    let outcome = run_all(&[&MinNormIdim, registry.as_ref()], &[(Role::Single, &run)]);
    assert!(outcome.failed.is_empty() && outcome.skipped.is_empty());
    let value = |method: &str, parameter: &str| {
        (outcome.rows.iter())
            .find(|r| r.method == method && r.parameter == parameter)
            .and_then(|r| r.estimate)
    };
    let base: Vec<&str> = (outcome.rows.iter())
        .filter(|r| r.method == "idim_single")
        .map(|r| r.parameter.as_str())
        .collect();
    assert!(base.len() > 30, "{base:?}");
    let scale = (base.iter())
        .filter_map(|p| value("idim_single", p))
        .fold(0.0f64, |m, v| m.max(v.abs()));
    for p in base {
        let (ours, theirs) = (value("idim_min_norm", p).unwrap(), value("idim_single", p));
        // On exact data every base parameter is determined: both are the one solution.
        let theirs = theirs.unwrap_or_else(|| panic!("idim_single left {p} undetermined"));
        assert!(
            (ours - theirs).abs() <= 1e-8 * scale,
            "{p}: {ours} vs {theirs}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_chapters_effect_is_the_registered_one() {
    let blocks = chapter_code();
    assert_eq!(
        blocks.len(),
        5,
        "book/src/extending.md: a study kind, an estimator, an effect, a joint term and its effect"
    );
    assert_eq!(
        blocks[2],
        include_str!("../../src/study/effect/encoder_resolution.rs"),
        "book/src/extending.md shows another effect than validation/src/study/effect/encoder_resolution.rs"
    );
    let kind = validation::study::effect::EffectKind::named("encoder_resolution").unwrap();
    assert_eq!(kind.unit(), "rad");
}

#[test]
fn the_chapters_study_kind_is_the_listed_one() {
    assert_eq!(
        chapter_code()[0],
        include_str!("../../src/kind/mim.rs"),
        "book/src/extending.md shows another study kind than validation/src/kind/mim.rs"
    );
    let list = include_str!("../../src/kind/mod.rs");
    assert!(list.contains("    Mim(MimPlan),\n") && list.contains("\nmod mim;\n"));
    assert!(validation::kind::Plan::KINDS.contains(&"mim"));
}

/// The joint term the chapter shows is `sim::cogging`, listed once in the terms' registry, and
/// the effect that sweeps it is the registered `cogging`.
#[test]
fn the_chapters_joint_term_is_the_registered_one() {
    let blocks = chapter_code();
    assert_eq!(
        blocks[3],
        include_str!("../../../sim/src/cogging.rs"),
        "book/src/extending.md shows another joint term than sim/src/cogging.rs"
    );
    assert_eq!(
        blocks[4],
        include_str!("../../src/study/effect/drive/cogging.rs"),
        "book/src/extending.md shows another effect than validation/src/study/effect/drive/cogging.rs"
    );
    let registry = include_str!("../../../sim/src/scenario/terms.rs");
    assert!(registry.contains("            cogging: crate::cogging::Cogging,\n"));
    assert!(include_str!("../../../sim/src/lib.rs").contains("\npub mod cogging;\n"));
    let kind = validation::study::effect::EffectKind::named("cogging").unwrap();
    assert_eq!(kind.unit(), "N·m");
}
