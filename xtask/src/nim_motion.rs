//! The NIM motion study (`cargo xtask nim-motion-study`, and a small one in `reproduce`): the
//! generalizing NIM trained on arms of `population_motions` under every motion family but one,
//! scored on held-out arms, on the held-out family, on denser arms and on the paper's arm.

use std::path::Path;
use std::time::Instant;

use sim::population::motion::FamilyId;
use sim::scenario::Scenario;
use validation::dataset::{Run, read_run};
use validation::nim::TrainConfig;
use validation::study::nim_motion::{Category, MotionArms, MotionStudy, Settings};

/// Sizes of a motion study (also the arguments of `cargo xtask nim-motion-study`, whose
/// defaults are the full study's).
#[derive(clap::Args)]
pub struct MotionSize {
    /// What the study is for, said first in its report.
    #[arg(skip = "The full study (`cargo xtask nim-motion-study`).")]
    pub purpose: &'static str,
    /// Arms of the population (all families).
    #[arg(long, default_value_t = 1500)]
    pub arms: usize,
    /// Training-family arms used for calibration, and as many held out for scoring (the rest
    /// train).
    #[arg(long, default_value_t = 100)]
    pub calibration: usize,
    /// Held-out family arms scored (at most what the population has).
    #[arg(long, default_value_t = 100)]
    pub heldout_family: usize,
    /// Out-of-distribution (20 % denser) arms.
    #[arg(long, default_value_t = 50)]
    pub ood: usize,
    /// The family held out of training: paper, fourier or point_to_point (default: the
    /// servo-tracked moves; the others span the widest range of motions).
    #[arg(long, default_value = "point_to_point")]
    pub holdout: FamilyId,
    /// Adam steps per body network.
    #[arg(long, default_value_t = 20_000)]
    pub steps: usize,
    /// Members per ensemble.
    #[arg(long, default_value_t = 3)]
    pub members: usize,
    /// Seed sets.
    #[arg(long, default_value_t = 3)]
    pub seed_sets: usize,
    /// The networks' inputs: `per-axis-log` (25), `per-axis` (18), `normalized` or `centroidal`
    /// (15 each).
    #[arg(long, default_value = "per-axis-log", value_parser = crate::nim::parse_inputs)]
    pub inputs: validation::nim::Inputs,
    /// Measure every arm of the population (training, calibration and held-out) by force/torque
    /// sensors with noise of this level × each body's signal RMS on `paper_rail`, per channel:
    /// noise-augmented training (the named runs stay exact).
    #[arg(long)]
    pub ft_noise: Option<f64>,
}

impl MotionSize {
    /// The small study of `cargo xtask reproduce` (about two minutes on 2 cores).
    pub fn small() -> Self {
        MotionSize {
            purpose: "The small study of `cargo xtask reproduce` (≈ 2 min): it shows the protocol and the \
                      direction of each effect, not the accuracy (too few arms and steps); the full one is \
                      `cargo xtask nim-motion-study`.",
            arms: 300,
            calibration: 20,
            heldout_family: 40,
            ood: 10,
            holdout: FamilyId::PointToPoint,
            steps: 3000,
            members: 2,
            seed_sets: 1,
            inputs: validation::nim::Inputs::PerAxisLog,
            ft_noise: None,
        }
    }
}

/// A named scenario's run under `out/runs/`, simulated if absent.
fn named(root: &Path, out: &Path, name: &str) -> Result<Run, Box<dyn std::error::Error>> {
    let dir = out.join("runs").join(name);
    if !dir.join("manifest.json").exists() {
        let s = Scenario::from_path(&root.join(format!("scenarios/{name}.toml")))?;
        crate::simulate_all(&[s], std::slice::from_ref(&dir))?;
    }
    Ok(read_run(&dir)?)
}

