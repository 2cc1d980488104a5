//! The MIM paper's NIM protocol (its Tables 4–5) on `paper_rail`, with what the network learned
//! measured by showing it shuffled or constant inputs and trained on the 24 inputs that
//! determine a body's Newton–Euler equations; and the generalizing NIM
//! ([`crate::estimate::nim::population`]) trained on a population of arms and scored on held-out,
//! out-of-distribution and the paper's own arm. [`crate::report::nim`] renders it.

use crate::estimate::mim::SingleInstant;
use crate::estimate::mim::algorithm::mass as mim_mass;
use crate::estimate::nim::mlp::BurnMlp;
use crate::estimate::nim::population::identifiable;
use crate::estimate::nim::protocol::{BodyResult, TestInputs, paper};
use crate::estimate::nim::{Inputs, TrainConfig};
use crate::estimate::{Experiment, engine};
use crate::param::ParamId;
use sim::reading::Run;

/// The protocols reported, with their CSV name.
pub(crate) const PROTOCOLS: [(&str, Inputs, TestInputs); 4] = [
    ("paper", Inputs::Paper, TestInputs::Recorded),
    ("paper_inputs_shuffled", Inputs::Paper, TestInputs::Shuffled),
    ("paper_inputs_zeroed", Inputs::Paper, TestInputs::Zeroed),
    ("paper_24_inputs", Inputs::WithChild, TestInputs::Recorded),
];

/// The report's results.
pub struct NimStudy {
    pub(crate) truth: Vec<[f64; 4]>,
    pub(crate) results: Vec<(&'static str, Vec<BodyResult>)>,
    /// MIM (single instant) wall-clock time for all six bodies (s).
    pub(crate) mim_seconds: f64,
    /// MIM's estimates per body: `(m along e1, J11, J22, J33)`, `None` where not identifiable.
    pub(crate) mim: Vec<[Option<f64>; 4]>,
    pub(crate) config: TrainConfig,
    pub(crate) population: Option<PopulationResult>,
}

/// The arms of a population study.
pub struct PopulationRuns<'a> {
    /// Training arms.
    pub train: Vec<&'a Run>,
    /// Held-out arms from the same distributions.
    pub heldout: Vec<&'a Run>,
    /// Arms from outside the distributions (e.g. 20 % denser).
    pub out_of_distribution: Vec<&'a Run>,
    /// How the out-of-distribution arms differ, for the report.
    pub ood_description: String,
}

/// One scored arm-body: `(protocol, arm, body, truth, estimate)`.
pub(crate) type ArmRow = (String, String, usize, [f64; 4], [f64; 4]);

/// Results of the population study.
pub struct PopulationResult {
    pub(crate) train_arms: usize,
    pub(crate) rows: Vec<ArmRow>,
    /// `(training arms, largest held-out relative error of mass, of identifiable moments)`.
    pub(crate) curve: Vec<(usize, f64, f64)>,
    pub(crate) train_seconds: f64,
    pub(crate) samples_per_second: f64,
    pub(crate) ood_description: String,
    pub(crate) config: TrainConfig,
}

/// Largest relative errors over `rows` of a protocol: (mass, identifiable moments).
pub(crate) fn worst(rows: &[ArmRow], protocol: &str) -> (f64, f64) {
    let mut w = (0.0f64, 0.0f64);
    for (p, _, b, t, e) in rows.iter().filter(|r| r.0 == protocol) {
        let _ = p;
        for i in 0..4 {
            let rel = ((e[i] - t[i]) / t[i]).abs();
            if i == 0 {
                w.0 = w.0.max(rel);
            } else if identifiable(*b, i) {
                w.1 = w.1.max(rel);
            }
        }
    }
    w
}

