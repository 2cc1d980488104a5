//! The generalizing NIM across motions (issue 14): ensembles trained on the arms of some motion
//! families of a population ([`sim::population::motion`]), calibrated on arms of the same
//! families that training never saw, and scored, with MIM beside them on the same runs, on
//! held-out arms of those families, on arms of a family held out of training entirely, on
//! denser arms and on named runs of the paper's arm. Several seed sets (each an ensemble of
//! `members` initialization seeds) show whether a result depends on the seeds.

use std::path::Path;

use sim::population::motion::FamilyId;

use crate::estimate::mim::Stacked;
use crate::estimate::mim::algorithm::mass as mim_mass;
use crate::estimate::nim::ensemble::{BodyEstimate, Calibration, Ensemble};
use crate::estimate::nim::mlp::BurnMlp;
use crate::estimate::nim::population::identifiable;
use crate::estimate::nim::{Inputs, TrainConfig};
use crate::estimate::{Experiment, engine};
use crate::param::ParamId;
use sim::reading::Run;

/// How a scored population arm was measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sensing {
    /// The exact columns (no sensor).
    Exact,
    /// Force/torque sensors on every body with white noise of this level × the body's signal
    /// RMS on `paper_rail`, per channel (as the noise sweeps state a level).
    ForceTorque(f64),
}

impl Sensing {
    /// `level` as a sensing: 0 is exact.
    pub(crate) fn of_level(level: f64) -> Sensing {
        if level > 0.0 {
            Sensing::ForceTorque(level)
        } else {
            Sensing::Exact
        }
    }

    /// Suffix of a category's name: empty when exact, `@ft<level>` otherwise.
    fn suffix(self) -> String {
        match self {
            Sensing::Exact => String::new(),
            Sensing::ForceTorque(l) => format!("@ft{l:e}"),
        }
    }
}

/// The role of a scored run, and for population arms how they were measured.
#[derive(Clone, Debug, PartialEq)]
pub enum Category {
    /// Arms of the training families that training and calibration never saw.
    Heldout(Sensing),
    /// Arms of the family held out of training.
    HeldoutFamily(Sensing),
    /// Arms from outside the training distributions of the bodies (denser).
    OutOfDistribution(Sensing),
    /// A named run (e.g. the paper's arm on `paper_rail`).
    Named(String),
}

impl Category {
    /// Its name in tables: `heldout`, `heldout_family`, `out_of_distribution` (exact data),
    /// with `@ft<level>` appended under force/torque noise; a named run's name.
    pub fn id(&self) -> String {
        match self {
            Category::Heldout(s) => format!("heldout{}", s.suffix()),
            Category::HeldoutFamily(s) => format!("heldout_family{}", s.suffix()),
            Category::OutOfDistribution(s) => format!("out_of_distribution{}", s.suffix()),
            Category::Named(n) => n.clone(),
        }
    }
}

/// A done-when goal of issue 14: the largest relative errors a category's arms may reach, on
/// mass and on every identifiable principal moment, in each seed set.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    /// The arms it applies to.
    pub category: Category,
    /// Largest relative mass error.
    pub mass: f64,
    /// Largest relative moment error.
    pub moments: f64,
}

/// Issue 14's goals, on exact data: the held-out family ≤ 1 % mass, ≤ 2 % moments; held-out
/// arms of the training families ≤ 0.5 %, ≤ 1 %.
pub(crate) const GOALS: [Goal; 2] = [
    Goal {
        category: Category::HeldoutFamily(Sensing::Exact),
        mass: 0.01,
        moments: 0.02,
    },
    Goal {
        category: Category::Heldout(Sensing::Exact),
        mass: 0.005,
        moments: 0.01,
    },
];

/// The runs of the study, by role.
pub struct MotionArms<'a> {
    /// Training arms (training families; the same arm may come at several noise levels).
    pub train: Vec<&'a Run>,
    /// Calibration arms (training families, not trained on; likewise).
    pub calibration: Vec<&'a Run>,
    /// Scored runs with their category.
    pub scored: Vec<(Category, &'a Run)>,
    /// The families trained on.
    pub train_families: Vec<FamilyId>,
    /// The family held out.
    pub heldout_family: FamilyId,
}

/// How the ensembles are trained.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The networks' inputs.
    pub inputs: Inputs,
    /// Each network's training (its `seed` is replaced by the members').
    pub config: TrainConfig,
    /// Members per ensemble.
    pub members: usize,
    /// Seed sets: the first seed of each (members take consecutive seeds).
    pub seed_sets: Vec<u64>,
}

impl Settings {
    /// The seeds of seed set `k`.
    pub fn seeds(&self, k: usize) -> Vec<u64> {
        (0..self.members as u64)
            .map(|i| self.seed_sets[k] + i)
            .collect()
    }
}

