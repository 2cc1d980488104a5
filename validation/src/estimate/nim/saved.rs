//! NIM as files: the population NIM trained on a population directory and saved as a model
//! directory (`body<k>.safetensors`, one network per body), and a run's bodies estimated with
//! saved models. `armid nim-train` and `armid nim-predict` are these two functions; the NIM
//! studies (`studies/nim*.toml`) train and save their own.

use std::path::Path;

use crate::estimate::nim::dense::Dense;
use crate::estimate::nim::ensemble::{BodyEstimate, Ensemble};
use crate::estimate::nim::mlp::BurnMlp;
use crate::estimate::nim::population::{recipe, train};
use crate::estimate::nim::{Inputs, TrainReport};
use sim::reading::{PopulationReader, Run};

/// What [`train_dir`] did.
#[derive(Clone, Debug)]
pub struct Trained {
    /// Per body (1-based order): its training report and the file written.
    pub bodies: Vec<(TrainReport, std::path::PathBuf)>,
    /// Arms trained on.
    pub arms: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Trains one network per body ([`crate::estimate::nim::population`]'s recipe, `steps` Adam
/// steps of batch 256, inputs `inputs`) on every complete arm of the population directory
/// `population` (`sim population` output), and writes `model_dir/body<k>.safetensors`: the
/// directory is replaced whole, or left as it was.
pub fn train_dir(
    population: &Path,
    model_dir: &Path,
    steps: usize,
    inputs: Inputs,
) -> crate::Result<Trained> {
    let reader = PopulationReader::open(population)?;
    let arms = reader.arms()?;
    if arms.is_empty() {
        return Err(crate::Error::Invalid {
            what: format!("population `{}`", population.display()),
            expected: "at least one complete arm (manifests/shard=*/part-0.parquet)".into(),
        });
    }
    let runs = reader.read_many(&arms)?;
    let t0 = std::time::Instant::now();
    let refs: Vec<&Run> = runs.iter().collect();
    let nims = train::<BurnMlp>(&refs, inputs, &recipe(steps));
    let file = |b: usize| format!("body{}.safetensors", b + 1);
    crate::files::write_dir_atomic(model_dir, |work| {
        for (b, (nim, _)) in nims.iter().enumerate() {
            nim.save(&work.join(file(b)))?;
        }
        Ok(())
    })?;
    Ok(Trained {
        bodies: (nims.into_iter().enumerate())
            .map(|(b, (_, report))| (report, model_dir.join(file(b))))
            .collect(),
        arms: runs.len(),
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Each body's estimate of the run directory `run_dir` from the models of `model_dir` (its
/// samples' predictions pooled, an ensemble's members too:
/// [`crate::estimate::nim::ensemble`]), with whether σ is calibrated, and the run's truth where
/// it is a simulated run (for comparison only: the estimate never reads it).
pub fn predict_dir(model_dir: &Path, run_dir: &Path) -> crate::Result<Predicted> {
    let run = sim::reading::read_run(run_dir)?;
    let models = Ensemble::<Dense>::load(model_dir)?;
    let bodies = run.measurements.bodies.len().min(models.bodies());
    Ok(Predicted {
        calibrated: models.calibration.is_fitted(),
        estimates: (1..=bodies)
            .map(|b| models.estimate(&run.measurements, b))
            .collect(),
        truth: (run.truth.bodies.iter().take(bodies))
            .map(|t| [t.mass, t.j[0], t.j[1], t.j[2]])
            .collect(),
    })
}

/// What [`predict_dir`] found.
#[derive(Clone, Debug)]
pub struct Predicted {
    /// Whether the models carry a calibration (σ is meaningful).
    pub calibrated: bool,
    /// Per body (1-based order): `(m, J11, J22, J33)` and σ.
    pub estimates: Vec<BodyEstimate>,
    /// Per body: the run's true `(m, J11, J22, J33)`.
    pub truth: Vec<[f64; 4]>,
}
