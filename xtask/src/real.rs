//! `cargo xtask reproduce --only real`: a real robot's recording through the whole path a user
//! takes with their own: FIGAROH's Stäubli TX40 recording (`shared/data/tx40/`, Apache-2.0;
//! its README gives the source) written as the wide CSV `validation import` reads (motor-side
//! angles and torques at 5 kHz), imported through `models/tx40/recording.toml` (gear ratios, the
//! coupled wrist, the MDH offsets), identified by the IDIM family and validated by prediction
//! ([`validation::study::recorded`]), beside FIGAROH's published drive parameters.

use std::path::Path;

use validation::signal::Lowpass;

/// The recording's sample rate (Hz): FIGAROH's `ts = 0.0002` s.
const RATE: f64 = 5000.0;
/// The low-pass: FIGAROH's effective filter (order 4, `Wn = 0.01` of Nyquist: 25 Hz).
const LOWPASS: Lowpass = Lowpass::Butterworth {
    order: 4,
    cutoff: 25.0,
};
/// Fraction of the time span held out for validation.
const HOLDOUT: f64 = 0.3;

/// Runs the part; writes `out/runs/tx40` and `out/report/real_tx40.md`, `.json` and
/// `real_tx40_torque.png`.
pub fn reproduce(root: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let data = root.join("../shared/data/tx40");
    if !data.is_dir() {
        return Err(format!(
            "`{}`: not found (the `real` part reads the shared TX40 recording beside the workspace)",
            data.display()
        )
        .into());
    }
    let runs = out.join("runs");
    std::fs::create_dir_all(&runs)?;
    let recording = runs.join("tx40_recording.csv");
    wide_csv(&data, &recording)?;
    let run = runs.join("tx40");
    let manifest = validation::import::import(&validation::import::Options {
        recording,
        urdf: root.join("models/tx40/tx40_mdh_modified.urdf"),
        config: Some(root.join("models/tx40/recording.toml")),
        rate: Some(RATE),
        lowpass: LOWPASS,
        topic: None,
        run_id: Some("tx40".into()),
        out: run.clone(),
        force: true,
    })?;
    println!("wrote {} ({} samples)", run.display(), manifest.samples);
    let prior = root.join("models/tx40/tx40_mdh_modified.urdf");
    let replay_dir = runs.join("tx40_replay");
    let options = validation::estimate::Options {
        prior: Some(prior),
        nim_models: Some(joint_nim(root, out)?),
    };
    let study = validation::study::recorded::study(&run, HOLDOUT, &options, Some(&replay_dir))?;
    let names: Vec<String> = manifest.joints.iter().map(|j| j.name.clone()).collect();
    let reference = published(&data.join("TX40_ep_5.csv"))?;
    let source = "FIGAROH's Stäubli TX40 recording (`thanhndv212/figaroh-plus`, Apache-2.0; \
                  `shared/data/tx40/README.md`): 9 s at 5 kHz of motor-side encoder angles and \
                  motor torques, imported through `models/tx40/recording.toml`; the published \
                  values are FIGAROH's essential parameters (`TX40_ep_5.csv`, WLS column), \
                  identified on the same data with decimated signals. Its joint-6 terms are \
                  split differently (`fv6` beside `fvm6`, `Iam6`): ours are one drive on the \
                  coupled wrist, so joint 6 is not compared. `nim` was trained on 1000 \
                  simulated TX40-family arms (`scenarios/population_tx40.toml`: ±30 % masses, \
                  random Fourier motions, Coulomb–viscous friction, joint-level sensing), none \
                  of which had the recording's low-pass rates, rotor inertia or coupled wrist.";
    let figure = "real_tx40_torque.png";
    let md = validation::report::recorded::render(&study, &names, source, &reference, Some(figure));
    let dir = out.join("report");
    validation::report::write_atomic(&dir.join("real_tx40.md"), &md)?;
    let json = serde_json::to_string_pretty(&study)?;
    validation::report::write_atomic(&dir.join("real_tx40.json"), &json)?;
    validation::report::write_atomic_with(&dir.join(figure), |tmp| {
        validation::report::recorded::plot(&study, &names, tmp)
    })?;
    let nrms = |method: &str, p: &str| {
        validation::study::recorded::RecordedStudy::value(&study.holdout_rows, method, p)
            .map_or(f64::NAN, |x| 100.0 * x)
    };
    println!(
        "wrote {}/real_tx40.md: holdout torque NRMS idim_wls {:.1} % (moving joints {:.1} %), \
         idim_ols {:.1} %, nim {:.1} %",
        dir.display(),
        nrms("idim_wls", "torque_nrms"),
        nrms("idim_wls", "torque_nrms.moving"),
        nrms("idim_ols", "torque_nrms"),
        nrms("nim", "torque_nrms"),
    );
    for r in &study.replays {
        println!(
            "replayed in Rapier ({}, {}): holdout torque NRMS {:.2} %",
            r.method,
            replay_dir.display(),
            100.0 * r.residual.torque_nrms,
        );
    }
    let own = validation::study::recorded::REPLAYED;
    println!("{own}'s own prediction: {:.2} %", nrms(own, "torque_nrms"));
    Ok(())
}

