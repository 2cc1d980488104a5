//! A population dataset reads back arm by arm, with each arm's truth and without inertial
//! parameters in what estimators see.

use std::path::Path;

use sim::population::Shard;
use sim::reading::{PopulationReader, population_arms, read_population_arm};
use sim::scenario::Scenario;
use validation::estimate::EstimatorId;
use validation::estimate::nim::joint::Sensing;

/// An arm read from its shard (through the row groups' statistics of `arm`, or with its whole
/// shard) is the run `sim run` writes for the arm's scenario, value for value.
#[test]
fn an_arm_read_from_its_shard_is_the_run_of_its_scenario() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let edit = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 0.1;
        let p = f.population.as_mut().unwrap();
        p.arms = 70;
        p.arms_per_shard = Some(40);
    };
    let s = Scenario::from_path(&path).unwrap().edited(edit).unwrap();
    let tmp = std::env::temp_dir().join(format!("validation-shard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = tmp.join("population");
    sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    let reader = PopulationReader::open(&out).unwrap();
    assert_eq!(reader.arms().unwrap(), (0..70).collect::<Vec<_>>());
    let all = reader
        .read_many(&(0..70).rev().collect::<Vec<_>>())
        .unwrap();
    let shown = |r: &sim::reading::Run| {
        format!(
            "{:?} {:?} {:?} {:?}",
            r.measurements, r.clean, r.truth, r.manifest
        )
    };
    // Arm 35: the fourth row group of shard 0; arm 65: shard 1.
    for k in [0, 35, 39, 40, 65, 69] {
        let arm = s.population_arm(k).unwrap();
        let sim_run = sim::simulate(&arm, None);
        let dir = tmp.join(format!("arm{k}"));
        sim::dataset::write_run(&dir, &sim_run.recording, &sim_run.manifest, false).unwrap();
        let expected = shown(&sim::reading::read_run(&dir).unwrap());
        assert_eq!(shown(&reader.read(k).unwrap()), expected, "arm {k}");
        assert_eq!(shown(&all[69 - k]), expected, "arm {k} (whole shard)");
    }
    assert!(
        reader
            .read(70)
            .unwrap_err()
            .to_string()
            .contains("arms 0 to 69")
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// A population of the per-arm layout of earlier versions is refused, naming its description and
/// what to do.
#[test]
fn a_population_of_the_earlier_layout_is_refused_with_what_to_do() {
    let dir = std::env::temp_dir().join(format!("validation-old-pop-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::write(
        dir.join("population.json"),
        r#"{"scenario": "", "arms": 3, "seed": 0, "layout": "bodies|joints|truth/arm=NNNNN/part-0.parquet"}"#,
    )
    .unwrap();
    std::fs::write(dir.join("manifests/arm=00000.json"), "{}").unwrap();
    for e in [
        PopulationReader::open(&dir).err().unwrap().to_string(),
        sim::dataset::verify::verify(&dir).unwrap_err().to_string(),
    ] {
        assert!(
            e.contains("population.json") && e.contains("regenerated with `sim population`"),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn population_arms_read_back_with_their_own_truth() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let edit = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 0.1;
        f.population.as_mut().unwrap().arms = 3;
    };
    let s = Scenario::from_path(&path).unwrap().edited(edit).unwrap();
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

#[test]
fn in_memory_run_equals_the_run_read_from_disk_with_measured_columns() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenarios/paper_rail.toml"))
        .unwrap()
        .replace("end = 2.0", "end = 0.1")
        + "\n[[noise]]\ncolumn = \"f\"\nbodies = [2]\nmodel = [{ type = \"gaussian\", sigma = 0.1 }]\n\
           [[noise]]\ncolumn = \"q\"\nmodel = [{ type = \"bias\", value = 0.01 }]\n\
           [[sensor]]\ntype = \"imu\"\nbodies = [3]\nmount = [0.1, 0.0, 0.0]\ngyro = { sigma = 1e-3 }\n";
    let scenario = sim::scenario::Scenario::from_toml(&text, "memory.toml").unwrap();
    let simulated = sim::simulate(&scenario, None);
    let dir = std::env::temp_dir().join(format!("validation-memory-{}", std::process::id()));
    let disk = sim::reading::write_and_read(&simulated, &dir).unwrap();
    let memory = sim::reading::from_simulated(&simulated, &dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        format!("{:?}", disk.measurements),
        format!("{:?}", memory.measurements)
    );
    assert_eq!(format!("{:?}", disk.clean), format!("{:?}", memory.clean));
    assert_eq!(format!("{:?}", disk.truth), format!("{:?}", memory.truth));
    // The sensed view carries the noise; the clean view does not.
    let (b2, clean) = (&disk.measurements.bodies[1], &disk.clean.bodies[1]);
    assert!((b2.force[3] - clean.force[3]).norm() > 1e-3);
    assert_eq!(
        disk.measurements.bodies[0].force,
        disk.clean.bodies[0].force
    );
    assert!((disk.measurements.joints[1].q[0] - disk.clean.joints[1].q[0] - 0.01).abs() < 1e-15);
    assert!(
        disk.measurements.bodies[2]
            .measured
            .contains_key(&sim::recording::BodyGroup::ImuSf)
    );
}

/// `noise_scale`: each arm of the Panda family reads at its own drawn noise level — its
/// measured angles and torques differ from the truth by the file's σ times its factor, its
/// manifest and the measurement model estimators are told state that level — while its body
/// and motion are those of the same arm without the law.
#[test]
fn arms_drawn_at_their_own_noise_level_say_so_and_measure_so() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_panda.toml");
    let plain = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 2.0;
        f.population.as_mut().unwrap().arms = 3;
    };
    let base = Scenario::from_path(&path).unwrap().edited(plain).unwrap();
    let noisy = base
        .edited(|f| {
            f.population.as_mut().unwrap().noise_scale =
                Some(sim::population::Distribution::LogNormal {
                    mu: 0.0,
                    sigma: 1.0,
                    low: Some(0.1),
                    high: Some(10.0),
                })
        })
        .unwrap();
    let out = std::env::temp_dir().join(format!("validation-noise-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    sim::batch::generate(&noisy, &out, Shard::ALL, false, None).unwrap();
    let mut factors = Vec::new();
    for k in 0..3 {
        let (a, b) = (
            base.population_arm(k).unwrap(),
            noisy.population_arm(k).unwrap(),
        );
        assert_eq!(a.chain, b.chain);
        let motions = |s: &Scenario| s.drives.iter().map(|d| d.drive.clone()).collect::<Vec<_>>();
        assert_eq!(motions(&a), motions(&b));
        let run = read_population_arm(&out, k).unwrap();
        let factor = run.manifest.noise_scale.expect("a drawn level");
        factors.push(factor);
        // Told: σ_i = 0.05 A × the factor.
        let told = (run.measurements.stated.noise.iter())
            .find(|n| n.column == "i")
            .map(|n| n.model.clone());
        assert_eq!(
            told,
            Some(vec![sim::noise::Noise::Gaussian {
                sigma: 0.05 * factor
            }])
        );
        // Measured: the current readings' spread about the truth, over 7 joints × 201 samples.
        let sim_run = sim::simulate(&b, None);
        let rec = &sim_run.recording;
        let meas = &rec.measured.iter().find(|(n, _)| n == "i_meas").unwrap().1;
        let residuals: Vec<f64> = (rec.joints.iter().zip(meas))
            .map(|(j, m)| m - j.current)
            .collect();
        let std = (residuals.iter().map(|r| r * r).sum::<f64>() / residuals.len() as f64).sqrt();
        assert!(
            (std / (0.05 * factor) - 1.0).abs() < 0.1,
            "{std} vs {factor}"
        );
    }
    assert!(factors.windows(2).all(|w| w[0] != w[1]), "{factors:?}");
    // Levels far enough from the file's for the spread check to tell them apart.
    assert!(factors.iter().any(|f| (f - 1.0).abs() > 0.3), "{factors:?}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// The joint-level yardstick (`validation::study::joint_level`): on held-out Panda-family arms,
/// IDIM-OLS from each arm's own run lands far closer to the arm's base parameters than the
/// training arms' mean does; so it does on random arms of many structures against the training
/// arms' links put on each arm's kinematics.
#[test]
fn idim_beats_the_population_mean_on_held_out_panda_family_and_random_arms() {
    use validation::study::joint_level::{POPULATION_MEAN, evaluate};
    let read = |file: &str, arms: usize| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios")
            .join(file);
        let s = Scenario::from_path(&path).unwrap();
        let out = std::env::temp_dir().join(format!("validation-jl-{}-{file}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let runs = validation::study::cache::generate(&s, arms, &out).unwrap();
        std::fs::remove_dir_all(&out).unwrap();
        runs
    };
    let runs = read("population_panda.toml", 9);
    let options = validation::estimate::Options::default();
    let study = evaluate(
        Sensing::JointLevel,
        "population_panda",
        &runs[..6],
        &runs[6..],
        &[EstimatorId::IdimOls],
        &options,
    )
    .unwrap();
    assert_eq!((study.training_arms, study.held_out_arms), (6, 3));
    assert!(study.failures.is_empty(), "{:?}", study.failures);
    let error = |method: &str| -> Vec<f64> {
        (study.rows.iter())
            .filter(|r| r.method == method)
            .map(|r| r.median)
            .collect()
    };
    let (idim, mean) = (error("idim_ols"), error(POPULATION_MEAN));
    assert!(!idim.is_empty() && idim.len() == mean.len());
    for (i, m) in idim.iter().zip(&mean) {
        assert!(i * 5.0 < *m, "idim {i} against the population mean {m}");
    }
    // IDIM-OLS states its least-squares σ: a coverage is scored for it, and for no answer that
    // states none.
    for r in &study.rows {
        match r.method.as_str() {
            "idim_ols" => assert!(r.coverage.is_some_and(|c| c > 0.0 && c <= 1.0), "{r:?}"),
            _ => assert_eq!(r.coverage, None, "{r:?}"),
        }
    }
    // Random arms, each its own structure: the population's answer for an arm is the training
    // arms' links put on its kinematics; IDIM lands far closer on the arms read at or below the
    // file's noise (light random arms at several times that noise can be lost in it: the
    // study's 100 arms show IDIM still ahead there, 8 arms need not).
    let random = read("population_random.toml", 30);
    let study = evaluate(
        Sensing::JointLevel,
        "population_random",
        &random[..20],
        &random[20..],
        &[EstimatorId::IdimOls],
        &options,
    )
    .unwrap();
    assert_eq!(study.base_parameters, 0);
    assert!(study.failures.is_empty(), "{:?}", study.failures);
    let error = |method: &str| -> Vec<f64> {
        (study.rows.iter())
            .filter(|r| r.method == method && r.low < 1.0)
            .map(|r| r.median)
            .collect()
    };
    let (idim, mean) = (error("idim_ols"), error(POPULATION_MEAN));
    assert!(!idim.is_empty() && idim.len() == mean.len());
    for (i, m) in idim.iter().zip(&mean) {
        assert!(i * 5.0 < *m, "idim {i} against the population's links {m}");
    }
}

/// The joint-level NIM end to end (`validation::estimate::nim::joint`): trained on a few
/// Panda-family arms and saved, then read back by the registry's `nim` from its directory as
/// `estimate --nim-models` reads it. On held-out arms it answers every base parameter with a
/// standard deviation, and, starting from least squares, it stays within 2× IDIM-OLS's error
/// even when trained on too few arms to learn much; a directory of another structure's model
/// is refused by name.
#[test]
fn the_joint_level_nim_trains_saves_loads_and_stays_near_least_squares() {
    use validation::study::joint_level::train;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_panda.toml");
    let s = Scenario::from_path(&path).unwrap();
    let out = std::env::temp_dir().join(format!("validation-jl-nim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let runs = validation::study::cache::generate(&s, 26, &out.join("arms")).unwrap();
    let models = out.join("models");
    let trained = train(
        Sensing::JointLevel,
        "population_panda",
        &runs[..20],
        &quick(),
        &models,
    )
    .unwrap();
    assert_eq!((trained.arms, trained.calibration_arms), (16, 4));
    assert!(trained.sigma_scale.is_finite() && trained.sigma_scale > 0.0);
    let (study, options) = nim_beside_ols("population_panda", &runs, 20, &models);
    // The estimator itself: every base parameter with a σ, and a torque model.
    let nim = validation::estimate::by_name(&options, "nim").unwrap();
    let m = &runs[25].measurements;
    let experiment = validation::estimate::Experiment::new(vec![
        (validation::estimate::Role::Single, m),
        (validation::estimate::Role::Excitation, m),
    ]);
    let e = nim.estimate(&experiment).unwrap();
    for k in 1..=study.base_parameters {
        let v = &e.values[&validation::param::ParamId::Base(k)];
        assert!(
            v.value.is_some_and(f64::is_finite) && v.std.is_some_and(|s| s > 0.0),
            "{k}: {v:?}"
        );
    }
    assert!(e.predictor.is_some());
    // A random arm has other base parameters: the model says so.
    let random = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml");
    let r = validation::study::cache::generate(
        &Scenario::from_path(&random).unwrap(),
        1,
        &out.join("random"),
    )
    .unwrap();
    let m = &r[0].measurements;
    let experiment = validation::estimate::Experiment::new(vec![
        (validation::estimate::Role::Single, m),
        (validation::estimate::Role::Excitation, m),
    ]);
    let err = nim.estimate(&experiment).unwrap_err().to_string();
    assert!(err.contains("base parameters"), "{err}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// Another motion family for held-out scoring: the file's Fourier law with another base
/// frequency, harmonics and run length, and the next seed; a population without a Fourier
/// excitation is refused, naming the file.
#[test]
fn another_fourier_family_changes_the_motions_and_the_seed_only() {
    use validation::study::plan::populations::other_fourier_family;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let s = Scenario::from_path(&root.join("population_panda.toml")).unwrap();
    let (other, seed) = other_fourier_family(&s, 0.1, 8, 20.0).unwrap();
    let (p, q) = (
        s.file.population.as_ref().unwrap(),
        other.file.population.as_ref().unwrap(),
    );
    assert_eq!(seed, p.seed.unwrap() + 1);
    assert_eq!(q.seed, Some(seed));
    let f = q.fourier.as_ref().unwrap();
    assert_eq!(
        (f.base_frequency, f.harmonics, other.file.time.end),
        (0.1, 8, 20.0)
    );
    assert_eq!(
        (q.length.clone(), q.mass.clone()),
        (p.length.clone(), p.mass.clone())
    );
    let rail = Scenario::from_path(&root.join("population_rail.toml")).unwrap();
    let e = other_fourier_family(&rail, 0.1, 8, 20.0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("population_rail.toml") && e.contains("fourier"),
        "{e}"
    );
}

/// The joint-level NIM of random arms (each arm its own structure): trained on a few arms, it
/// keeps their links in its card, reads one base parameter at a time with each arm's prior from
/// those links, and answers every base parameter of a held-out arm of any structure with a σ,
/// staying within 2× IDIM-OLS's error.
#[test]
fn the_joint_level_nim_of_random_arms_reads_any_structure() {
    use validation::study::joint_level::train;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_random.toml");
    let s = Scenario::from_path(&path).unwrap();
    let out = std::env::temp_dir().join(format!("validation-jl-random-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let runs = validation::study::cache::generate(&s, 40, &out.join("arms")).unwrap();
    let models = out.join("models");
    let trained = train(
        Sensing::JointLevel,
        "population_random",
        &runs[..30],
        &quick(),
        &models,
    )
    .unwrap();
    assert_eq!(trained.widths.first(), Some(&2));
    let card = std::fs::read_to_string(models.join("joint.json")).unwrap();
    assert!(card.contains("\"links\""), "{card}");
    nim_beside_ols("population_random", &runs, 30, &models);
    std::fs::remove_dir_all(&out).unwrap();
}

/// The first `training` of `runs` as training arms, the rest held out: IDIM-OLS and the `nim`
/// of `models` scored on them; `nim` answers every held-out arm, within 2× IDIM-OLS's error and
/// with a σ in every noise band. The study and the options that load the model.
fn nim_beside_ols(
    population: &str,
    runs: &[sim::reading::Run],
    training: usize,
    models: &Path,
) -> (
    validation::study::joint_level::JointLevelStudy,
    validation::estimate::Options,
) {
    let options = validation::estimate::Options {
        nim_models: Some(models.to_path_buf()),
        ..Default::default()
    };
    let study = validation::study::joint_level::evaluate(
        validation::estimate::nim::joint::Sensing::JointLevel,
        population,
        &runs[..training],
        &runs[training..],
        &[EstimatorId::IdimOls, EstimatorId::Nim],
        &options,
    )
    .unwrap();
    assert!(study.failures.is_empty(), "{:?}", study.failures);
    let rows = |method: &str| -> Vec<_> {
        (study.rows.iter())
            .filter(|r| r.method == method)
            .cloned()
            .collect()
    };
    let (ols, nim) = (rows("idim_ols"), rows("nim"));
    assert!(!nim.is_empty() && ols.len() == nim.len());
    for (o, n) in ols.iter().zip(&nim) {
        assert!(
            n.median <= 2.0 * o.median,
            "nim {n:?} against idim_ols {o:?}"
        );
        assert!(n.coverage.is_some(), "{n:?}");
    }
    (study, options)
}

/// A quick training recipe for tests: two networks, two short lengths.
pub(crate) fn quick() -> validation::study::joint_level::Recipe {
    validation::study::joint_level::Recipe {
        members: 2,
        steps: vec![250, 500],
    }
}
