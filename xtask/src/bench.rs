//! `cargo xtask bench [--peer]`: the project's simulation speed, and with `--peer` the same
//! measurements of the MuJoCo + pyarrow pipeline a user would write instead
//! (`xtask/peer/peer_mujoco.py`, in a virtual environment under `target/peer-venv`), run right
//! after, with the ratios; and NIM's inference and training speed against MIM
//! ([`crate::bench_nim`]). A benchmark, not a test: timings depend on the machine's load.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use sim::scenario::Scenario;

/// What the project measured.
struct Ours {
    /// Plain integrator steps/s of arm6 with every arm joint dynamic (a falling arm, as a bare
    /// `mj_step`), dt = 1 ms.
    bare_steps: f64,
    /// Whole `paper_rail` runs/s, one after the other on one thread.
    runs: f64,
    /// The same with independent runs in parallel on all cores.
    runs_parallel: f64,
    /// `population_rail` arms/s written on all cores.
    arms: f64,
}

/// Runs the benchmark; `runs` whole `paper_rail` runs are timed (and as many by the peer).
pub fn bench(
    root: &Path,
    runs: usize,
    steps: usize,
    peer: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let tmp = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let result = measure(root, &tmp, runs, steps).and_then(|ours| {
        crate::bench_nim::bench(root, &tmp)?;
        if peer {
            compare(root, &tmp, runs, &ours)
        } else {
            Ok(())
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn measure(
    root: &Path,
    tmp: &Path,
    runs: usize,
    steps: usize,
) -> Result<Ours, Box<dyn std::error::Error>> {
    let falling = Scenario::from_toml(&falling_arm6(), "arm6, every joint free (bench)")?;
    let mut sim = sim::simulation::Simulation::new(&falling);
    let t0 = Instant::now();
    for _ in 0..steps {
        sim.advance();
    }
    let bare_steps = steps as f64 / t0.elapsed().as_secs_f64();
    println!(
        "arm6 bare integrator steps:  {bare_steps:>10.0} steps/s  (every joint dynamic, dt = 1e-3 s)"
    );

    let rail = Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    let whole = |k: usize| -> Result<(), sim::dataset::DatasetError> {
        let result = sim::simulate(&rail, None);
        sim::dataset::write_run(
            &tmp.join(format!("run{k}")),
            &result.recording,
            &result.manifest,
            true,
        )
    };
    let (mut simulating, mut writing) = (0.0, 0.0);
    let t0 = Instant::now();
    for k in 0..runs {
        let t = Instant::now();
        let result = sim::simulate(&rail, None);
        simulating += t.elapsed().as_secs_f64();
        let t = Instant::now();
        sim::dataset::write_run(
            &tmp.join(format!("run{k}")),
            &result.recording,
            &result.manifest,
            true,
        )?;
        writing += t.elapsed().as_secs_f64();
    }
    let one_thread = runs as f64 / t0.elapsed().as_secs_f64();
    println!(
        "paper_rail per run:          {:>10.2} ms simulating and recording, {:.2} ms writing the run directory",
        1e3 * simulating / runs as f64,
        1e3 * writing / runs as f64
    );
    let t0 = Instant::now();
    (0..runs).into_par_iter().try_for_each(whole)?;
    let parallel = runs as f64 / t0.elapsed().as_secs_f64();
    println!(
        "paper_rail whole runs:       {one_thread:>10.1} runs/s on one thread, {parallel:.1} on {} threads \
         ({} steps + record + write)",
        rayon::current_num_threads(),
        (rail.samples - 1) * rail.steps_per_sample
    );

    let population = Scenario::from_path(&root.join("scenarios/population_rail.toml"))?;
    let arms = population.population()?.arms;
    let t0 = Instant::now();
    sim::batch::generate(
        &population,
        &tmp.join("population"),
        sim::population::Shard::ALL,
        true,
        None,
    )?;
    let arm_rate = arms as f64 / t0.elapsed().as_secs_f64();
    println!("population_rail arms:        {arm_rate:>10.1} arms/s ({arms} arms written)");
    Ok(Ours {
        bare_steps,
        runs: one_thread,
        runs_parallel: parallel,
        arms: arm_rate,
    })
}

/// arm6 with every arm joint free from rest at the zero configuration (the rail held): it falls
/// under gravity.
fn falling_arm6() -> String {
    let mut text = "name = \"arm6_falling\"\nmodel = \"arm6\"\n[time]\nend = 1.0\nstep = 1e-3\n\
                    sample_period = 1e-3\n[[joint]]\nid = 0\nmotion = { type = \"hold\" }\n"
        .to_string();
    for id in 1..=6 {
        text += &format!("[[joint]]\nid = {id}\nfree = true\n");
    }
    text
}

/// Runs the peer pipeline and prints the ratios.
fn compare(
    root: &Path,
    tmp: &Path,
    runs: usize,
    ours: &Ours,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(python) = peer_python(root) else {
        println!(
            "peer: skipped — could not set up a Python virtual environment with mujoco==4.0.0, pyarrow, numpy and \
             pin==4.1.0 under target/peer-venv (needs python3 -m venv and network access to PyPI)"
        );
        return Ok(());
    };
    let our_run = tmp.join("run0");
    let output = Command::new(&python)
        .arg(root.join("xtask/peer/peer_mujoco.py"))
        .args(["--runs", &runs.min(50).to_string(), "--ours"])
        .arg(&our_run)
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "peer pipeline failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let value = |key: &str| -> Result<f64, String> {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("RESULT {key} ")))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| format!("the peer printed no {key}"))
    };
    let (mj_steps, peer_runs) = (value("mj_step_per_s")?, value("runs_per_s")?);
    let (peer_tau, our_tau) = (
        value("peer_tau_vs_pinocchio")?,
        value("ours_tau_vs_pinocchio")?,
    );
    println!("\n| what | MuJoCo peer | this project | ratio |\n|---|---:|---:|---:|");
    println!(
        "| arm6 bare steps/s | {mj_steps:.0} | {:.0} | {:.2} |",
        ours.bare_steps,
        ours.bare_steps / mj_steps
    );
    println!(
        "| whole `paper_rail` runs/s, one thread | {peer_runs:.1} | {:.1} | {:.1} |",
        ours.runs,
        ours.runs / peer_runs
    );
    println!(
        "| whole `paper_rail` runs/s, all cores | {peer_runs:.1} (one thread) | {:.1} | {:.1} |",
        ours.runs_parallel,
        ours.runs_parallel / peer_runs
    );
    println!(
        "| population arms/s, all cores | — | {:.1} | {:.0}× the 3 arms/s before |",
        ours.arms,
        ours.arms / 3.0
    );
    println!("| recorded τ vs Pinocchio's RNEA, relative | {peer_tau:.1e} | {our_tau:.1e} | |");
    Ok(())
}

/// The peer's Python: `target/peer-venv/bin/python`, created and filled if missing; `None` if
/// that is impossible here.
fn peer_python(root: &Path) -> Option<PathBuf> {
    let venv = root.join("target/peer-venv");
    let python = venv.join("bin/python");
    let ready = |p: &Path| {
        Command::new(p)
            .args(["-c", "import mujoco, pyarrow, numpy, pinocchio"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if ready(&python) {
        return Some(python);
    }
    println!(
        "peer: setting up {} (mujoco, pyarrow, numpy, pin)…",
        venv.display()
    );
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success());
    let installed = made
        && Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "mujoco==4.0.0",
                "pyarrow",
                "numpy",
                "pin==4.1.0",
            ])
            .status()
            .is_ok_and(|s| s.success());
    (installed && ready(&python)).then_some(python)
}
