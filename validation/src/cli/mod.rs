//! The `validation` command line: estimators on run directories, noise studies, recording
//! import. `validation` and `armid` (the project's one command, with `sim`'s subcommands too)
//! parse these subcommands.
//!
//! ```sh
//! validation estimate RUN... [--only NAMES] [--nim-models DIR] [--holdout F] --out FILE.csv
//! validation estimate sweep=S1 sweep=S2 excitation=E --out FILE.csv
//! validation estimators                                   # the registry, one line each
//! validation study studies/mim_noise.toml --out DIR       # any kind; `sweep` is an alias
//! validation import RECORDING.csv --urdf ROBOT.urdf [--config C.toml] --out RUN
//! validation identify LOG.csv --model ROBOT.urdf|ROBOT.xml [--config C.toml] --out DIR
//! validation fit-servos RUN... [--model ROBOT.xml] [--drives START.toml] --out DRIVES.toml
//! validation report RUN_OR_STUDY_DIR --html OUT.html [--only NAMES]
//! validation nim-train --population DIR --model-dir M [--steps N] [--inputs centroidal]
//! validation nim-predict --model-dir M --run RUN
//! ```

use std::path::PathBuf;

use clap::Subcommand;

use crate::estimate::engine::Loaded;
use crate::estimate::{Options, Role};

pub mod html;
mod identify;
mod identify_servo;
mod nim;
mod output;