/// Arms of the TX40 family the recording's joint-level NIM is trained on.
const TX40_ARMS: usize = 1000;

/// The joint-level NIM of the TX40 family (`scenarios/population_tx40.toml`, `TX40_ARMS` arms
/// into `out/populations/population_tx40`, resumed if there), trained and saved into
/// `out/models/nim_joint_tx40`; its directory.
fn joint_nim(root: &Path, out: &Path) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    let scenario =
        sim::scenario::Scenario::from_path(&root.join("scenarios/population_tx40.toml"))?;
    let arms = out.join("populations").join(&scenario.file.name);
    let runs = validation::study::plan::populations::population(&scenario, TX40_ARMS, &arms)?;
    let models = out.join("models").join("nim_joint_tx40");
    let t = validation::study::joint_level::train(
        validation::estimate::nim::joint::Sensing::JointLevel,
        &scenario.file.name,
        &runs,
        &Default::default(),
        &models,
    )?;
    println!(
        "trained the TX40 joint-level NIM on {} arms ({} kept out, {} steps, σ × {:.2}) into {}",
        t.arms,
        t.calibration_arms,
        t.steps,
        t.sigma_scale,
        models.display()
    );
    Ok(models)
}

/// FIGAROH's two CSVs (`Joint_1..6` each, no time column) as one wide table: `qm_joint_k` (motor
/// angles, rad) and `taum_joint_k` (motor torques, N·m).
fn wide_csv(data: &Path, to: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let read = |name: &str| -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let text = std::fs::read_to_string(data.join(name))?;
        Ok(text.lines().skip(1).map(String::from).collect())
    };
    let (angles, torques) = (read("pos_read_data.csv")?, read("curr_data.csv")?);
    if angles.len() != torques.len() {
        return Err(format!(
            "`{}`: {} rows of angles and {} of torques",
            data.display(),
            angles.len(),
            torques.len()
        )
        .into());
    }
    let mut text: String = (1..=6).map(|k| format!("qm_joint_{k},")).collect();
    text += &(1..=6)
        .map(|k| format!("taum_joint_{k}"))
        .collect::<Vec<_>>()
        .join(",");
    text += "\n";
    for (a, t) in angles.iter().zip(&torques) {
        text += &format!("{a},{t}\n");
    }
    validation::report::write_atomic(to, &text)?;
    Ok(())
}

/// FIGAROH's essential parameters that name one drive term of joints 1–5 (`fv<j>`, `fs<j>`,
/// `Ia<j>`; WLS column), as ours are named.
fn published(
    path: &Path,
) -> Result<Vec<validation::report::recorded::Reference>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split(',').collect();
        let (Some(name), Some(value)) = (cells.first(), cells.get(3)) else {
            continue;
        };
        let term = [("fv", "viscous"), ("fs", "coulomb"), ("Ia", "armature")]
            .iter()
            .find_map(|(prefix, ours)| {
                let joint: u8 = name.strip_prefix(prefix)?.parse().ok()?;
                (1..=5).contains(&joint).then(|| format!("O{joint}.{ours}"))
            });
        if let Some(ours) = term {
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("`{}`: `{name}`: expected a number", path.display()))?;
            out.push((ours, name.to_string(), value));
        }
    }
    Ok(out)
}
