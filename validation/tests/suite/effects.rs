//! Effect sweeps of study files (`[[effect]]`, `validation::study::effect`): the severities are
//! written on every actuated joint and checked like any scenario; a study of them reports, per
//! severity and estimator, how the estimates degrade (the survival table).

use std::path::{Path, PathBuf};

use sim::friction::Friction;
use sim::scenario::Scenario;
use validation::study::effect::{EffectKind, scenario_at};
use validation::study::file::Study;

/// The registered effect `name` (as a study file names it).
fn kind(name: &str) -> EffectKind {
    EffectKind::named(name).unwrap_or_else(|| panic!("no effect `{name}` in the registry"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Panda's excitation over `end` seconds (its sensors kept), as a file in `dir`.
fn panda_file(dir: &Path, end: f64) -> PathBuf {
    let text = std::fs::read_to_string(root().join("scenarios/panda_excitation.toml"))
        .unwrap()
        .replace("end = 40.0", &format!("end = {end:?}"))
        .replace(
            "\"../models/panda.urdf\"",
            &format!("{:?}", root().join("models/panda.urdf")),
        );
    let path = dir.join("panda.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The Panda's validation trajectory over `end` seconds (its sensors kept), as `check.toml` in
/// `dir`.
fn validation_file(dir: &Path, end: f64) {
    let text = std::fs::read_to_string(root().join("scenarios/panda_validation.toml")).unwrap();
    let text = text
        .replace("end = 40.0", &format!("end = {end:?}"))
        .replace(
            "\"../models/panda.urdf\"",
            &format!("{:?}", root().join("models/panda.urdf")),
        );
    std::fs::write(dir.join("check.toml"), text).unwrap();
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validation-effects-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn an_effect_is_written_on_every_actuated_joint_and_checked_like_any_scenario() {
    let d = dir("write");
    let base = Scenario::from_path(&panda_file(&d, 1.0)).unwrap();
    let lossy = scenario_at(&base, kind("gear_efficiency"), 0.9).unwrap();
    assert!(
        lossy
            .drives
            .iter()
            .all(|j| j.motor.and_then(|m| m.gear_efficiency) == Some(0.9))
    );
    let lugre = scenario_at(&base, kind("lugre"), 2.0).unwrap();
    for (before, after) in base.drives.iter().zip(&lugre.drives) {
        let Some(Friction::CoulombViscous { coulomb, .. }) = before.friction else {
            panic!("the Panda's joints have Coulomb friction");
        };
        match after.friction {
            Some(Friction::Lugre(l)) => {
                assert_eq!((l.coulomb, l.static_friction), (coulomb, 2.0 * coulomb));
            }
            ref other => panic!("expected LuGre, got {other:?}"),
        }
    }
    // The edited file is what the manifest records and reads back to the same scenario.
    let again = Scenario::from_toml_in(&lugre.source, "again", &d).unwrap();
    assert_eq!(again.drives[3].friction, lugre.drives[3].friction);
    // A severity the simulator refuses names the field; an effect that needs what a joint
    // lacks names the joint.
    let e = scenario_at(&base, kind("gear_efficiency"), 1.2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("motor.gear_efficiency"), "{e}");
    let viscous = base.edited(|f| f.joint[2].friction = None).unwrap();
    let e = scenario_at(&viscous, kind("lugre"), 2.0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("joint[2]") && e.contains("coulomb_viscous"),
        "{e}"
    );
}

/// The rotor and sensor-chain effects: an armature of the stated reflected inertia on every
/// drive, and the current's laws put ahead of its noise (an analog stage before the
/// converter), with an entry of their own for the joints no entry covers.
#[test]
fn rotor_and_current_chain_effects_write_what_their_table_states() {
    use sim::noise::Noise;
    let d = dir("chain");
    let base = Scenario::from_path(&panda_file(&d, 1.0)).unwrap();
    let geared = scenario_at(&base, kind("armature"), 0.03).unwrap();
    for drive in &geared.drives {
        let sim::scenario::Transmission::Rigid { armature } = drive.transmission else {
            panic!("a rigid gear: {:?}", drive.transmission);
        };
        assert!((armature - 0.03).abs() < 1e-12, "{armature}");
    }
    let bare = scenario_at(&base, kind("armature"), 0.0).unwrap();
    assert!(
        bare.drives
            .iter()
            .all(|d| d.transmission == sim::scenario::Transmission::Direct)
    );

    let late = scenario_at(&base, kind("current_delay"), 2.0).unwrap();
    let current: Vec<_> = late.file.noise.iter().filter(|n| n.column == "i").collect();
    assert_eq!(current.len(), 1);
    assert_eq!(
        current[0].model,
        vec![Noise::Delay { samples: 2 }, Noise::Gaussian { sigma: 0.05 }]
    );
    let e = scenario_at(&base, kind("current_delay"), 1.5)
        .unwrap_err()
        .to_string();
    assert!(e.contains("current_delay") && e.contains("1.5"), "{e}");
    let unfiltered = scenario_at(&base, kind("anti_aliasing"), 0.0).unwrap();
    assert_eq!(unfiltered.file.noise, base.file.noise);

    // Noise on two joints' currents only: the filter joins them, and the other five get it
    // alone.
    let partial = base
        .edited(|f| {
            for n in f.noise.iter_mut().filter(|n| n.column == "i") {
                n.joints = Some(vec![1, 2]);
            }
        })
        .unwrap();
    let filtered = scenario_at(&partial, kind("anti_aliasing"), 20.0).unwrap();
    let law = Noise::AntiAliasing {
        order: 2,
        cutoff: 20.0,
    };
    let current: Vec<_> = (filtered.file.noise.iter())
        .filter(|n| n.column == "i")
        .collect();
    assert_eq!(current.len(), 2);
    assert_eq!(current[0].model[0], law);
    assert_eq!(current[1].joints, Some(vec![3, 4, 5, 6, 7]));
    assert_eq!(current[1].model, vec![law]);
}

/// The gear effects: `elasticity` puts the stated compliance behind a rotor of 0.1 kg·m² (the
/// same rotor rigid at 0), `backlash` the stated play in a stiff gear; a short run of the
/// played gear shows the motor side wandering inside the play while the link carries no
/// load from it, and never beyond play and spring.
#[test]
fn gear_effects_write_an_elastic_rotor_and_its_play() {
    use sim::scenario::Transmission;
    let d = dir("gear");
    let base = Scenario::from_path(&panda_file(&d, 2.0)).unwrap();
    let damping = |k: f64| 2.0 * 0.1 * (k * 0.1_f64).sqrt();
    let elastic = scenario_at(&base, kind("elasticity"), 1e-3).unwrap();
    for drive in &elastic.drives {
        let Transmission::Elastic { spring, inertia } = drive.transmission else {
            panic!("an elastic gear: {:?}", drive.transmission);
        };
        assert!((inertia - 0.1).abs() < 1e-12, "{inertia}");
        assert!((spring.stiffness - 1e3).abs() < 1e-9, "{spring:?}");
        assert!((spring.damping - damping(1e3)).abs() < 1e-12, "{spring:?}");
        assert_eq!(spring.backlash, 0.0);
    }
    let rigid = scenario_at(&base, kind("elasticity"), 0.0).unwrap();
    for drive in &rigid.drives {
        assert_eq!(drive.transmission, Transmission::Rigid { armature: 0.1 });
    }
    let e = scenario_at(&base, kind("elasticity"), -1e-3)
        .unwrap_err()
        .to_string();
    assert!(e.contains("joint[0]") && e.contains("compliance"), "{e}");

    let play = 2e-3;
    let played = scenario_at(&base, kind("backlash"), play).unwrap();
    for drive in &played.drives {
        let Transmission::Elastic { spring, .. } = drive.transmission else {
            panic!("an elastic gear: {:?}", drive.transmission);
        };
        assert_eq!((spring.stiffness, spring.backlash), (1e4, play));
    }
    let e = scenario_at(&base, kind("backlash"), -1e-3)
        .unwrap_err()
        .to_string();
    assert!(e.contains("backlash"), "{e}");

    // Joint 7 (a light link behind a heavy rotor): its gear's deflection stays within the
    // play plus the spring's share of the largest torque it carries, and some samples sit
    // inside the play, where the link sees no spring torque.
    let run = sim::simulate(&played, None);
    assert!(run.manifest.invalid.is_none(), "{:?}", run.manifest.invalid);
    let rec = &run.recording;
    let nj = rec.joint_ids.len();
    let seven: Vec<_> = rec.joints.iter().skip(nj - 1).step_by(nj).collect();
    let peak = seven.iter().map(|j| j.tau.abs()).fold(0.0, f64::max);
    let within = seven
        .iter()
        .filter(|j| (j.q_motor - j.q).abs() < 0.5 * play);
    assert!(within.count() > 0, "the motor side never inside the play");
    for j in &seven {
        let deflection = (j.q_motor - j.q).abs();
        assert!(deflection <= 0.5 * play + peak / 1e4 + 1e-3, "{deflection}");
    }
}

#[test]
fn a_study_of_an_effect_reports_how_each_estimate_degrades_with_its_severity() {
    let d = dir("study");
    panda_file(&d, 20.0);
    let names = validation::estimate::registry_names();
    validation_file(&d, 10.0);
    let text = "name = \"efficiency\"\nscenarios = [\"panda.toml\"]\nvalidation = [\"check.toml\"]\nseeds = 3\nestimators = [\"idim_ols\"]\n\n[[effect]]\nkind = \"gear_efficiency\"\nlevels = [1.0, 0.98, 0.95, 0.9]\n";
    let path = d.join("study.toml");
    std::fs::write(&path, text).unwrap();
    let study = Study::from_path(&path, &names).unwrap();
    let render = |r: &validation::study::sweep::SweepResult, dir: &Path| {
        validation::report::sweep::write(r, dir)
    };
    let out = d.join("out");
    let result = validation::study::run_into(&study, &out, None, &render).unwrap();
    let lines: Vec<_> = result
        .survival
        .iter()
        .map(|r| (r.level, r.rel_bias, r.biased))
        .collect();
    // The identified model predicts the validation run's joint torques worse as the losses grow.
    let nrms: Vec<f64> = (result.survival.iter())
        .map(|r| r.torque_nrms.expect("a validation run"))
        .collect();
    eprintln!("gear efficiency, IDIM-OLS validation torque NRMS: {nrms:?}");
    assert!(nrms[0] < 0.05, "{nrms:?}");
    assert!(nrms.windows(2).all(|w| w[1] > w[0]), "{nrms:?}");
    eprintln!("gear efficiency, IDIM-OLS (level, median |bias|/|truth|, biased): {lines:?}");
    assert_eq!(lines.len(), 4);
    // Exact efficiency: the scenario's own sensor noise only; losses bias the current-based
    // torques more the larger they are.
    assert!(lines[0].1 < 0.02, "{lines:?}");
    assert!(lines.windows(2).all(|w| w[1].1 > w[0].1), "{lines:?}");
    assert!(lines[3].1 > 0.1 && lines[3].2 > lines[0].2, "{lines:?}");
    let md = std::fs::read_to_string(out.join("survival.md")).unwrap();
    assert!(md.contains("| gear_efficiency | 9.000e-1 |"), "{md}");
    assert!(md.contains(" · τ "), "{md}");
    let csv = std::fs::read_to_string(out.join("effects.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + result.effects.len());
    // Too few severities is refused naming the field.
    let few = text.replace("[1.0, 0.98, 0.95, 0.9]", "[1.0, 0.9]");
    std::fs::write(&path, few).unwrap();
    let e = Study::from_path(&path, &names).unwrap_err().to_string();
    assert!(e.contains("effect[0].levels"), "{e}");
}

/// The mismatch effects change what the estimators are told, not the arm: link lengths scaled
/// from the first joint on, joint coordinates offset with alternating signs.
#[test]
fn a_mismatch_tells_the_estimators_other_kinematics_and_offset_angles() {
    let d = dir("tell");
    let base = Scenario::from_path(&panda_file(&d, 0.2)).unwrap();
    let sim_run = sim::simulate(&base, None);
    let run = sim::reading::from_simulated(&sim_run, Path::new(".")).unwrap();
    let anchors = |m: &sim::reading::Measurements| -> Vec<nalgebra::Vector3<f64>> {
        m.geometry
            .links
            .iter()
            .map(|l| nalgebra::Vector3::from(l.joint.anchor))
            .collect()
    };
    let mut told = run.measurements.clone();
    kind("link_length_error").tell(&mut told, 0.05);
    let (before, after) = (anchors(&run.measurements), anchors(&told));
    assert_eq!(before[0], after[0]);
    for k in 1..before.len() {
        let (a, b) = (
            (before[k] - before[k - 1]).norm(),
            (after[k] - after[k - 1]).norm(),
        );
        assert!(
            (b - 1.05 * a).abs() <= 1e-12 * (1.0 + a),
            "link {k}: {a} → {b}"
        );
    }
    let mut told = run.measurements.clone();
    kind("joint_offset_error").tell(&mut told, 0.01);
    for (j, (a, b)) in run.measurements.joints.iter().zip(&told.joints).enumerate() {
        let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
        assert!(
            a.q.iter()
                .zip(&b.q)
                .all(|(x, y)| (y - x - sign * 0.01).abs() < 1e-15)
        );
        assert_eq!(
            b.measured_or_clean(sim::recording::JointColumn::Q),
            b.q.as_slice()
        );
    }
    // The arm is untouched: the scenario at any severity is the scenario.
    let same = scenario_at(&base, kind("link_length_error"), 0.05).unwrap();
    assert_eq!(same.file.joint.len(), base.file.joint.len());
}

/// An unmodelled payload is in the arm (its last body carries the point mass the effect
/// states), not in the unedited scenario whose truth the study scores against.
#[test]
fn a_payload_effect_loads_the_last_link_with_the_stated_point_mass() {
    let d = dir("payload");
    let base = Scenario::from_path(&panda_file(&d, 1.0)).unwrap();
    let loaded = scenario_at(&base, kind("payload"), 2.0).unwrap();
    let (before, after) = (&base.chain.links[6].body, &loaded.chain.links[6].body);
    assert!((after.mass - before.mass - 2.0).abs() < 1e-12);
    let joint = &base.chain.links[6].joint;
    let point = nalgebra::Vector3::from(joint.anchor) + 0.1 * nalgebra::Vector3::from(joint.axis);
    let centroid = (before.mass * nalgebra::Vector3::from(before.centroid) + 2.0 * point)
        / (before.mass + 2.0);
    assert!((nalgebra::Vector3::from(after.centroid) - centroid).norm() < 1e-12);
    assert_eq!(base.chain.links[..6], loaded.chain.links[..6]);
    let none = scenario_at(&base, kind("payload"), 0.0).unwrap();
    assert_eq!(none.chain, base.chain);
    let e = scenario_at(&base, kind("payload"), -1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("payload.mass"), "{e}");
}

/// The F/T effects write the joints' force/torque sensors: the stated cross-talk pattern (its
/// entries written out here), and the analog chain's laws, on every F/T sensor, a sensor of its
/// own added for the bodies none covers; 0 writes nothing.
#[test]
fn force_torque_effects_write_every_sensor_and_cover_every_body() {
    use sim::noise::Noise;
    use sim::sensor::Sensor;
    let base = Scenario::from_path(&root().join("scenarios/arm6_fourier.toml")).unwrap();
    let ft = |s: &Scenario| -> Vec<Sensor> {
        (s.file.sensor.iter())
            .filter(|s| matches!(s, Sensor::ForceTorque { .. }))
            .cloned()
            .collect()
    };
    let mixed = scenario_at(&base, kind("ft_cross_talk"), 0.01).unwrap();
    let [
        Sensor::ForceTorque {
            bodies, cross_talk, ..
        },
    ] = &ft(&mixed)[..]
    else {
        panic!("one F/T sensor: {:?}", ft(&mixed));
    };
    assert_eq!(bodies.as_deref(), Some(&[1, 2, 3, 4, 5, 6][..]));
    let c = cross_talk.as_deref().expect("a cross-talk");
    let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
    // Force from force ±ε, force from moment ±ε / 0.05 m, moment from force ±ε · 0.05 m.
    assert!(close(c[0][0], 0.0) && close(c[0][1], -0.01) && close(c[0][2], 0.01));
    assert!(close(c[0][3], -0.2) && close(c[1][3], 0.2) && close(c[2][5], -0.2));
    assert!(close(c[3][0], -5e-4) && close(c[4][0], 5e-4) && close(c[5][5], 0.0));
    assert!(close(c[4][5], -0.01) && close(c[3][5], 0.01));

    // A scenario whose sensor covers body 2 only: its chain gets the delay, and a sensor
    // without errors the other bodies.
    let text = std::fs::read_to_string(root().join("scenarios/arm6_fourier.toml")).unwrap();
    let text = format!(
        "{text}\n[[sensor]]\ntype = \"force_torque\"\nbodies = [2]\nforce = {{ sigma = 1.0 }}\n"
    );
    let covered = Scenario::from_toml(&text, "covered").unwrap();
    let late = scenario_at(&covered, kind("ft_delay"), 2.0).unwrap();
    let sensors = ft(&late);
    assert_eq!(sensors.len(), 2, "{sensors:?}");
    for s in &sensors {
        let Sensor::ForceTorque { chain, .. } = s else {
            unreachable!()
        };
        assert_eq!(chain, &[Noise::Delay { samples: 2 }]);
    }
    assert!(
        matches!(&sensors[1], Sensor::ForceTorque { bodies: Some(b), .. } if b == &[1, 3, 4, 5, 6])
    );
    let filtered = scenario_at(&covered, kind("ft_anti_aliasing"), 5.0).unwrap();
    assert!(ft(&filtered).iter().all(|s| matches!(s,
        Sensor::ForceTorque { chain, .. } if chain == &[Noise::AntiAliasing { order: 2, cutoff: 5.0 }])));
    for kind in [
        kind("ft_cross_talk"),
        kind("ft_delay"),
        kind("ft_anti_aliasing"),
    ] {
        assert_eq!(
            scenario_at(&covered, kind, 0.0).unwrap().file.sensor,
            covered.file.sensor
        );
    }
    let e = scenario_at(&covered, kind("ft_delay"), 1.5)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ft_delay"), "{e}");
    // Above the 25 Hz Nyquist frequency of its 50 Hz samples: refused naming the field.
    let e = scenario_at(&covered, kind("ft_anti_aliasing"), 30.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("chain[0].cutoff"), "{e}");
}

/// MIM under a late F/T reading: arm6 measured by its own noisy sensors, the wrench read two
/// samples (40 ms) late against the IMUs; body by body, the identified parameters are biased
/// beyond their spread over the seeds, where on time they are not.
#[test]
fn mim_is_biased_by_a_late_wrench_reading() {
    let d = dir("ft_delay");
    let names = validation::estimate::registry_names();
    let path = d.join("study.toml");
    let scenario = root().join("scenarios/arm6_sensors.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"late\"\nscenarios = [{:?}]\nseeds = 4\nestimators = [\"mim_stacked\"]\n\
             [[effect]]\nkind = \"ft_delay\"\nlevels = [0.0, 1.0, 2.0, 4.0]\n",
            scenario.display().to_string()
        ),
    )
    .unwrap();
    let study = Study::from_path(&path, &names).unwrap();
    let render = |r: &validation::study::sweep::SweepResult, dir: &Path| {
        validation::report::survival::write(r, dir)
    };
    let result = validation::study::run_into(&study, &d.join("out"), None, &render).unwrap();
    let lines: Vec<_> = (result.survival.iter())
        .map(|r| (r.level, r.rel_bias, r.biased, r.parameters))
        .collect();
    eprintln!("ft_delay, mim_stacked (level, median |bias|/|truth|, biased, counted): {lines:?}");
    assert_eq!(lines.len(), 4);
    assert!(lines[0].1 < 1e-3, "{lines:?}");
    assert!(lines.windows(2).all(|w| w[1].1 > w[0].1), "{lines:?}");
    assert!(
        lines[2].1 > 0.01 && lines[2].2 > lines[2].3 / 2,
        "{lines:?}"
    );
    assert!(d.join("out").join("survival_late.png").exists());
}

/// The encoders' resolution is in the angles the identifiers read (every reading a whole
/// multiple of it, within half of it of the reading without the effect: the converter comes
/// after the sensor's noise), not in the arm; 0 writes nothing, a negative resolution is
/// refused naming the field.
#[test]
fn an_encoder_resolution_quantizes_the_angles_read_and_only_those() {
    let d = dir("encoder");
    let base = Scenario::from_path(&panda_file(&d, 0.2)).unwrap();
    let resolution = 1e-3;
    let coarse = scenario_at(&base, kind("encoder_resolution"), resolution).unwrap();
    let read = |s: &Scenario| {
        sim::reading::from_simulated(&sim::simulate(s, None), Path::new(".")).unwrap()
    };
    let (run, plain) = (read(&coarse), read(&base));
    for (joint, before) in run
        .measurements
        .joints
        .iter()
        .zip(&plain.measurements.joints)
    {
        assert_eq!(joint.q.len(), before.q.len());
        for (q, q0) in joint.q.iter().zip(&before.q) {
            let steps = q / resolution;
            assert!(
                (steps - steps.round()).abs() < 1e-9,
                "{q} is not a multiple"
            );
            assert!((q - q0).abs() <= 0.5 * resolution + 1e-12, "{q} vs {q0}");
        }
        // The current reads as it did.
        assert_eq!(joint.motor_torque(), before.motor_torque());
    }
    // The arm moved as without the effect.
    assert_eq!(run.clean.joints[3].q, plain.clean.joints[3].q);
    let exact = scenario_at(&base, kind("encoder_resolution"), 0.0).unwrap();
    assert_eq!(exact.file.noise, base.file.noise);
    let e = scenario_at(&base, kind("encoder_resolution"), -1e-3)
        .unwrap_err()
        .to_string();
    assert!(e.contains("resolution"), "{e}");
}

/// `cogging` writes its amplitude on every actuated joint with a direct drive's 36 detents a
/// revolution, and the recorded passive force carries it; 0 writes none, a negative amplitude
/// is refused naming the field.
#[test]
fn cogging_is_written_on_every_actuated_joint_and_felt() {
    let d = dir("cogging");
    let base = Scenario::from_path(&panda_file(&d, 0.2)).unwrap();
    let cogged = scenario_at(&base, kind("cogging"), 0.5).unwrap();
    for drive in &cogged.drives {
        let c = drive
            .terms
            .cogging
            .expect("cogging on every actuated joint");
        assert_eq!((c.amplitude, c.phase), (0.5, 0.0));
        assert!((c.period - std::f64::consts::TAU / 36.0).abs() < 1e-15);
    }
    let (with, without) = (sim::simulate(&cogged, None), sim::simulate(&base, None));
    assert!(
        with.manifest.invalid.is_none(),
        "{:?}",
        with.manifest.invalid
    );
    let (a, b) = (&with.recording, &without.recording);
    let k = a.t.len() - 1;
    for (j, drive) in cogged.drives.iter().enumerate() {
        let r = a.joint(k, j);
        let friction = drive.friction.as_ref().unwrap().with_state(r.q, r.qd, 0.0);
        let expected = -drive.damping * r.qd - friction + drive.terms.cogging.unwrap().force(r.q);
        assert!((r.tau_friction - expected).abs() < 1e-12, "joint {j}");
    }
    // The servos feel it: the arm leaves the path it took without.
    assert!((0..cogged.drives.len()).any(|j| a.joint(k, j).q != b.joint(k, j).q));
    let plain = scenario_at(&base, kind("cogging"), 0.0).unwrap();
    assert!(plain.drives.iter().all(|d| d.terms.cogging.is_none()));
    let e = scenario_at(&base, kind("cogging"), -1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("cogging.amplitude"), "{e}");
}
