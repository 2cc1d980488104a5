//! Project automation: `cargo xtask reproduce` (paper datasets → estimators → reports) and
//! `cargo xtask bench` (simulation speed).

// The argument docs are `--help` text, where `<workspace>` is a placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod bench;
mod bench_nim;
mod bench_population;
mod industrial;
mod joint_level;
mod nim;
mod nim_motion;
mod nim_noise;
mod paper_sensing;
mod rapier_patch;
mod rapier_trajectories;
mod real;
mod teaching;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sim::scenario::Scenario;
use validation::report::chapter::Chapter;
use validation::study::plan::{NimPopulationPlan, Plan};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
/// Automation of the project's reproductions and benchmarks.
#[derive(Parser)]
#[command(about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate the paper datasets into generated/runs/, run the studies and write
    /// generated/report/: by default the papers' reproductions and the short studies (mim,
    /// multisine, teaching, the MIM noise sweep and realism_ft: about 3 minutes on 2 cores), with
    /// `--full` also those that train networks, read the shared recording or take longer
    /// (industrial, nim, NIM in mim_noise, joint_level, paper_sensing, real, realism,
    /// realism_gear).
    Reproduce {
        /// Output root (default: <workspace>/generated).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Only one part, whole: mim, nim, multisine, teaching, industrial, mim_noise (with NIM),
        /// real, realism, realism_ft, realism_gear, joint_level or paper_sensing.
        #[arg(long, value_parser = PARTS.iter().map(|p| p.0).collect::<Vec<_>>())]
        only: Option<String>,
        /// Every part, NIM's network training (about 6 minutes on 2 cores) and the TX40
        /// recording included.
        #[arg(long, conflicts_with = "only")]
        full: bool,
    },
    /// Render the user guide's results chapters (book/src/results-*.md) from the serialized
    /// results in generated/report/*.json, as `reproduce` does for the parts it runs.
    Book {
        /// Where the results are (default: <workspace>/generated/report).
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// The full NIM population study: generate (or resume) the population, train one network
    /// per body on the training arms, score held-out, out-of-distribution and the paper's arm;
    /// writes generated/report/nim.md and nim.csv (with the paper protocol).
    NimStudy {
        /// Output root (default: <workspace>/generated).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Training arms.
        #[arg(long, default_value_t = 1000)]
        train_arms: usize,
        /// Held-out arms from the same distributions.
        #[arg(long, default_value_t = 50)]
        test_arms: usize,
        /// Out-of-distribution (20 % denser) arms.
        #[arg(long, default_value_t = 50)]
        ood_arms: usize,
        /// Adam steps per body network (batch 256).
        #[arg(long, default_value_t = 40_000)]
        steps: usize,
        /// Seed of the networks' initialization and batch order (to check that a result is not
        /// one seed's luck).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Skip the learning curve (its three retrainings on 1/8, 1/4, 1/2 of the arms).
        #[arg(long)]
        no_curve: bool,
    },
    /// The NIM motion study: ensembles trained on `population_motions` arms of every motion
    /// family but one, calibrated, scored on held-out arms, the held-out family, denser arms and
    /// the paper's arm, MIM beside.
    NimMotionStudy {
        /// Output root (default: <workspace>/generated).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        size: nim_motion::MotionSize,
    },
    /// Train NIM (one network per body) on every complete arm of a population dataset
    /// (`sim population` output); writes MODEL_DIR/body<k>.safetensors.
    NimTrain {
        /// The population directory.
        #[arg(long)]
        population: PathBuf,
        /// Where to write the models.
        #[arg(long)]
        model_dir: PathBuf,
        /// Adam steps per network (batch 256).
        #[arg(long, default_value_t = 40_000)]
        steps: usize,
        /// Inputs: `centroidal` (15, the rail study's), `per-axis-log` (25, the motion study's),
        /// `per-axis` (18), `normalized` (15), `with-child` (24) or `paper` (18).
        #[arg(long, default_value = "centroidal")]
        inputs: String,
    },
    /// Estimate every body of a run directory with models from `nim-train`.
    NimPredict {
        /// The models' directory.
        #[arg(long)]
        model_dir: PathBuf,
        /// A run directory (`sim run` output).
        #[arg(long)]
        run: PathBuf,
    },
    /// Design the identification trajectories: write scenarios/teaching_excitation.toml
    /// (Fourier coefficients minimizing the base regressor's condition number) and
    /// scenarios/teaching_validation.toml (a random trajectory of the same family); and
    /// scenarios/panda_excitation.toml (D-optimal) and panda_validation.toml (random).
    Excite,
    /// Measure simulation speed: bare arm6 integrator steps/s, whole paper_rail runs/s
    /// (simulate + record + write) and population arms/s; with --peer, the MuJoCo + pyarrow
    /// pipelines' right after (xtask/peer/peer_mujoco.py, and peer_mujoco_strong.py in its
    /// modes exact, one thread and all, and batch), and the ratios.
    Bench {
        /// Number of whole paper_rail runs to time (the peer runs as many, at most 50).
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// Number of bare integrator steps to time.
        #[arg(long, default_value_t = 100_000)]
        steps: usize,
        /// Also run the peer pipeline and print the ratios (and, unless --no-rapier-patch, the
        /// bare steps/s with the Rapier patch applied; see bench-rapier-patch).
        #[arg(long)]
        peer: bool,
        /// With --peer, skip building and measuring the patched Rapier.
        #[arg(long)]
        no_rapier_patch: bool,
    },
    /// Apply xtask/rapier-patch/multibody-composite.patch (composite-rigid-body mass matrix) to a
    /// copy of the published rapier3d-f64 in a temporary directory, build the workspace against it
    /// (target/rapier-patch), and measure arm6 bare steps/s and whole simulated runs/s published
    /// vs patched, and the largest differences between runs both builds write; with --population,
    /// a population_rail per build; with --tests, run the sim suite and validation's Pinocchio
    /// and paper_rail tests on the patched build.
    BenchRapierPatch {
        /// Bare integrator steps per measurement.
        #[arg(long, default_value_t = 200_000)]
        steps: usize,
        /// Alternating measurements per build (the median is printed).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Also run the tests on the patched build.
        #[arg(long)]
        tests: bool,
        /// Also generate a population_rail of this many arms with each build
        /// (`bench-population`; ~0.12 GB per 1000 arms, removed afterwards).
        #[arg(long)]
        population: Option<usize>,
    },
    /// Print arm6's bare integrator steps/s as `RESULT bare_steps_per_s X` (used to measure
    /// the patched build in its own process).
    #[command(hide = true)]
    BareSteps {
        #[arg(long, default_value_t = 100_000)]
        steps: usize,
    },
    /// Simulate a scenario and write its run directory (used to compare the builds' runs).
    #[command(hide = true)]
    WriteRun { scenario: PathBuf, out: PathBuf },
    /// Print a scenario's simulated runs/s (simulate and record, no writing) as
    /// `RESULT runs_per_s X`.
    #[command(hide = true)]
    SimulateRuns {
        scenario: PathBuf,
        #[arg(long, default_value_t = 200)]
        runs: usize,
    },
    /// Generate a large population_rail into shard files on all cores (arms/s, files, bytes),
    /// verify it, and time reading one arm (the project's reader; polars, DuckDB and pyarrow
    /// through xtask/peer/read_population.py) and scanning the whole joints table.
    BenchPopulation {
        /// Arms of the population.
        #[arg(long, default_value_t = 100_000)]
        arms: usize,
        /// Where to write it (default: <workspace>/target/bench-population; ~11 GB at 100 000
        /// arms).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep the population afterwards (removed by default).
        #[arg(long)]
        keep: bool,
    },
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_owned()
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn progress(len: usize, name: &str) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} samples, ETA {eta}")
            .expect("template")
            .progress_chars("=> "),
    );
    pb.set_message(name.to_string());
    pb
}

