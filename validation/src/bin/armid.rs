//! `armid`: the project's one command — simulation (`run`, `population`, `replay`,
//! `export-urdf`, `export-mjcf`, `check`; [`sim::cli`]) and estimation (`identify`, `estimate`,
//! `import`, `study`, alias `sweep`; [`validation::cli`]) — plus `completions SHELL`, which
//! prints a completion script.
//!
//! ```sh
//! cargo install --path validation        # installs `armid` (and the `sim`, `validation` aliases)
//! armid run scenarios/paper_rail.toml --out generated/runs/paper_rail
//! armid estimate generated/runs/paper_rail --out est.csv
//! armid completions bash > ~/.local/share/bash-completion/completions/armid
//! ```

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Manipulator identification in Rapier: simulate arms, replay recordings, write Parquet
/// datasets, and score inertial-parameter estimators against the truth.
#[derive(Parser)]
#[command(name = "armid", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Simulate(sim::cli::Command),
    #[command(flatten)]
    Estimate(validation::cli::Command),
    /// Print a completion script for SHELL (bash, elvish, fish, powershell, zsh) on stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let result: Result<(), Box<dyn std::error::Error>> = match Cli::parse().command {
        Command::Simulate(c) => sim::cli::run(c).map_err(Into::into),
        Command::Estimate(c) => validation::cli::run(c).map_err(Into::into),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "armid", &mut script);
            // A reader that stops early (`| head`) is not an error of ours.
            match std::io::stdout().write_all(&script) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(()),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