/// Trains the generalizing NIM on `runs.train` (and on the first `curve` counts for the
/// learning curve) and scores it on the held-out, out-of-distribution and paper arms; the final
/// networks are saved into `models` (`body<k>.safetensors`, what `validation estimate
/// --nim-models` and `armid nim-predict` read) where given.
pub(crate) fn population_study(
    runs: &PopulationRuns,
    paper_arm: &Run,
    config: &TrainConfig,
    curve: &[usize],
    models: Option<&std::path::Path>,
) -> crate::Result<PopulationResult> {
    use crate::estimate::nim::population::{INPUTS as inputs, estimate, train};
    let score = |nims: &[(
        crate::estimate::nim::Nim<BurnMlp>,
        crate::estimate::nim::TrainReport,
    )],
                 protocol: &str,
                 arms: &[&Run]|
     -> Vec<ArmRow> {
        let mut out = Vec::new();
        for run in arms {
            for (b, (nim, _)) in nims.iter().enumerate() {
                let t = &run.truth.bodies[b];
                out.push((
                    protocol.to_string(),
                    run.measurements.run_id.clone(),
                    b + 1,
                    [t.mass, t.j[0], t.j[1], t.j[2]],
                    estimate(nim, run, b + 1),
                ));
            }
        }
        out
    };
    let mut points = Vec::new();
    for &n in curve.iter().filter(|&&n| n < runs.train.len()) {
        let nims = train::<BurnMlp>(&runs.train[..n], inputs, config);
        let w = worst(&score(&nims, "heldout", &runs.heldout), "heldout");
        points.push((n, w.0, w.1));
    }
    let t0 = std::time::Instant::now();
    let nims = train::<BurnMlp>(&runs.train, inputs, config);
    let train_seconds = t0.elapsed().as_secs_f64();
    if let Some(dir) = models {
        crate::files::write_dir_atomic(dir, |work| {
            for (b, (nim, _)) in nims.iter().enumerate() {
                nim.save(&work.join(format!("body{}.safetensors", b + 1)))?;
            }
            Ok(())
        })?;
    }
    let samples: f64 = nims
        .iter()
        .map(|(_, r)| r.samples_per_second * r.seconds)
        .sum();
    let mut rows = score(&nims, "heldout", &runs.heldout);
    rows.extend(score(
        &nims,
        "out_of_distribution",
        &runs.out_of_distribution,
    ));
    rows.extend(score(&nims, "paper_arm_heldout", &[paper_arm]));
    let w = worst(&rows, "heldout");
    points.push((runs.train.len(), w.0, w.1));
    Ok(PopulationResult {
        train_arms: runs.train.len(),
        rows,
        curve: points,
        train_seconds,
        samples_per_second: samples / train_seconds.max(1e-12),
        ood_description: runs.ood_description.clone(),
        config: config.clone(),
    })
}

impl NimStudy {
    /// Runs the protocols on the `paper_rail` run.
    pub fn new(run: &Run, config: TrainConfig) -> crate::Result<Self> {
        let truth = run
            .truth
            .bodies
            .iter()
            .map(|b| [b.mass, b.j[0], b.j[1], b.j[2]])
            .collect();
        let results = PROTOCOLS
            .iter()
            .map(|(name, inputs, test)| (*name, paper::<BurnMlp>(run, *inputs, *test, &config)))
            .collect();
        let mim = SingleInstant::paper();
        let experiment = Experiment::single(&run.measurements);
        let t0 = std::time::Instant::now();
        let reps = 20;
        for _ in 0..reps {
            std::hint::black_box(engine::required(&mim, &experiment)?);
        }
        let mim_seconds = t0.elapsed().as_secs_f64() / f64::from(reps);
        let est = engine::required(&mim, &experiment)?.values;
        let mim = (1..=run.truth.bodies.len() as u8)
            .map(|b| {
                let moment = |k| est.get(&ParamId::moment(b, k)).and_then(|e| e.value);
                [mim_mass(&est, b), moment(1), moment(2), moment(3)]
            })
            .collect();
        Ok(NimStudy {
            truth,
            results,
            mim_seconds,
            mim,
            config,
            population: None,
        })
    }

    /// Adds the population study's results.
    pub(crate) fn with_population(mut self, population: PopulationResult) -> Self {
        self.population = Some(population);
        self
    }

    /// Largest held-out relative errors of the generalizing NIM: (mass, identifiable moments).
    pub(crate) fn heldout_error(&self) -> Option<(f64, f64)> {
        self.population.as_ref().map(|p| worst(&p.rows, "heldout"))
    }

    /// Largest relative error of a protocol over bodies and parameters.
    pub fn max_rel_error(&self, protocol: &str) -> f64 {
        self.results
            .iter()
            .filter(|(p, _)| *p == protocol)
            .flat_map(|(_, r)| r.iter())
            .flat_map(|r| {
                (0..4).map(move |i| {
                    ((r.estimate[i] - self.truth[r.body - 1][i]) / self.truth[r.body - 1][i]).abs()
                })
            })
            .fold(0.0, f64::max)
    }

    /// Largest relative difference between the estimates of two protocols.
    pub(crate) fn max_rel_difference(&self, a: &str, b: &str) -> f64 {
        let get = |p: &str| self.results.iter().find(|(q, _)| *q == p).map(|(_, r)| r);
        let (Some(ra), Some(rb)) = (get(a), get(b)) else {
            return f64::NAN;
        };
        ra.iter()
            .zip(rb)
            .flat_map(|(x, y)| {
                (0..4).map(move |i| ((x.estimate[i] - y.estimate[i]) / y.estimate[i]).abs())
            })
            .fold(0.0, f64::max)
    }
}