/// One scored run-body.
#[derive(Clone, Debug)]
pub struct Row {
    /// The run's role.
    pub category: Category,
    /// Its run id.
    pub run: String,
    /// Its motion family (from its manifest), where it has one.
    pub family: Option<FamilyId>,
    /// Body (1-based).
    pub body: usize,
    /// Truth `(m, J11, J22, J33)`.
    pub truth: [f64; 4],
    /// Each seed set's ensemble estimate.
    pub nim: Vec<BodyEstimate>,
    /// MIM (stacked over the run) on the same measurements; `None` where not identifiable.
    pub mim: [Option<f64>; 4],
}

/// The study's results.
pub struct MotionStudy {
    /// Every scored run-body.
    pub rows: Vec<Row>,
    /// Each seed set's seeds.
    pub seeds: Vec<Vec<u64>>,
    /// Each seed set's calibration.
    pub calibrations: Vec<Calibration>,
    /// Wall-clock training time of each seed set's ensemble (s).
    pub train_seconds: Vec<f64>,
    /// Training throughput: samples processed by all networks per second of wall-clock time.
    pub samples_per_second: f64,
    /// Training, calibration arms.
    pub arms: (usize, usize),
    /// The families trained on and the one held out.
    pub families: (Vec<FamilyId>, FamilyId),
    /// The settings.
    pub settings: Settings,
}

/// MIM's `(m, J11, J22, J33)` of every body of `run`.
fn mim(run: &Run) -> crate::Result<Vec<[Option<f64>; 4]>> {
    let est = engine::required(&Stacked::default(), &Experiment::single(&run.measurements))
        .map_err(|e| crate::Error::Numerical(format!("{}: {e}", run.measurements.run_id)))?
        .values;
    Ok((1..=run.measurements.bodies.len() as u8)
        .map(|b| {
            let moment = |k| est.get(&ParamId::moment(b, k)).and_then(|e| e.value);
            [mim_mass(&est, b), moment(1), moment(2), moment(3)]
        })
        .collect())
}

/// Runs the study: one calibrated ensemble per seed set, every scored run estimated by each
/// and by MIM. The first seed set's ensemble is saved into `models` where given.
pub fn run(
    arms: &MotionArms,
    settings: &Settings,
    models: Option<&Path>,
) -> crate::Result<MotionStudy> {
    let mut rows: Vec<Row> = Vec::new();
    for (category, run) in &arms.scored {
        let mims = mim(run)?;
        for (b, t) in run.truth.bodies.iter().enumerate() {
            rows.push(Row {
                category: category.clone(),
                run: run.measurements.run_id.clone(),
                family: run.manifest.motion_family,
                body: b + 1,
                truth: [t.mass, t.j[0], t.j[1], t.j[2]],
                nim: Vec::new(),
                mim: mims[b],
            });
        }
    }
    let (mut calibrations, mut train_seconds, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
    let mut samples = 0.0;
    for k in 0..settings.seed_sets.len() {
        let t0 = std::time::Instant::now();
        let (mut ensemble, reports) = Ensemble::<BurnMlp>::train(
            &arms.train,
            settings.inputs,
            &settings.config,
            &settings.seeds(k),
        );
        train_seconds.push(t0.elapsed().as_secs_f64());
        for r in reports.iter().flatten() {
            samples += r.samples_per_second * r.seconds;
        }
        ensemble.calibrate(&arms.calibration);
        if k == 0
            && let Some(dir) = models
        {
            ensemble.save(dir)?;
        }
        let mut row = rows.iter_mut();
        for (_, run) in &arms.scored {
            for b in 1..=run.truth.bodies.len() {
                row.next()
                    .expect("one row per run-body")
                    .nim
                    .push(ensemble.estimate(&run.measurements, b));
            }
        }
        calibrations.push(ensemble.calibration);
        seeds.push(settings.seeds(k));
    }
    let wall: f64 = train_seconds.iter().sum();
    Ok(MotionStudy {
        rows,
        seeds,
        calibrations,
        train_seconds,
        samples_per_second: samples / wall.max(1e-12),
        arms: (arms.train.len(), arms.calibration.len()),
        families: (arms.train_families.clone(), arms.heldout_family),
        settings: settings.clone(),
    })
}

/// Error statistics of one estimator over some run-bodies and one output.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Errors {
    /// Run-bodies scored.
    pub count: usize,
    /// Largest relative error.
    pub max: f64,
    /// Mean relative error.
    pub mean: f64,
}

impl Errors {
    fn of(rel: impl Iterator<Item = f64>) -> Errors {
        let (mut e, mut sum) = (Errors::default(), 0.0);
        for r in rel {
            e.count += 1;
            e.max = e.max.max(r.abs());
            sum += r.abs();
        }
        e.mean = sum / (e.count.max(1)) as f64;
        e
    }
}

impl MotionStudy {
    /// The categories scored, in order of first appearance.
    pub fn categories(&self) -> Vec<Category> {
        let mut c: Vec<Category> = Vec::new();
        for r in &self.rows {
            if !c.contains(&r.category) {
                c.push(r.category.clone());
            }
        }
        c
    }

