//! Project automation: `cargo xtask reproduce` (the study files of `studies/reproduce.toml`,
//! run by `validation::kind`) and `book`, `excite` and `bench`. Training NIM on a population is
//! `armid nim-train` (`validation::estimate::nim::saved`).

// The argument docs are `--help` text, where `<workspace>` is a placeholder, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod bench;
mod bench_nim;
mod bench_population;
mod excite_link2;
mod excite_panda;
mod rapier_patch;
mod rapier_trajectories;

use clap::{Parser, Subcommand};
use validation::kind::tiers::Tiers;
use validation::kind::{Context, render_chapter};

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
    /// Run the studies of studies/reproduce.toml: simulations into generated/runs/, populations
    /// and models into generated/populations/ and generated/models/ (cached by a hash of what
    /// made them), results and reports into generated/report/, and the guide's results chapters
    /// into book/src/. By default the list's default tier (mim, multisine, teaching, mim_noise
    /// and realism_ft: about 3 minutes on 2 cores); with `--full` every study, those that train
    /// networks, read the TX40 recording or take longer in the default's place.
    Reproduce {
        /// Output root (default: <workspace>/generated).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Only the study of this name, at its full size (a name of studies/reproduce.toml).
        #[arg(long)]
        only: Option<String>,
        /// Every study of the list, at its full size.
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

/// The list of `reproduce`'s studies, read with the registry's estimator names.
fn tiers(root: &Path) -> Result<Tiers, Box<dyn std::error::Error>> {
    let names = validation::estimate::registry_names();
    Ok(Tiers::from_path(
        &root.join("studies/reproduce.toml"),
        &names,
    )?)
}

/// `cargo xtask reproduce`: the studies selected, each run and, with a chapter, rendered.
fn reproduce(
    root: &Path,
    out: &Path,
    only: Option<&str>,
    full: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let tiers = tiers(root)?;
    let ctx = Context::new(out, root);
    for study in tiers.selected(full, only)? {
        let name = study.plan.name();
        let t0 = Instant::now();
        let summary = study.plan.run(&ctx)?;
        println!(
            "{name} ({}, {:.1} s): {summary}",
            study.file.display(),
            t0.elapsed().as_secs_f64()
        );
        if study.chapter {
            let path = render_chapter(&study.plan, &ctx.report(), &root.join("book/src"))?;
            println!("rendered {}", path.display());
        }
    }
    Ok(())
}

/// `cargo xtask book`: every chapter whose result is in `report`.
fn book(root: &Path, report: &Path) -> Result<(), Box<dyn std::error::Error>> {
    for study in tiers(root)?.chapters() {
        let name = study.plan.name();
        if !report.join(format!("{name}.json")).exists() {
            println!(
                "kept results-{name}.md: no {name}.json in {} (`cargo xtask reproduce --only {name}` writes it)",
                report.display()
            );
            continue;
        }
        let path = render_chapter(&study.plan, report, &root.join("book/src"))?;
        println!("rendered {}", path.display());
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let root = workspace_root();
    match cli.command {
        Command::Reproduce { out, only, full } => {
            let out = out.unwrap_or_else(|| root.join("generated"));
            reproduce(&root, &out, only.as_deref(), full)?;
        }
        Command::Book { report } => {
            book(
                &root,
                &report.unwrap_or_else(|| root.join("generated/report")),
            )?;
        }
        Command::Excite => {
            excite_link2::excite(&root)?;
            excite_panda::excite(&root)?;
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
