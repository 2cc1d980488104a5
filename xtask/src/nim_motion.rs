//! The NIM motion study (`cargo xtask nim-motion-study`, and a small one in `reproduce`): the
//! generalizing NIM trained on arms of `population_motions` under every motion family but one,
//! scored on held-out arms, on the held-out family, on denser arms and on the paper's arm.

use std::path::Path;
use std::time::Instant;

use sim::population::motion::FamilyId;
use sim::scenario::Scenario;
use validation::dataset::{Run, read_run};
use validation::estimate::nim::TrainConfig;
use validation::study::nim_motion::{Category, MotionArms, MotionStudy, Sensing, Settings};

/// Sizes of a motion study (also the arguments of `cargo xtask nim-motion-study`, whose
/// defaults are the full study's).
#[derive(clap::Args)]
pub struct MotionSize {
    /// What the study is for, said first in its report.
    #[arg(skip = "The full study (`cargo xtask nim-motion-study`).")]
    pub purpose: &'static str,
    /// Arms of the population (all families). Data, not steps, limit the held-out accuracy at
    /// the full study's training: with one member, 20 000 steps, lr 3e-3, 1500 arms gave a
    /// largest held-out moment error of 1.82 % (B6's J22), 3000 arms 0.30 %.
    #[arg(long, default_value_t = 4000)]
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
    /// Adam's initial learning rate (cosine-decayed to 1e-5). Above the rail population's 1e-3
    /// (`validation::estimate::nim::population::recipe`): at 600 arms and 2 members, 3e-3 lowered the
    /// held-out arms' largest moment error from 3.34 % to 2.99 % at 6000 steps and from 2.86 %
    /// to 2.54 % at 12 000.
    #[arg(long, default_value_t = 3e-3)]
    pub learning_rate: f64,
    /// Members per ensemble.
    #[arg(long, default_value_t = 3)]
    pub members: usize,
    /// Seed sets.
    #[arg(long, default_value_t = 3)]
    pub seed_sets: usize,
    /// The networks' inputs: `per-axis-log` (25), `per-axis` (18), `normalized` or `centroidal`
    /// (15 each).
    #[arg(long, default_value = "per-axis-log", value_parser = crate::nim::parse_inputs)]
    pub inputs: validation::estimate::nim::Inputs,
    /// Noise-augmented training: record the population at each of these levels (comma
    /// separated; 0 is exact), a level L measuring every arm by force/torque sensors with noise
    /// of L × each body's signal RMS on `paper_rail`, per channel. The same arms at every level
    /// train and calibrate; held-out, held-out-family and denser arms are scored at each level
    /// apart (the named runs stay exact). Default: exact only.
    #[arg(long, value_delimiter = ',')]
    pub ft_noise: Vec<f64>,
}

