//! The estimation API: every estimator registered, estimators reading the measured columns, and
//! the `estimate` command on a scenario a user writes.

use std::path::{Path, PathBuf};

use nalgebra::{DMatrix, DVector, Vector3};
use validation::estimate::mim::algorithm::{PARAMETERS, body_equations};
use validation::estimate::{Estimator, Experiment, Options, ParamId};

fn rail(extra: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join("scenarios/paper_rail.toml"))
        .unwrap()
        .replace("end = 2.0", "end = 0.4")
        + extra
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validation-estimate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn registry_lists_every_estimator_of_the_project() {
    let names = validation::estimate::registry_names();
    assert_eq!(
        names,
        [
            "mim_single",
            "mim_stacked",
            "mim_arm",
            "mim_gls",
            "mim_standard",
            "mim_encoders",
            "frequency_paper",
            "frequency_linearized",
            "time_domain",
            "time_domain_fourier",
            "friction_sweep",
            "idim_ols",
            "idim_wls",
            "idim_tls",
            "idim_irls",
            "idim_iv",
            "didim",
            "cloe",
            "ekf",
            "ukf",
            "two_step",
            "adaptive",
            "idim_prior",
            "idim_consistent",
            "idim_single",
            "nim",
            "nim_encoders",
        ]
    );
}

#[test]
fn mim_moves_with_the_measured_wrench_exactly_as_least_squares_predicts() {
    let text = rail(
        "\n[[noise]]\ncolumn = \"f\"\nbodies = [3]\nmodel = [{ type = \"gaussian\", sigma = 0.5 }]\n",
    );
    let scenario = sim::scenario::Scenario::from_toml(&text, "noisy_f.toml").unwrap();
    let run = sim::reading::from_simulated(&sim::simulate(&scenario, None), &tmp("f")).unwrap();
    let stacked = validation::estimate::mim::Stacked::default();
    let noisy = stacked
        .estimate(&Experiment::single(&run.measurements))
        .unwrap();
    let clean = stacked.estimate(&Experiment::single(&run.clean)).unwrap();
    // f_3's error enters body 3's equations (its own joint) and body 2's (its child's joint).
    let df: Vec<Vector3<f64>> = (0..run.clean.samples())
        .map(|k| run.measurements.bodies[2].force[k] - run.clean.bodies[2].force[k])
        .collect();
    assert!(df.iter().all(|d| d.norm() > 0.0));
    for (b, sign) in [(1usize, -1.0), (2, 1.0)] {
        let body = &run.clean.bodies[b];
        let mut y = DMatrix::zeros(0, 6);
        let mut dz = DVector::zeros(0);
        for (k, d) in df.iter().enumerate() {
            let (yk, _) = body_equations(&run.clean, b, k).unwrap();
            let r = sim::kinematics::rotation_from_cardan(&body.euler[k]);
            let o3 = run.clean.bodies[2].joint_point[k];
            let dm = r.inverse() * (sign * (o3 - body.pos[k]).cross(d));
            let rows = y.nrows();
            y = y.insert_rows(rows, 6, 0.0);
            y.view_mut((rows, 0), (6, 6)).copy_from(&yk);
            dz = dz.insert_rows(rows, 6, 0.0);
            dz.rows_mut(rows, 3).copy_from(&(sign * d));
            dz.rows_mut(rows + 3, 3).copy_from(&dm);
        }
        // Body 2 and 3 have every parameter identifiable in this motion.
        let predicted = (y.transpose() * &y).try_inverse().unwrap() * y.transpose() * dz;
        for i in 0..PARAMETERS.len() {
            let id = validation::estimate::mim::algorithm::param(b as u8 + 1, i);
            let (n, c) = (
                noisy.values[&id].value.unwrap(),
                clean.values[&id].value.unwrap(),
            );
            assert!(
                ((n - c) - predicted[i]).abs() <= 1e-8 * (1.0 + predicted[i].abs()),
                "{id}: moved {:e}, least squares predicts {:e}",
                n - c,
                predicted[i]
            );
        }
    }
    // Body 1 does not see f_3.
    let b1 = ParamId::mass(1);
    let id = validation::estimate::mim::algorithm::param(1, 0);
    assert_eq!(noisy.values[&id], clean.values[&id]);
    assert!(!noisy.values.contains_key(&b1));
}