    fn rows_of<'a>(&'a self, category: &'a Category) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows.iter().filter(move |r| &r.category == category)
    }

    /// Seed set `set`'s NIM errors on output `o` (identifiable only), optionally of one body.
    pub(crate) fn nim_errors(
        &self,
        category: &Category,
        set: usize,
        o: usize,
        body: Option<usize>,
    ) -> Errors {
        Errors::of(
            self.rows_of(category)
                .filter(|r| identifiable(r.body, o) && body.is_none_or(|b| b == r.body))
                .map(|r| (r.nim[set].value[o] - r.truth[o]) / r.truth[o]),
        )
    }

    /// MIM's errors on output `o` where it identifies it, optionally of one body.
    pub(crate) fn mim_errors(&self, category: &Category, o: usize, body: Option<usize>) -> Errors {
        Errors::of(
            self.rows_of(category)
                .filter(|r| identifiable(r.body, o) && body.is_none_or(|b| b == r.body))
                .filter_map(|r| r.mim[o].map(|v| (v - r.truth[o]) / r.truth[o])),
        )
    }

    /// Seed set `set`'s largest relative errors: `(mass, identifiable moments)`.
    pub fn worst(&self, category: &Category, set: usize) -> (f64, f64) {
        let moments = (1..4)
            .map(|o| self.nim_errors(category, set, o, None).max)
            .fold(0.0, f64::max);
        (self.nim_errors(category, set, 0, None).max, moments)
    }

    /// How many seed sets meet `goal`; `None` when the study scored none of its arms.
    pub fn met(&self, goal: &Goal) -> Option<usize> {
        self.categories().contains(&goal.category).then(|| {
            (0..self.seeds.len())
                .filter(|&k| {
                    let (m, j) = self.worst(&goal.category, k);
                    m <= goal.mass && j <= goal.moments
                })
                .count()
        })
    }

    /// Share of identifiable parameters whose truth lies within the seed set's estimate ± 2σ.
    pub fn coverage(&self, category: &Category, set: usize) -> (f64, usize) {
        let (mut inside, mut n) = (0, 0);
        for r in self.rows_of(category) {
            for o in (0..4).filter(|&o| identifiable(r.body, o)) {
                let e = &r.nim[set];
                n += 1;
                if (e.value[o] - r.truth[o]).abs() <= 2.0 * e.sigma[o] {
                    inside += 1;
                }
            }
        }
        (inside as f64 / n.max(1) as f64, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(body: usize, estimate: [f64; 4], sigma: f64) -> Row {
        Row {
            category: Category::HeldoutFamily(Sensing::Exact),
            run: "arm".into(),
            family: Some(FamilyId::PointToPoint),
            body,
            truth: [10.0, 1.0, 2.0, 2.0],
            nim: vec![BodyEstimate {
                value: estimate,
                sigma: [sigma; 4],
            }],
            mim: [Some(10.0), Some(1.0), None, None],
        }
    }

    #[test]
    fn statistics_skip_what_arm6_cannot_identify_and_count_the_2_sigma_interval() {
        let study = MotionStudy {
            // B1's J22 is off by 50 % but never identifiable; B2's J22 is off by 10 %.
            rows: vec![
                row(1, [10.1, 1.0, 3.0, 2.0], 0.06),
                row(2, [10.0, 1.0, 2.2, 2.0], 0.06),
            ],
            seeds: vec![vec![0]],
            calibrations: vec![Calibration::NONE],
            train_seconds: vec![1.0],
            samples_per_second: 1.0,
            arms: (1, 1),
            families: (vec![FamilyId::Paper], FamilyId::PointToPoint),
            settings: Settings {
                inputs: Inputs::Normalized,
                config: TrainConfig::default(),
                members: 1,
                seed_sets: vec![0],
            },
        };
        let c = Category::HeldoutFamily(Sensing::Exact);
        let (m, j) = study.worst(&c, 0);
        assert!(
            (m - 0.01).abs() < 1e-12 && (j - 0.1).abs() < 1e-12,
            "{m} {j}"
        );
        // 6 identifiable values; outside ±0.12: B2's J22 (0.2 off) only.
        let (cov, n) = study.coverage(&c, 0);
        assert_eq!(n, 6);
        assert!((cov - 5.0 / 6.0).abs() < 1e-12);
        let mim = study.mim_errors(&c, 2, None);
        assert_eq!(mim.count, 0);
        assert_eq!(study.nim_errors(&c, 0, 0, Some(1)).count, 1);
        // The same arms measured with noise are another category.
        let noisy = Category::HeldoutFamily(Sensing::of_level(1e-2));
        assert_eq!(study.nim_errors(&noisy, 0, 0, None).count, 0);
        assert_eq!(noisy.id(), "heldout_family@ft1e-2");
        assert_eq!(c.id(), "heldout_family");
        assert_eq!(Sensing::of_level(0.0), Sensing::Exact);
        // The family goal (2 % moments) fails on B2's 10 %; held-out arms were not scored.
        assert_eq!(study.met(&GOALS[0]), Some(0));
        assert_eq!(study.met(&GOALS[1]), None);
        let loose = Goal {
            moments: 0.11,
            ..GOALS[0].clone()
        };
        assert_eq!(study.met(&loose), Some(1));
    }
}
