//! Identifiability that means it (issues 25 and 49): on clean runs of public arms (the UR10 and
//! the Kinova Jaco 2 as their makers' URDFs describe them, every joint on a Fourier motion, no
//! noise, no friction), every estimator of the registry that applies gives, for every parameter
//! it calls identifiable (a value), the truth to 1e-8 of the largest truth it estimates, and
//! where it states a standard deviation, one that covers its error and stays below that scale. Each run is sampled at 1 kHz, as real arms log:
//! the estimators that differentiate measured angles (`mim_encoders`) then differentiate to
//! well below the bound. The runs are read by the estimators both as a single run and as an
//! excitation run; with the UR10's prior (its bodies with [`prior_model`]'s errors, a URDF as a
//! user gives one), `idim_prior` and `idim_consistent` too.
//!
//! The two Kalman filters are the stated exception: they integrate the identified forward
//! dynamics from sample to sample (a trapezoidal step, `kalman` module docs), so on exact data
//! their error is that discretization's, not rounding. For them the test asks what a filter can
//! promise: an error within three of the standard deviations each states (the posterior's, widened
//! by the discretization's bias: `validation::estimate::discretization`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use validation::estimate::engine::{Loaded, run_all};
use validation::estimate::score::Row;
use validation::estimate::{Estimator, Options, Role, registry};
use validation::study::industrial::prior_model;

/// Estimators whose error on exact data is their discretization's (module docs).
const FILTERS: [&str; 2] = ["ekf", "ukf"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validation-ident-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The scenario `file` at 1 kHz for `end` seconds, simulated, written and read back.
fn clean_run(file: &str, end: f64) -> Loaded {
    let scenario = sim::scenario::Scenario::from_path(&root().join("scenarios").join(file))
        .unwrap()
        .edited(|f| {
            f.time.end = end;
            f.time.step = 1e-3;
            f.time.sample_period = 1e-3;
        })
        .unwrap();
    assert!(scenario.file.noise.is_empty(), "{file}: a clean run");
    let dir = tmp(file);
    let run = sim::reading::write_and_read(&sim::simulate(&scenario, None), &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        (run.manifest.model.links.iter())
            .all(|l| l.joint.friction.is_none() && l.joint.damping == 0.0),
        "{file}: no joint friction"
    );
    Loaded::from(run)
}

/// A UR10 prior as a user gives one: the maker's bodies with [`prior_model`]'s errors, as URDF.
fn ur10_prior() -> PathBuf {
    let arm = sim::urdf::read(&root().join("models/example-robot-data/ur10_robot.urdf")).unwrap();
    let text = sim::urdf::export::to_string(&prior_model(&arm)).unwrap();
    let path = std::env::temp_dir().join(format!(
        "validation-ident-{}-prior.urdf",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

/// Every failure of the rule above among `rows` (one experiment), with the number of
/// identifiable values per method.
fn check(rows: &[Row], failures: &mut Vec<String>) -> BTreeMap<String, usize> {
    let mut scale: BTreeMap<&str, f64> = BTreeMap::new();
    for r in rows {
        if let Some(t) = r.truth {
            let s = scale.entry(&r.method).or_default();
            *s = s.max(t.abs());
        }
    }
    let mut identifiable = BTreeMap::new();
    for r in rows {
        let (Some(t), Some(e)) = (r.truth, r.estimate) else {
            continue;
        };
        *identifiable.entry(r.method.clone()).or_insert(0) += 1;
        let scale = scale[r.method.as_str()];
        let error = (e - t).abs();
        let what = format!(
            "{} {} {}: {e:e} against the truth {t:e} (std {:?}, scale {scale:e})",
            r.run, r.method, r.parameter, r.std
        );
        if FILTERS.contains(&r.method.as_str()) {
            match r.std {
                Some(s) if error <= 3.0 * s => {}
                _ => failures.push(format!("{what}: error beyond 3 posterior std")),
            }
            continue;
        }
        if error > 1e-8 * scale {
            failures.push(format!("{what}: not exact"));
        }
        // A stated std covers the error (beyond rounding) and is below the method's scale: a
        // value the data leave uncertain by more than the largest parameter is not determined
        // (the UR10 run of issue 49: σ of 100–700 on values of 0.1–0.6, called identifiable).
        if let Some(s) = r.std
            && (s >= scale || error > 5.0 * s + 1e-12 * scale)
        {
            failures.push(format!("{what}: std not consistent with the error"));
        }
    }
    identifiable
}

#[test]
fn every_identifiable_estimate_is_exact_on_clean_public_arm_runs() {
    let prior = ur10_prior();
    let mut failures = Vec::new();
    let mut counts = BTreeMap::new();
    for (file, end, prior) in [
        ("ur10_fourier.toml", 4.0, Some(prior.clone())),
        ("jaco2_fourier.toml", 4.0, None),
    ] {
        let estimators = registry(&Options {
            prior,
            ..Default::default()
        });
        let estimators: Vec<&dyn Estimator> = estimators.iter().map(|e| e.as_ref()).collect();
        let run = clean_run(file, end);
        for role in [Role::Single, Role::Excitation] {
            let outcome = run_all(&estimators, &[(role, &run)]);
            for (method, why) in &outcome.failed {
                failures.push(format!("{file} as {role:?}: {method} failed: {why}"));
            }
            for (method, n) in check(&outcome.rows, &mut failures) {
                counts.insert((file, method), n);
            }
        }
    }
    std::fs::remove_file(&prior).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // What ran: the whole-arm identifiers and the MIM family on both arms (36 base parameters
    // of the UR10), the filters, and the prior's two on the UR10.
    for method in [
        "idim_single",
        "idim_ols",
        "idim_wls",
        "idim_tls",
        "idim_irls",
        "idim_iv",
        "didim",
        "ekf",
        "ukf",
        "mim_single",
        "mim_stacked",
        "mim_arm",
        "mim_standard",
        "mim_encoders",
    ] {
        for file in ["ur10_fourier.toml", "jaco2_fourier.toml"] {
            let n = counts
                .get(&(file, method.to_string()))
                .copied()
                .unwrap_or(0);
            assert!(n > 0, "{method} estimated nothing identifiable on {file}");
        }
    }
    assert!(counts[&("ur10_fourier.toml", "idim_single".to_string())] >= 36);
    for method in ["idim_prior", "idim_consistent"] {
        let key = ("ur10_fourier.toml", method.to_string());
        let n = counts.get(&key).copied().unwrap_or(0);
        assert!(n >= 36, "{method}: {n} identifiable on the UR10");
    }
}