/// The estimation commands (`validation …`, and the same subcommands of `armid`).
#[derive(Subcommand)]
pub enum Command {
    /// Run every applicable estimator on each run directory, score it against the run's truth,
    /// and write one row per (run, method, parameter). Runs written `ROLE=DIR` (roles single,
    /// sweep, excitation, validation) form one experiment instead.
    Estimate {
        /// Run directories (`sim run` output), or `ROLE=DIR` for one multi-run experiment.
        #[arg(required = true)]
        runs: Vec<String>,
        /// Only these estimators (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// NIM models (`nim-train --model-dir`, or a NIM study's `models/…`).
        #[arg(long)]
        nim_models: Option<PathBuf>,
        /// A prior model (URDF, e.g. the CAD model) for the standard-parameter identifiers
        /// `idim_prior` and `idim_consistent`.
        #[arg(long)]
        prior: Option<PathBuf>,
        /// Write each identified model (methods that estimate every body, where physically
        /// consistent) as `DIR/<experiment>.<method>.urdf`.
        #[arg(long)]
        urdf_out: Option<PathBuf>,
        /// Identify on the first `1 − FRACTION` of each run's time span and validate by
        /// prediction on the rest (rows `torque_nrms`, `torque_nrms.<joint>`): for runs given
        /// without roles.
        #[arg(long)]
        holdout: Option<f64>,
        /// The CSV to write; with several experiments also FILE.summary.csv.
        #[arg(long)]
        out: PathBuf,
    },
    /// List the estimators of the registry: name, family and what each needs of an experiment,
    /// one line each (`--only` takes these names).
    Estimators,
    /// From a robot's log to a model in one command: import the log, identify on its first
    /// part with every estimator that applies, choose the model by its prediction of the
    /// held-out end (the lowest torque NRMS among physically consistent models; ties to the
    /// one with fewer parameters), and write DIR/model.urdf, model.xml (MJCF), drives.toml,
    /// estimates.csv and report.html.
    Identify(crate::study::identify::Options),
    /// Fit a servo arm's position servos (stiffness, damping, command delay; optionally joint
    /// damping, Coulomb friction, armature) to its logs by simulating rollouts under the logged
    /// commands (Levenberg–Marquardt, multiple shooting over windows), and write them as a drive
    /// train (`drives.toml`) for `armid rollout --drives`.
    FitServos(crate::estimate::simulation_fit::command::Options),
    /// Import a robot's recording (a wide CSV or Parquet table: `t`, `q_<joint>`, `qd_`, `qdd_`,
    /// `tau_`, `i_`, or motor-side `qm_`, `taum_`; see `validation::import`) as a recorded run
    /// directory: checked, resampled onto a uniform grid, filtered and differentiated by the
    /// stated signal chain, every choice in its manifest.
    Import(crate::import::Options),
    /// Run a study file (`studies/*.toml`, any kind). A noise sweep simulates each scenario
    /// once, re-noises it per (level, seed), runs the estimators in parallel, and writes
    /// DIR/sweep.json, sweep.csv, sweep.md and sweep.png (atomically; an interrupted study
    /// resumes). A multisine, teaching, industrial or NIM study simulates its scenarios into
    /// DIR/runs (populations into DIR/populations, models into DIR/models) and writes its
    /// report into DIR/report.
    #[command(alias = "sweep")]
    Study {
        /// The study file.
        study: PathBuf,
        /// The output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write one self-contained HTML page a person opens in a browser: of a run directory (the
    /// arm moving in 3D, joint trajectories, torques measured and predicted, every applicable
    /// estimator's estimates against the truth) or of a noise study's output directory (error
    /// against noise with the Cramér–Rao bound, from its sweep.json).
    Report {
        /// A run directory, or a study's output directory (holding sweep.json).
        path: PathBuf,
        /// The page to write.
        #[arg(long)]
        html: PathBuf,
        /// For a run: only these estimators (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// For a run: NIM models (as `estimate --nim-models`).
        #[arg(long)]
        nim_models: Option<PathBuf>,
    },
    /// Train NIM (one network per body) on every complete arm of a population dataset
    /// (`population` output); writes MODEL_DIR/body<k>.safetensors, which `estimate
    /// --nim-models` and `nim-predict` read.
    NimTrain {
        /// The population directory.
        #[arg(long)]
        population: PathBuf,
        /// Where to write the models (replaced whole).
        #[arg(long)]
        model_dir: PathBuf,
        /// Adam steps per network (batch 256).
        #[arg(long, default_value_t = 40_000)]
        steps: usize,
        /// Inputs: `centroidal` (15, the rail study's), `per-axis-log` (25, the motion study's),
        /// `per-axis` (18), `normalized` (15), `with-child` (24) or `paper` (18).
        #[arg(long, default_value = "centroidal")]
        inputs: crate::estimate::nim::Inputs,
    },
    /// Estimate every body of a run directory with saved NIM models (`nim-train`'s, or a NIM
    /// study's), ± σ where the models are a calibrated ensemble; the run's truth beside.
    NimPredict {
        /// The models' directory.
        #[arg(long)]
        model_dir: PathBuf,
        /// A run directory (`run` output).
        #[arg(long)]
        run: PathBuf,
    },
}

/// The registry's estimators (with `options`), only those `--only` names where given.
fn chosen(
    options: Options,
    only: Option<&[String]>,
) -> crate::Result<Vec<Box<dyn crate::estimate::Estimator>>> {
    crate::estimate::chosen(&options, only)
}

/// The experiments named on the command line: `(role, dir)` lists.
fn experiments(runs: &[String]) -> crate::Result<Vec<Vec<(Role, PathBuf)>>> {
    let with_roles = runs.iter().any(|r| r.contains('='));
    if !with_roles {
        return Ok(runs
            .iter()
            .map(|r| vec![(Role::Single, PathBuf::from(r))])
            .collect());
    }
    let one = runs
        .iter()
        .map(|r| {
            let (role, dir) = r.split_once('=').ok_or_else(|| crate::Error::Invalid {
                what: format!("run `{r}`"),
                expected: "ROLE=DIR, as every run is written once one has a role".into(),
            })?;
            Ok((role.parse::<Role>()?, PathBuf::from(dir)))
        })
        .collect::<crate::Result<Vec<_>>>()?;
    Ok(vec![one])
}

/// Runs one command.
pub fn run(command: Command) -> crate::Result<()> {
    match command {
        Command::Estimators => {
            let options = Options::default();
            print!(
                "{}",
                output::registry_table(&crate::estimate::registry(&options))
            );
        }
        Command::Identify(options) => identify::run(&options)?,
        Command::FitServos(options) => {
            let f = crate::estimate::simulation_fit::command::run(&options)?;
            println!(
                "fitted {} terms on {} windows in {} iterations: RMS residual {:.4e} rad (from {:.4e}); wrote {}",
                f.terms.len(),
                f.windows,
                f.iterations,
                f.rms,
                f.rms_start,
                options.out.display()
            );
            for ((t, v), s) in f.terms.iter().zip(&f.values).zip(&f.std) {
                println!("  {:<14} {v:.6e} ± {s:.2e}", t.name());
            }
        }
        Command::NimTrain {
            population,
            model_dir,
            steps,
            inputs,
        } => nim::train(&population, &model_dir, steps, inputs)?,
        Command::NimPredict { model_dir, run } => nim::predict(&model_dir, &run)?,
        Command::Import(options) => {
            let out = options.out.clone();
            let m = crate::import::import(&options)?;
            let filter = match m.signal.filter {
                Some((order, cutoff)) => {
                    format!("Butterworth order {order}, {cutoff:.3} Hz (zero phase)")
                }
                None => "no low-pass".into(),
            };
            println!(
                "wrote {} ({} rows → {} samples at {:.6} s, {} joints; {filter}{})",
                out.display(),
                m.rows,
                m.samples,
                m.signal.period,
                m.joints.len(),
                if m.signal.resampled {
                    ", resampled"
                } else {
                    ""
                }
            );
        }
        Command::Report {
            path,
            html,
            only,
            nim_models,
        } => {
            let options = Options {
                nim_models,
                ..Default::default()
            };
            html::write(&path, &html, || chosen(options, only.as_deref()))?;
            println!("wrote {}", html.display());
        }
        Command::Study { study, out } => {
            let names = crate::estimate::registry_names();
            let plan = crate::kind::Plan::from_path(&study, &names)?;
            let t0 = std::time::Instant::now();
            let summary = plan.run(&crate::kind::Context::standalone(&out))?;
            println!(
                "study `{}` ({}) in {:.1} s: {summary}\nresult and report in {}",
                plan.name(),
                plan.kind(),
                t0.elapsed().as_secs_f64(),
                out.join("report").display(),
            );
        }
        Command::Estimate {
            runs,
            only,
            nim_models,
            prior,
            urdf_out,
            holdout,
            out,
        } => {
            let estimators = chosen(Options { nim_models, prior }, only.as_deref())?;
            let mut rows = Vec::new();
            for experiment in experiments(&runs)? {
                let mut read: Vec<(Role, Loaded)> = experiment
                    .into_iter()
                    .map(|(role, dir)| Loaded::read(&dir).map(|r| (role, r)))
                    .collect::<Result<_, _>>()?;
                // Identified models are named after the runs given (not the holdout's parts).
                let model_id = (read.iter().map(|(_, r)| r.id.as_str()))
                    .collect::<Vec<_>>()
                    .join("+");
                if let Some(fraction) = holdout {
                    read = match read.as_slice() {
                        [(Role::Single, run)] => {
                            let (identify, validate) = run.split(fraction)?;
                            vec![(Role::Excitation, identify), (Role::Validation, validate)]
                        }
                        _ => {
                            return Err(crate::Error::Invalid {
                                what: "--holdout".into(),
                                expected: "runs given without roles (it splits each into \
                                           excitation and validation)"
                                    .into(),
                            });
                        }
                    };
                }
                let refs: Vec<(Role, &Loaded)> = read.iter().map(|(r, run)| (*r, run)).collect();
                let chosen: Vec<&dyn crate::estimate::Estimator> =
                    estimators.iter().map(|e| e.as_ref()).collect();
                let mut outcome = crate::estimate::engine::run_all(&chosen, &refs);
                if holdout.is_some() {
                    // Every whole model with physical drive terms, as `identify` rolls out.
                    let models = (outcome.models.iter())
                        .filter(|m| crate::estimate::choice::physical_drives(m));
                    let drift = crate::estimate::drift::rows(&model_id, models, &read[1].1)?;
                    outcome.rows.extend(drift);
                }
                output::print_outcome(&outcome);
                if only.is_some() && outcome.skipped.len() + outcome.failed.len() == chosen.len() {
                    return Err(crate::Error::NoEstimator {
                        what: format!("--only, on `{model_id}`"),
                        wanted: "asked for gave an estimate".into(),
                        reasons: (outcome.skipped.iter().chain(&outcome.failed))
                            .cloned()
                            .collect(),
                    });
                }
                if let Some(dir) = &urdf_out {
                    for path in output::write_models(dir, &model_id, &outcome.models)? {
                        println!("wrote {}", path.display());
                    }
                }
                rows.extend(outcome.rows);
            }
            output::write_rows(&out, &rows).map_err(crate::Error::io(&out))?;
            println!("wrote {}", out.display());
            if runs.len() > 1 && !runs.iter().any(|r| r.contains('=')) {
                let summary_path = out.with_extension("summary.csv");
                output::write_summary(&summary_path, &crate::study::stats::summarize(&rows))
                    .map_err(crate::Error::io(&summary_path))?;
                println!("wrote {}", summary_path.display());
            }
        }
    }
    Ok(())
}