/// Reads a reproduction study file of `studies/`.
pub(crate) fn plan(root: &Path, name: &str) -> Result<Plan, Box<dyn std::error::Error>> {
    Ok(Plan::from_path(
        &root.join(format!("studies/{name}.toml")),
        &[],
    )?)
}

/// The multisine part of `reproduce`: `studies/multisine.toml`.
fn multisine(root: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let Plan::Multisine(plan) = plan(root, "multisine")? else {
        return Err("studies/multisine.toml: expected kind = \"multisine\"".into());
    };
    let report = validation::reproduce::multisine(&plan, out)?;
    if let Some((method, m1, m2)) = report.best_at_paper_noise() {
        println!(
            "wrote {}/multisine.md, .csv, .png in {:.1} s: best at the paper's amplitude and noise: {method}, RMSE m1 {m1:.4} kg, m2 {m2:.4} kg (paper: 1.0568, 1.5420)",
            out.join("report").display(),
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The MIM noise study (`studies/mim_noise.toml`) and, `with_nim`, NIM beside it
/// (`studies/nim_noise.toml`, with models trained here on a clean and on a noise-augmented
/// population), into generated/studies/, the merged report as generated/report/mim_noise.md,
/// .csv, .png.
fn mim_noise(root: &Path, out: &Path, with_nim: bool) -> Result<(), Box<dyn std::error::Error>> {
    use validation::study::{file::Study, run_into, sweep::SweepResult};
    let t0 = Instant::now();
    let names = validation::estimate::registry_names();
    let none = |_: &SweepResult, _: &Path| Ok(());
    let studies = out.join("studies");
    let mim = Study::from_path(&root.join("studies/mim_noise.toml"), &names)?;
    let mut merged = run_into(&mim, &studies.join("mim_noise"), None, &none)?;
    println!("MIM sweep in {:.1} s", t0.elapsed().as_secs_f64());
    let nim_study = Study::from_path(&root.join("studies/nim_noise.toml"), &names)?;
    let models = if with_nim {
        nim_noise::models(root, out)?
    } else {
        merged.notes.push(
            "NIM beside MIM: `cargo xtask reproduce --full` (or `--only mim_noise`) trains its \
             models and adds its rows."
                .into(),
        );
        vec![]
    };
    for (label, models) in models {
        let study = Study {
            nim_models: Some(models.clone()),
            ..nim_study.clone()
        };
        let part = run_into(
            &study,
            &studies.join(format!("nim_noise_{label}")),
            None,
            &none,
        )?;
        merged.rows.extend(part.rows.into_iter().map(|mut r| {
            r.method = r.method.replacen("nim", &format!("nim_{label}"), 1);
            r
        }));
        merged.notes.push(format!(
            "`nim_{label}*`: NIM models {} ({}); {} seeds per level.",
            models.display(),
            nim_noise::describe(label),
            study.seeds
        ));
    }
    let report = out.join("report");
    std::fs::create_dir_all(&report)?;
    // The serialized result the report is rendered from.
    std::fs::write(
        report.join("mim_noise.json"),
        serde_json::to_string_pretty(&merged)?,
    )?;
    validation::report::sweep::write_as(&merged, &report, "mim_noise")?;
    println!(
        "wrote {}/mim_noise.md, .csv, .png in {:.1} s",
        report.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A survival study (`studies/<name>.toml`: which identifier survives which effect of the
/// generator; `realism`, the Panda's, takes 80 min on 2 cores, `realism_gear`, its elastic
/// gears, 10 min, `realism_ft`, arm6's MIM, a few seconds) into generated/studies/<name>,
/// its result and survival table as generated/report/<name>.json, .md, its figure, and the
/// effects' rows as <name>_effects.csv.
fn survival(root: &Path, out: &Path, name: &str) -> Result<(), Box<dyn std::error::Error>> {
    use validation::report::survival;
    use validation::study::{file::Study, run_into, sweep::SweepResult};
    let t0 = Instant::now();
    let names = validation::estimate::registry_names();
    let study = Study::from_path(&root.join(format!("studies/{name}.toml")), &names)?;
    let total: usize = (study.sweeps.iter().map(|s| s.levels.len()))
        .chain(study.effects.iter().map(|e| e.levels.len()))
        .sum::<usize>()
        * study.seeds
        * study.scenarios.len();
    println!(
        "{name}: {total} measured runs, each identified by up to {} estimators",
        study.estimators.len()
    );
    let render = |r: &SweepResult, dir: &Path| validation::report::sweep::write(r, dir);
    let result = run_into(&study, &out.join("studies").join(name), None, &render)?;
    let report = out.join("report");
    std::fs::create_dir_all(&report)?;
    std::fs::write(
        report.join(format!("{name}.json")),
        serde_json::to_string_pretty(&result)?,
    )?;
    std::fs::write(
        report.join(format!("{name}.md")),
        survival::markdown(&result),
    )?;
    std::fs::write(
        report.join(format!("{name}_effects.csv")),
        survival::effects_csv(&result),
    )?;
    survival::plot(&result, &report.join(survival::figure(&result)))?;
    println!(
        "wrote {}/{name}.md, .json in {:.1} s",
        report.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Renders the guide's results chapters of `chapters` from the results in `report`.
fn render_chapters(
    root: &Path,
    report: &Path,
    chapters: &[Chapter],
) -> Result<(), Box<dyn std::error::Error>> {
    for chapter in chapters {
        let path = chapter.render_into(report, &root.join("book/src"))?;
        println!("rendered {}", path.display());
    }
    Ok(())
}

/// The study file at `path` with its `nim` reading `models`.
fn study_with_models(
    path: &Path,
    models: &Path,
) -> Result<validation::study::file::Study, Box<dyn std::error::Error>> {
    let names = validation::estimate::registry_names();
    let study = validation::study::file::Study::from_path(path, &names)?;
    Ok(validation::study::file::Study {
        nim_models: Some(models.to_path_buf()),
        ..study
    })
}

/// Runs `study`'s sweeps into `dir` from scratch: a sweep resumes from its directory, and models
/// retrained since would make its rows stale.
fn run_fresh(
    study: &validation::study::file::Study,
    dir: &Path,
) -> Result<validation::study::sweep::SweepResult, Box<dyn std::error::Error>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    let none = |_: &validation::study::sweep::SweepResult, _: &Path| Ok(());
    Ok(validation::study::run_into(study, dir, None, &none)?)
}

/// Writes a study's serialized `result` and its Markdown report as `out/report/<stem>.json` and
/// `.md`, and says so with the time since `t0`.
fn write_report<T: serde::Serialize>(
    out: &Path,
    stem: &str,
    result: &T,
    markdown: String,
    t0: Instant,
) -> Result<(), Box<dyn std::error::Error>> {
    let report = out.join("report");
    std::fs::create_dir_all(&report)?;
    std::fs::write(
        report.join(format!("{stem}.json")),
        serde_json::to_string_pretty(result)?,
    )?;
    std::fs::write(report.join(format!("{stem}.md")), markdown)?;
    println!(
        "wrote {}/{stem}.md, .json in {:.1} s",
        report.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The parts of `reproduce`, and whether the default run (without `--full`) includes them.
const PARTS: [(&str, bool); 12] = [
    ("mim", true),
    ("nim", false),
    ("multisine", true),
    ("teaching", true),
    // The Panda's identification (4.5 min, most of it Levenberg–Marquardt): `--full`.
    ("industrial", false),
    ("mim_noise", true),
    ("real", false),
    ("realism", false),
    ("realism_ft", true),
    ("realism_gear", false),
    // Both train networks (about 8 min each on 2 cores): `--full` (the five-minute budget of the
    // default run, README).
    ("joint_level", false),
    ("paper_sensing", false),
];

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let root = workspace_root();
    match cli.command {
        Command::Reproduce { out, only, full } => {
            let out = out.unwrap_or_else(|| root.join("generated"));
            let part = |p: &str| match only.as_deref() {
                Some(o) => o == p,
                None => full || PARTS.iter().any(|&(name, quick)| name == p && quick),
            };
            // NIM beside MIM in the noise study trains two model sets: the whole part only.
            let with_nim = full || only.is_some();
            if part("mim") {
                let scenario = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
                let pb = progress(scenario.samples, "paper_rail");
                let t0 = Instant::now();
                let result = sim::simulate(&scenario, Some(&pb));
                pb.finish_and_clear();
                let dir = out.join("runs").join("paper_rail");
                sim::dataset::write_run(&dir, &result.recording, &result.manifest, true)?;
                println!(
                    "wrote {} in {:.1} s",
                    dir.display(),
                    t0.elapsed().as_secs_f64()
                );

                let run = validation::dataset::read_run(&dir)?;
                let cyl2 = Scenario::from_path(&root.join("scenarios/mim_cyl2.toml"))?;
                let cyl2 = validation::dataset::write_and_read(
                    &sim::simulate(&cyl2, None),
                    &out.join("runs").join("mim_cyl2"),
                )?;
                let report = validation::study::mim::MimStudy::new(&run)?.with_appendix(&cyl2)?;
                let report_dir = out.join("report");
                validation::report::mim::write(&report, &report_dir)?;
                println!(
                    "wrote {}/mim.md and mim.csv: MIM largest relative error {:.1e} (single instant), {:.1e} (stacked); \
                     not identifiable: {:?}",
                    report_dir.display(),
                    report.max_rel_error("mim_single"),
                    report.max_rel_error("mim_stacked"),
                    report
                        .unidentifiable("mim_single")
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>(),
                );
            }
            if part("nim") {
                nim::report(&nim::plan(&root)?, &out)?;
                nim_motion::study(&nim_motion::plan(&root)?, &out)?;
            }
            if part("multisine") {
                multisine(&root, &out)?;
            }
            if part("teaching") {
                teaching::reproduce(&root, &out)?;
            }
            if part("industrial") {
                industrial::reproduce(&root, &out)?;
            }
            if part("mim_noise") {
                mim_noise(&root, &out, with_nim)?;
            }
            if part("joint_level") {
                joint_level::reproduce(&root, &out)?;
            }
            if part("paper_sensing") {
                paper_sensing::reproduce(&root, &out)?;
            }
            for name in ["realism", "realism_ft", "realism_gear"] {
                if part(name) {
                    survival(&root, &out, name)?;
                }
            }
            if part("real") {
                if only.is_none() && !root.join("../shared/data/tx40").is_dir() {
                    println!("skipped real: the shared TX40 recording is not beside the workspace");
                } else {
                    real::reproduce(&root, &out)?;
                }
            }
            let ran: Vec<Chapter> = Chapter::ALL
                .into_iter()
                .filter(|c| part(c.part()))
                .collect();
            render_chapters(&root, &out.join("report"), &ran)?;
        }
        Command::Book { report } => {
            let report = report.unwrap_or_else(|| root.join("generated/report"));
            let present: Vec<Chapter> = Chapter::ALL
                .into_iter()
                .filter(|c| {
                    let there = report.join(format!("{}.json", c.stem())).exists();
                    if !there {
                        println!(
                            "kept {}: no {}.json in {} (`cargo xtask reproduce --only {}` writes it)",
                            c.file_name(),
                            c.stem(),
                            report.display(),
                            c.part()
                        );
                    }
                    there
                })
                .collect();
            render_chapters(&root, &report, &present)?;
        }
        Command::Excite => {
            teaching::excite(&root)?;
            industrial::excite(&root)?;
        }
        Command::NimTrain {
            population,
            model_dir,
            steps,
            inputs,
        } => nim::train_cli(&population, &model_dir, steps, &inputs)?,
        Command::NimPredict { model_dir, run } => nim::predict_cli(&model_dir, &run)?,
        Command::NimStudy {
            out,
            train_arms,
            test_arms,
            ood_arms,
            steps,
            seed,
            no_curve,
        } => {
            let out = out.unwrap_or_else(|| root.join("generated"));
            let curve = [train_arms / 8, train_arms / 4, train_arms / 2]
                .into_iter()
                .filter(|&n| n > 0 && !no_curve)
                .collect();
            let plan = NimPopulationPlan {
                train: train_arms,
                test: test_arms,
                ood: ood_arms,
                steps,
                curve,
                seed,
                ..nim::plan(&root)?
            };
            nim::report(&plan, &out)?;
        }
        Command::NimMotionStudy { out, size } => {
            let out = out.unwrap_or_else(|| root.join("generated"));
            nim_motion::study(&size.apply(nim_motion::plan(&root)?), &out)?;
        }
        Command::Bench {
            runs,
            steps,
            peer,
            no_rapier_patch,
        } => bench::bench(&root, runs, steps, peer, !no_rapier_patch)?,
        Command::BenchRapierPatch {
            steps,
            rounds,
            tests,
            population,
        } => rapier_patch::bench(&root, steps, rounds, tests, population)?,
        Command::BareSteps { steps } => {
            println!("RESULT bare_steps_per_s {}", bench::bare_steps(steps)?)
        }
        Command::WriteRun { scenario, out } => rapier_trajectories::write_run(&scenario, &out)?,
        Command::SimulateRuns { scenario, runs } => {
            let rate = rapier_patch::simulate_runs(&scenario, runs)?;
            println!("RESULT runs_per_s {rate}")
        }
        Command::BenchPopulation { arms, out, keep } => {
            let out = out.unwrap_or_else(|| root.join("target/bench-population"));
            bench_population::bench(&root, arms, &out, keep)?
        }
    }
    Ok(())
}
