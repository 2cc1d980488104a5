//! `sim`: simulate a scenario and write its run directory ([`sim::cli`]; the same subcommands
//! as `armid`'s simulation side).

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Rebuilds robot manipulators in Rapier, replays identification experiments and writes
/// Parquet datasets (see the guide's dataset contract, book/src/dataset.md).
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: sim::cli::Command,
}

fn main() -> ExitCode {
    match sim::cli::run(Cli::parse().command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