impl MotionSize {
    /// The small study of `cargo xtask reproduce` (about two minutes on 2 cores).
    pub fn small() -> Self {
        MotionSize {
            purpose: "The small study of `cargo xtask reproduce` (≈ 2 min): it shows the protocol and the \
                      direction of each effect, not the accuracy (too few arms and steps); the full one is \
                      `cargo xtask nim-motion-study`.",
            arms: 600,
            calibration: 20,
            heldout_family: 40,
            ood: 10,
            holdout: FamilyId::PointToPoint,
            steps: 3000,
            learning_rate: 3e-3,
            members: 2,
            seed_sets: 1,
            inputs: validation::estimate::nim::Inputs::PerAxisLog,
            ft_noise: Vec::new(),
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

/// The population's arms and its denser arms at one noise level (0: exact), simulated into
/// `out/populations/` where absent.
fn recorded(
    root: &Path,
    out: &Path,
    size: &MotionSize,
    level: f64,
) -> Result<(Vec<Run>, Vec<Run>), Box<dyn std::error::Error>> {
    let mut scenario = Scenario::from_path(&root.join("scenarios/population_motions.toml"))?;
    let mut name = "population_motions".to_string();
    if level > 0.0 {
        scenario = crate::nim::with_ft_sensors(root, &scenario, level)?;
        name = format!("{name}_ft{level:e}");
    }
    let pops = out.join("populations");
    let arms = crate::nim::population(&scenario, size.arms, &pops.join(&name))?;
    let denser = crate::nim::population(
        &crate::nim::denser(&scenario)?,
        size.ood * 2,
        &pops.join(format!("{name}_denser")),
    )?;
    Ok((arms, denser))
}

/// The levels of `--ft-noise` (exact only when none), checked with the learning rate.
fn levels(size: &MotionSize) -> Result<Vec<f64>, String> {
    if !(size.learning_rate.is_finite() && size.learning_rate > 0.0) {
        return Err(format!(
            "--learning-rate: expected a positive number, got {}",
            size.learning_rate
        ));
    }
    let levels = if size.ft_noise.is_empty() {
        vec![0.0]
    } else {
        size.ft_noise.clone()
    };
    for (i, l) in levels.iter().enumerate() {
        if !l.is_finite() || *l < 0.0 || levels[..i].contains(l) {
            return Err(format!(
                "--ft-noise: expected distinct finite levels ≥ 0 (0: exact), got {levels:?}"
            ));
        }
    }
    Ok(levels)
}

/// The population's runs by role: the training and calibration arms of every level together,
/// the scored arms of each level apart (the named runs are added by the caller).
fn split<'a>(
    size: &MotionSize,
    levels: &[f64],
    recordings: &'a [(Vec<Run>, Vec<Run>)],
) -> Result<MotionArms<'a>, String> {
    let family = |r: &Run| r.manifest.motion_family.expect("population_motions arms");
    let reserved = 2 * size.calibration;
    let (mut train, mut calibration) = (Vec::new(), Vec::new());
    let mut scored: Vec<(Category, &Run)> = Vec::new();
    for (&level, (arms, denser)) in levels.iter().zip(recordings) {
        let (trained, held): (Vec<&Run>, Vec<&Run>) =
            arms.iter().partition(|r| family(r) != size.holdout);
        if trained.len() <= reserved {
            return Err(format!(
                "{} arms give {} of the training families: fewer than the {reserved} reserved for \
                 calibration and scoring",
                size.arms,
                trained.len()
            ));
        }
        let n_train = trained.len() - reserved;
        train.extend(&trained[..n_train]);
        calibration.extend(&trained[n_train..n_train + size.calibration]);
        let sensing = Sensing::of_level(level);
        scored.extend(
            trained[n_train + size.calibration..]
                .iter()
                .map(|r| (Category::Heldout(sensing), *r)),
        );
        scored.extend(
            held.iter()
                .take(size.heldout_family)
                .map(|r| (Category::HeldoutFamily(sensing), *r)),
        );
        scored.extend(
            denser
                .iter()
                .filter(|r| family(r) != size.holdout)
                .take(size.ood)
                .map(|r| (Category::OutOfDistribution(sensing), r)),
        );
    }
    Ok(MotionArms {
        train,
        calibration,
        scored,
        train_families: FamilyId::ALL
            .into_iter()
            .filter(|f| *f != size.holdout)
            .collect(),
        heldout_family: size.holdout,
    })
}

/// Runs the study; the first seed set's ensemble is saved to `out/models/nim_motions/`.
pub fn study(
    root: &Path,
    out: &Path,
    size: &MotionSize,
) -> Result<MotionStudy, Box<dyn std::error::Error>> {
    let levels = levels(size)?;
    let recordings = levels
        .iter()
        .map(|&l| recorded(root, out, size, l))
        .collect::<Result<Vec<_>, _>>()?;
    let rail = named(root, out, "paper_rail")?;
    let fourier = named(root, out, "arm6_fourier")?;
    let mut motion_arms = split(size, &levels, &recordings)?;
    motion_arms
        .scored
        .push((Category::Named("paper_rail".into()), &rail));
    motion_arms
        .scored
        .push((Category::Named("arm6_fourier".into()), &fourier));
    let n_train = motion_arms.train.len() / levels.len();
    let settings = Settings {
        inputs: size.inputs,
        config: TrainConfig {
            learning_rate: size.learning_rate,
            ..validation::estimate::nim::population::recipe(size.steps)
        },
        members: size.members,
        seed_sets: (0..size.seed_sets as u64).map(|k| 100 * k).collect(),
    };
    let t0 = Instant::now();
    let models = out.join("models").join("nim_motions");
    let result = validation::study::nim_motion::run(&motion_arms, &settings, Some(&models))?;
    println!(
        "motion study: {} training arms ({}) at {} noise level(s), {} calibration arms, {} seed sets × {} members in {:.1} s",
        n_train,
        motion_arms
            .train_families
            .iter()
            .map(|f| f.id())
            .collect::<Vec<_>>()
            .join(" + "),
        levels.len(),
        size.calibration,
        size.seed_sets,
        size.members,
        t0.elapsed().as_secs_f64()
    );
    let sensing = if levels == [0.0] {
        String::new()
    } else {
        format!(
            " Noise-augmented training: every population arm is recorded at each level of {levels:?} (0: exact; a level L \
             measures every body by force/torque sensors with noise of L × its signal RMS on `paper_rail`, per channel); \
             the same arms at every level train and calibrate, and each level is scored apart (`…@ft<level>`, MIM on the \
             same noisy columns); the named runs are exact."
        )
    };
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
                "  {:<28} seed set {k}: max mass {:.2} %, moments {:.2} %, ±2σ coverage {:.1} % of {n}",
                c.id(),
                100.0 * m,
                100.0 * j,
                100.0 * cov
            );
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_levels_default_to_exact_and_bad_ones_are_refused() {
        let mut size = MotionSize::small();
        assert_eq!(levels(&size), Ok(vec![0.0]));
        size.ft_noise = vec![0.0, 1e-2];
        assert_eq!(levels(&size), Ok(vec![0.0, 1e-2]));
        for bad in [vec![1e-2, 1e-2], vec![-1e-3], vec![f64::NAN]] {
            size.ft_noise = bad;
            let e = levels(&size).unwrap_err();
            assert!(
                e.starts_with("--ft-noise: expected distinct finite levels"),
                "{e}"
            );
        }
        size.ft_noise = Vec::new();
        size.learning_rate = 0.0;
        assert!(levels(&size).unwrap_err().starts_with("--learning-rate"));
    }
}
