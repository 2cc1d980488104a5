//! `validation`: estimators on datasets from the command line ([`validation::cli`]; the same
//! subcommands as `armid`'s estimation side).

use std::process::ExitCode;

use clap::Parser;

/// Estimators of inertial parameters on run directories.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: validation::cli::Command,
}

fn main() -> ExitCode {
    match validation::cli::run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
