//! The run-level NIM under the MIM paper's sensing (`validation::estimate::nim::joint` with
//! `Sensing::Paper`, `validation::study::paper_sensing`).

use std::path::Path;

use sim::scenario::Scenario;
use sim::scenario::population::Distribution;
use validation::estimate::EstimatorId;
use validation::estimate::nim::joint::Sensing;
use validation::param::ParamId;
use validation::study::{joint_level, paper_sensing};

use crate::population::quick;

/// Trained on a few arm6-family arms read by noisy force/torque sensors and saved, then read
/// back by the registry's `nim` as `estimate --nim-models` reads it: it answers every MIM
/// parameter of a held-out arm with a σ, and each body's mass; on held-out arms its moment
/// errors stay within 2× MIM-GLS's, with a σ in every band; on an exact run (no stated wrench
/// noise) it passes MIM stacked's estimates through unrevised; on a run of another arm it
/// says why not.
#[test]
fn the_paper_sensing_nim_revises_mim_gls_and_passes_exact_runs_through() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let motions = Scenario::from_path(&root.join("scenarios/population_motions.toml")).unwrap();
    let fourier = Scenario::from_path(&root.join("scenarios/arm6_fourier.toml")).unwrap();
    let sensed =
        validation::study::plan::populations::with_ft_sensors(&fourier, &motions, 5e-3).unwrap();
    let s = sensed
        .edited(|f| {
            f.population.as_mut().unwrap().noise_scale = Some(Distribution::LogNormal {
                mu: 0.0,
                sigma: 1.2,
                low: Some(0.1),
                high: Some(10.0),
            })
        })
        .unwrap();
    let out = std::env::temp_dir().join(format!("validation-paper-nim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let runs = validation::study::cache::generate(&s, 34, &out.join("arms")).unwrap();
    let models = out.join("models");
    let trained =
        joint_level::train(Sensing::Paper, "motions_ft", &runs[..28], &quick(), &models).unwrap();
    assert_eq!((trained.arms, trained.members), (22, 2));
    let card = std::fs::read_to_string(models.join("joint.json")).unwrap();
    assert!(card.contains("\"sensing\": \"paper\""), "{card}");
    assert!(models.join("joint.1.safetensors").is_file());
    let options = validation::estimate::Options {
        nim_models: Some(models.clone()),
        ..Default::default()
    };
    let study = joint_level::evaluate(
        Sensing::Paper,
        "motions_ft",
        &runs[..28],
        &runs[28..],
        &[EstimatorId::MimGls, EstimatorId::Nim],
        &options,
    )
    .unwrap();
    assert!(study.failures.is_empty(), "{:?}", study.failures);
    let rows = |m: &str| -> Vec<_> { study.rows.iter().filter(|r| r.method == m).collect() };
    let (gls, nim) = (rows("mim_gls"), rows("nim"));
    assert!(!nim.is_empty() && gls.len() == nim.len());
    for (g, n) in gls.iter().zip(&nim) {
        assert!(
            n.median <= 2.0 * g.median,
            "nim {n:?} against mim_gls {g:?}"
        );
        assert!(n.coverage.is_some(), "{n:?}");
    }
    // The estimator on a held-out arm: every parameter with a σ, every body's mass.
    let nim_estimator = validation::estimate::by_name(&options, "nim").unwrap();
    let m = &runs[30].measurements;
    let e = nim_estimator
        .estimate(&validation::estimate::Experiment::single(m))
        .unwrap();
    for b in 1..=m.bodies.len() as u8 {
        let mass = &e.values[&ParamId::mass(b)];
        assert!(
            mass.value.is_some() && mass.std.is_some_and(|s| s > 0.0),
            "{mass:?}"
        );
        for k in 1..=3 {
            let j = &e.values[&ParamId::moment(b, k)];
            assert!(
                j.value.is_some() && j.std.is_some_and(|s| s > 0.0),
                "B{b}.j{k}: {j:?}"
            );
        }
    }
    // The learned set encoder, trained briefly on the same arms and scored beside them: every
    // held-out arm answered, with σ; an exact run (no stated noise) refused with the reason.
    let (set_nim, report) =
        paper_sensing::set_encoder::train_set_encoder(&runs[..28], 40, 20).unwrap();
    assert_eq!(
        (report.arms, report.calibration_arms, report.skipped),
        (22, 6, 0)
    );
    assert!(report.steps == 20 || report.steps == 40, "{report:?}");
    let set_study = joint_level::evaluate_with(
        Sensing::Paper,
        "motions_ft",
        &runs[..28],
        &runs[28..],
        &[&set_nim],
    )
    .unwrap();
    assert!(set_study.failures.is_empty(), "{:?}", set_study.failures);
    let learned: Vec<_> = (set_study.rows.iter())
        .filter(|r| r.method == validation::estimate::nim::set::SetNim::NAME)
        .collect();
    assert_eq!(learned.iter().map(|r| r.arms).sum::<usize>(), 6);
    assert!(
        learned
            .iter()
            .all(|r| r.coverage.is_some() && r.median.is_finite())
    );
    // An exact run: MIM stacked's estimates, unrevised (MIM's exact answers stay exact).
    let exact =
        sim::reading::write_and_read(&sim::simulate(&fourier, None), &out.join("exact")).unwrap();
    let rows = paper_sensing::exact(&exact, &["mim_stacked", "nim"], &options).unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for r in &rows {
        assert!(
            r.mass < 1e-6 && r.moments < 1e-6 && r.counted == 16,
            "{r:?}"
        );
    }
    // Another arm (two cylinders): refused with the reason.
    let cyl2 = Scenario::from_path(&root.join("scenarios/mim_cyl2.toml")).unwrap();
    let cyl2 =
        sim::reading::write_and_read(&sim::simulate(&cyl2, None), &out.join("cyl2")).unwrap();
    let why = nim_estimator
        .applies(&validation::estimate::Experiment::single(
            &cyl2.measurements,
        ))
        .unwrap_err();
    assert!(why.to_string().contains("bodies"), "{why}");
    use validation::estimate::Estimator;
    let why = (set_nim.applies(&validation::estimate::Experiment::single(
        &exact.measurements,
    )))
    .unwrap_err();
    assert!(why.to_string().contains("noise"), "{why}");
    std::fs::remove_dir_all(&out).unwrap();
}
