//! The NIM motion study (`studies/nim_motions.toml`, the small one of `reproduce`, and
//! `cargo xtask nim-motion-study`, the same file at the full study's sizes): the generalizing NIM
//! trained on arms of `population_motions` under every motion family but one, scored on
//! held-out arms, on the held-out family, on denser arms and on the named runs.

use std::path::Path;
use std::time::Instant;

use sim::population::motion::FamilyId;
use validation::study::nim_motion::MotionStudy;
use validation::study::plan::{NimMotionPlan, Plan};

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
    /// The study of `studies/nim_motions.toml` (its scenarios, reference and density factor)
    /// at these sizes: the full study of `cargo xtask nim-motion-study`.
    pub fn apply(&self, mut plan: NimMotionPlan) -> NimMotionPlan {
        plan.purpose = self.purpose.to_string();
        plan.arms = self.arms;
        plan.calibration = self.calibration;
        plan.heldout_family = self.heldout_family;
        plan.ood = self.ood;
        plan.holdout = self.holdout;
        plan.steps = self.steps;
        plan.learning_rate = self.learning_rate;
        plan.members = self.members;
        plan.seed_sets = self.seed_sets;
        plan.inputs = self.inputs;
        plan.ft_noise = self.ft_noise.clone();
        plan
    }
}

/// The NIM motion study of `studies/nim_motions.toml` (the small study of `reproduce`).
pub fn plan(root: &Path) -> Result<NimMotionPlan, Box<dyn std::error::Error>> {
    match crate::plan(root, "nim_motions")? {
        Plan::NimMotion(p) => Ok(p),
        _ => Err("studies/nim_motions.toml: expected kind = \"nim_motion\"".into()),
    }
}

/// Runs the study `plan` into `out` and prints each category's worst errors and coverage; the
/// first seed set's ensemble is saved to `out/models/nim_motions/`.
pub fn study(plan: &NimMotionPlan, out: &Path) -> Result<MotionStudy, Box<dyn std::error::Error>> {
    if !(plan.learning_rate.is_finite() && plan.learning_rate > 0.0) {
        return Err(format!(
            "--learning-rate: expected a positive number, got {}",
            plan.learning_rate
        )
        .into());
    }
    use validation::study::plan::{FT_NOISE_EXPECTED, ft_noise_valid};
    if !ft_noise_valid(&plan.ft_noise) {
        return Err(format!(
            "--ft-noise: expected {FT_NOISE_EXPECTED}, got {:?}",
            plan.ft_noise
        )
        .into());
    }
    let t0 = Instant::now();
    let result = validation::reproduce::nim_motion(plan, out)?;
    println!(
        "motion study: {} arms, {} calibration arms, {} seed sets × {} members in {:.1} s; wrote {}/nim_motions.md and nim_motions.csv",
        plan.arms,
        plan.calibration,
        plan.seed_sets,
        plan.members,
        t0.elapsed().as_secs_f64(),
        out.join("report").display()
    );
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