#[test]
fn estimate_command_scores_a_users_own_scenario_and_explains_the_rest() {
    let dir = tmp("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let text = rail(
        "\n[[sensor]]\ntype = \"force_torque\"\nforce = { sigma = 0.05 }\ntorque = { sigma = 0.005 }\n",
    );
    let scenario = sim::scenario::Scenario::from_toml(&text, "mine.toml").unwrap();
    let simulated = sim::simulate(&scenario, None);
    let run_dir = dir.join("my_run");
    sim::dataset::write_run(&run_dir, &simulated.recording, &simulated.manifest, false).unwrap();
    let out = dir.join("est.csv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_validation"))
        .args([
            "estimate",
            run_dir.to_str().unwrap(),
            run_dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("run,method,parameter,truth,estimate,std,abs_error,rel_error,identifiable")
    );
    let gls: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",mim_gls,B3.j22,"))
        .collect();
    assert_eq!(gls.len(), 2, "{csv}");
    let fields: Vec<&str> = gls[0].split(',').collect();
    let (truth, est, std): (f64, f64, f64) = (
        fields[3].parse().unwrap(),
        fields[4].parse().unwrap(),
        fields[5].parse().unwrap(),
    );
    assert!((est - truth).abs() < 6.0 * std && std > 0.0, "{}", gls[0]);
    assert!(
        csv.lines()
            .any(|l| l.starts_with("paper_rail,mim_stacked,B1.m_e2,") && l.ends_with(",,,,,false"))
    );
    assert!(
        stdout.contains("skipped nim: needs trained NIM models"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped idim_ols: needs an excitation run (role `excitation`)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped two_step: needs forward/backward sweep runs"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped idim_consistent: needs a prior model: `--prior FILE.urdf`"),
        "{stdout}"
    );
    let summary = std::fs::read_to_string(dir.join("est.summary.csv")).unwrap();
    assert!(summary.starts_with("method,parameter,truth,mean,bias,std,rmse,runs\n"));
    assert!(summary.contains("mim_gls,B3.j22,"));
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_validation"))
        .args([
            "estimate",
            run_dir.to_str().unwrap(),
            "--only",
            "mim_magic",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no estimator `mim_magic`"));
    // Asked for estimators that all do not apply (NIM without models): an error, no table.
    let _ = std::fs::remove_file(&out);
    let none = std::process::Command::new(env!("CARGO_BIN_EXE_validation"))
        .args([
            "estimate",
            run_dir.to_str().unwrap(),
            "--only",
            "nim",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert!(!none.status.success(), "{stderr}");
    assert!(
        stderr.contains("nothing written") && stderr.contains("nim: needs trained NIM"),
        "{stderr}"
    );
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn encoder_only_kinematics_agree_with_the_recorded_bodies_and_mim_runs_on_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenarios/arm6_fourier.toml")).unwrap();
    let scenario = sim::scenario::Scenario::from_toml(&text, "arm6_fourier.toml").unwrap();
    let run = sim::reading::from_simulated(&sim::simulate(&scenario, None), &tmp("enc")).unwrap();
    let view = validation::encoder::reconstruct(&run.clean);
    for (b, (rec, enc)) in run.clean.bodies.iter().zip(&view.bodies).enumerate() {
        let n = run.clean.samples();
        for k in 0..n {
            // Poses to rounding; rates and accelerations to the discrete world's O(dt)
            // difference and the differentiator's truncation: O(h⁴) inside, O(h³) at the two
            // samples of each end (one-sided stencils).
            let tol = if (2..n - 2).contains(&k) { 1e-3 } else { 3e-2 };
            assert!(
                (rec.pos[k] - enc.pos[k]).norm() < 1e-6,
                "B{} pos at {k}",
                b + 1
            );
            let dw = (rec.omega[k] - enc.omega[k]).norm() / (1.0 + rec.omega[k].norm());
            let da = (rec.acc[k] - enc.acc[k]).norm() / (1.0 + rec.acc[k].norm());
            assert!(
                dw < tol && da < tol,
                "B{} at {k}: ω {dw:e}, r̈ {da:e}",
                b + 1
            );
        }
    }
    let ex = Experiment::single(&run.measurements);
    let enc = validation::estimate::mim::MimEncoders
        .estimate(&ex)
        .unwrap();
    let stacked = validation::estimate::mim::Stacked::default()
        .estimate(&ex)
        .unwrap();
    let truth = validation::param::truth_table(&run.manifest.model);
    for (id, e) in &enc.values {
        assert_eq!(e.identifiable(), stacked.values[id].identifiable(), "{id}");
        if let Some(v) = e.value {
            assert!(
                ((v - truth[id]) / truth[id]).abs() < 1e-3,
                "{id}: {v} vs {}",
                truth[id]
            );
        }
    }
}

#[test]
fn estimate_writes_physically_consistent_models_as_urdf() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tmp("urdf-out");
    let path = root.join("scenarios/panda_excitation.toml");
    // Three periods of 10 s: the first dropped, two identified.
    let scenario = sim::scenario::Scenario::from_path(&path)
        .unwrap()
        .edited(|f| {
            assert_eq!(f.time.end, 40.0, "the scenario changed: update this test");
            f.time.end = 30.0;
        })
        .unwrap();
    let simulated = sim::simulate(&scenario, None);
    let run_dir = dir.join("panda");
    sim::dataset::write_run(&run_dir, &simulated.recording, &simulated.manifest, false).unwrap();
    // The prior: the arm's own file (a user's CAD model).
    let prior = root.join("models/panda.urdf");
    let models = dir.join("models");
    let out = dir.join("est.csv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_validation"))
        .args(["estimate", &format!("excitation={}", run_dir.display())])
        .args(["--only", "idim_prior,idim_consistent,idim_ols", "--prior"])
        .args([prior.as_os_str(), "--urdf-out".as_ref(), models.as_os_str()])
        .args(["--out".as_ref(), out.as_os_str()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let written = models.join("panda_excitation.idim_consistent.urdf");
    assert!(
        stdout.contains(&format!("wrote {}", written.display())),
        "{stdout}"
    );
    let back = sim::urdf::read(&written).unwrap();
    assert_eq!(back.len(), 7);
    for l in &back.links {
        let p = sim::dynamics::StandardParameters::from_central(
            l.body.mass,
            &Vector3::zeros(),
            &l.body.inertia_body(),
        );
        sim::physical::check(&p).unwrap();
    }
    // Base-parameter OLS gives no model to write.
    assert!(!models.join("panda_excitation.idim_ols.urdf").exists());
    let csv = std::fs::read_to_string(&out).unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("panda_excitation,idim_consistent,B4.m,")),
        "{csv}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mim_on_standard_parameters_recovers_full_tensors_and_off_axis_centroids() {
    use validation::param::Inertial;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tmp("mim-standard");
    let scenario =
        sim::scenario::Scenario::from_path(&root.join("scenarios/panda_validation.toml"))
            .unwrap()
            .edited(|f| f.time.end = 10.0)
            .unwrap();
    let run = sim::reading::write_and_read(&sim::simulate(&scenario, None), &dir).unwrap();
    let mim = validation::estimate::by_name(&Options::default(), "mim_standard").unwrap();
    // Ideal sensors: the clean columns, without the run's measured copies.
    let clean = validation::study::teaching::measurements(&run.clean, None).unwrap();
    let est = mim.estimate(&Experiment::single(&clean)).unwrap();
    let truth = validation::param::truth_table(&run.manifest.model);
    for body in 1..=7u8 {
        for quantity in [
            Inertial::Mass,
            Inertial::FirstMoment(1),
            Inertial::FirstMoment(2),
            Inertial::FirstMoment(3),
            Inertial::Moment(1),
            Inertial::Moment(2),
            Inertial::Moment(3),
        ] {
            let id = ParamId::Body { body, quantity };
            let value = est.values[&id].value;
            // Link 1 turns about a fixed vertical axis: only its mass is determined.
            if body == 1 && quantity != Inertial::Mass {
                assert_eq!(value, None, "{id}");
                continue;
            }
            let (v, t) = (
                value.unwrap_or_else(|| panic!("{id} not identified")),
                truth[&id],
            );
            let scale = match quantity {
                Inertial::Mass => t,
                Inertial::FirstMoment(_) => truth[&ParamId::mass(body)] * 0.1,
                _ => truth[&ParamId::moment(body, 3)],
            };
            assert!((v - t).abs() <= 1e-8 * scale, "{id}: {v} vs {t}");
        }
    }
    assert!(est.standard.is_none(), "link 1 is not fully determined");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Identifiability that means it (issue 25): on a clean run of a public 6-DOF arm (the UR10 as
/// ROS-Industrial describes it), every base combination `idim_single` calls identifiable is at
/// the truth to 1e-8 (relative to the larger of 1 and its value), and the motion determines at
/// least 30 of them.
#[test]
fn idim_single_calls_identifiable_only_what_a_clean_public_arm_run_determines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario =
        sim::scenario::Scenario::from_path(&root.join("scenarios/ur10_fourier.toml")).unwrap();
    identifies_exactly(&scenario, "ur10");
}

/// The same under MuJoCo's gravity (9.81, where a URDF's is 9.80665), stated by the scenario:
/// the estimators take the run's gravity from its model, so the clean run still identifies to
/// 1e-8 (with the standard gravity the gravity parameters would be off by 3e-4).
#[test]
fn estimators_take_the_runs_gravity() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenarios/ur10_fourier.toml")).unwrap();
    let text = format!("gravity = [0.0, 0.0, -9.81]\n{text}");
    let scenario =
        sim::scenario::Scenario::from_toml_in(&text, "ur10_g981", &root.join("scenarios")).unwrap();
    assert_eq!(scenario.chain.gravity, [0.0, 0.0, -9.81]);
    identifies_exactly(&scenario, "ur10_g981");
}

/// IDIM on the single run of `scenario`: every parameter it calls identifiable within 1e-8 of
/// the truth, and at least 30 of them.
fn identifies_exactly(scenario: &sim::scenario::Scenario, name: &str) {
    let dir = tmp(name);
    let run = sim::reading::write_and_read(&sim::simulate(scenario, None), &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let truth = validation::param::truth_table(&run.manifest.model);
    let estimates = validation::estimate::idim::single::IdimSingle
        .estimate(&Experiment::single(&run.measurements))
        .unwrap();
    let mut identifiable = 0;
    for (id, e) in &estimates.values {
        let Some(value) = e.value else { continue };
        identifiable += 1;
        let t = truth[id];
        assert!(
            (value - t).abs() <= 1e-8 * t.abs().max(1.0),
            "{id}: {value:e} against the truth {t:e} (std {:?})",
            e.std
        );
    }
    assert!(identifiable >= 30, "{identifiable} identifiable");
}

/// `armid`, the one command: the simulation side (`check`), the estimation side (`estimate`)
/// and shell completions, as the `sim` and `validation` binaries are their aliases.
#[test]
fn armid_has_both_sides_and_writes_completions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let armid = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_armid"))
            .args(args)
            .output()
            .unwrap()
    };
    let scenario = root.join("scenarios/paper_rail.toml");
    let check = armid(&["check", scenario.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(String::from_utf8_lossy(&check.stdout).contains("samples"));
    let bad = armid(&[
        "estimate",
        "/nonexistent/run",
        "--out",
        "/nonexistent/x.csv",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/nonexistent/run"));
    for shell in ["bash", "zsh", "fish"] {
        let c = armid(&["completions", shell]);
        assert!(c.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&c.stdout);
        assert!(
            script.contains("armid") && script.contains("replay"),
            "{shell}"
        );
    }
}

/// `armid estimators` lists every estimator of the registry, one line each, with its family and
/// what it needs.
#[test]
fn armid_estimators_lists_the_registry() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_armid"))
        .arg("estimators")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let names = validation::estimate::registry_names();
    assert_eq!(lines.len(), names.len(), "{text}");
    for (line, name) in lines.iter().zip(&names) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[0], name, "{line}");
        assert!(
            ["mim", "frequency", "time_domain", "idim", "nim"].contains(&words[1]),
            "{line}: a family of the project"
        );
        assert!(words.len() > 4, "{line}: what it needs");
    }
}

/// A `_meas` column of `joints.parquet` that is no joint column's copy is refused, by file and
/// column, not read as a column estimators would skip.
#[test]
fn an_unknown_measured_joint_column_is_refused_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenario = sim::scenario::Scenario::from_path(&root.join("scenarios/paper_rail.toml"))
        .unwrap()
        .edited(|f| {
            f.time.end = 0.1;
            f.noise.push(sim::noise::ColumnNoise {
                column: "q".into(),
                joints: None,
                bodies: None,
                model: vec![sim::noise::Noise::Gaussian { sigma: 1e-3 }],
            });
        })
        .unwrap();
    let mut run = sim::simulate(&scenario, None);
    let dir = tmp("bad-meas");
    sim::reading::write_and_read(&run, &dir.join("good")).unwrap();
    run.recording.measured[0].0 = "qx_meas".into();
    sim::dataset::write_run(&dir.join("bad"), &run.recording, &run.manifest, false).unwrap();
    let err = sim::reading::read_run(&dir.join("bad"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("joints.parquet") && err.contains("qx_meas") && err.contains("tau_meas"),
        "{err}"
    );
}