/// Runs the study; the first seed set's ensemble is saved to `out/models/nim_motions/`.
pub fn study(
    root: &Path,
    out: &Path,
    size: &MotionSize,
) -> Result<MotionStudy, Box<dyn std::error::Error>> {
    let path = root.join("scenarios/population_motions.toml");
    let mut text = std::fs::read_to_string(&path)?;
    let mut name = "population_motions".to_string();
    if let Some(level) = size.ft_noise {
        text = crate::nim::with_ft_sensors(root, &text, level)?;
        name = format!("{name}_ft{level:e}");
    }
    let pops = out.join("populations");
    let arms = crate::nim::population(&text, &path, size.arms, &pops.join(&name))?;
    let ood_all = crate::nim::population(
        &crate::nim::denser(
            &text,
            ("seed = 2028", "seed = 2029"),
            "population_motions.toml",
        )?,
        &path,
        size.ood * 2,
        &pops.join(format!("{name}_denser")),
    )?;
    let family = |r: &Run| r.manifest.motion_family.expect("population_motions arms");
    let (trained, held): (Vec<&Run>, Vec<&Run>) =
        arms.iter().partition(|r| family(r) != size.holdout);
    let reserved = 2 * size.calibration;
    if trained.len() <= reserved {
        return Err(format!(
            "{} arms give {} of the training families: fewer than the {reserved} reserved for \
             calibration and scoring",
            size.arms,
            trained.len()
        )
        .into());
    }
    let n_train = trained.len() - reserved;
    let rail = named(root, out, "paper_rail")?;
    let fourier = named(root, out, "arm6_fourier")?;
    let mut scored: Vec<(Category, &Run)> = Vec::new();
    scored.extend(
        trained[n_train + size.calibration..]
            .iter()
            .map(|r| (Category::Heldout, *r)),
    );
    scored.extend(
        held.iter()
            .take(size.heldout_family)
            .map(|r| (Category::HeldoutFamily, *r)),
    );
    scored.extend(
        ood_all
            .iter()
            .filter(|r| family(r) != size.holdout)
            .take(size.ood)
            .map(|r| (Category::OutOfDistribution, r)),
    );
    scored.push((Category::Named("paper_rail".into()), &rail));
    scored.push((Category::Named("arm6_fourier".into()), &fourier));
    let motion_arms = MotionArms {
        train: trained[..n_train].to_vec(),
        calibration: trained[n_train..n_train + size.calibration].to_vec(),
        scored,
        train_families: FamilyId::ALL
            .into_iter()
            .filter(|f| *f != size.holdout)
            .collect(),
        heldout_family: size.holdout,
    };
    let settings = Settings {
        inputs: size.inputs,
        config: TrainConfig {
            ..validation::nim::population::recipe(size.steps)
        },
        members: size.members,
        seed_sets: (0..size.seed_sets as u64).map(|k| 100 * k).collect(),
    };
    let t0 = Instant::now();
    let models = out.join("models").join("nim_motions");
    let result = validation::study::nim_motion::run(&motion_arms, &settings, Some(&models))?;
    println!(
        "motion study: {} training arms ({}), {} calibration arms, {} seed sets × {} members in {:.1} s",
        n_train,
        motion_arms
            .train_families
            .iter()
            .map(|f| f.id())
            .collect::<Vec<_>>()
            .join(" + "),
        size.calibration,
        size.seed_sets,
        size.members,
        t0.elapsed().as_secs_f64()
    );
    let sensing = size.ft_noise.map_or(String::new(), |l| {
        format!(
            " Every population arm is measured by force/torque sensors with noise of {l:e} × each body's signal RMS on \
             `paper_rail` (noise-augmented training; held-out and denser arms measured alike, MIM on the same noisy \
             columns); the named runs are exact."
        )
    });
    let description = format!(
        "{} Population: {} arms of `population_motions` (seed 2028) split by the family each drew; out of distribution: \
         {} arms of the training families with every density 20 % higher (seed 2029); named runs `paper_rail` and \
         `arm6_fourier` (a user's Fourier excitation of every joint: family `fourier`).{sensing}",
        size.purpose, size.arms, size.ood
    );
    let dir = out.join("report");
    validation::report::nim_motion::write(&result, &description, &dir)?;
    println!("wrote {}/nim_motions.md and nim_motions.csv", dir.display());
    for c in result.categories() {
        for k in 0..result.seeds.len() {
            let (m, j) = result.worst(&c, k);
            let (cov, n) = result.coverage(&c, k);
            println!(
                "  {:<20} seed set {k}: max mass {:.2} %, moments {:.2} %, ±2σ coverage {:.1} % of {n}",
                c.id(),
                100.0 * m,
                100.0 * j,
                100.0 * cov
            );
        }
    }
    Ok(result)
}
