//! `cargo xtask bench [--peer]`: the project's simulation speed, and with `--peer` the same
//! measurements of the MuJoCo + pyarrow pipeline a user would write instead
//! (`xtask/peer/peer_mujoco.py`, in a virtual environment under `target/peer-venv`) and of the
//! strong peer a performance-minded user writes (`xtask/peer/peer_mujoco_strong.py`: the
//! reference motion's states with `mj_inverse` per sample, and a closed loop in `mujoco.batch`),
//! run right after, with the ratios; and NIM's inference and training speed against MIM
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
    rapier_patch: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let tmp = std::env::temp_dir().join(format!("xtask-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let result = measure(root, &tmp, runs, steps).and_then(|ours| {
        crate::bench_nim::bench(root, &tmp)?;
        if peer {
            let patched = if rapier_patch {
                let build = crate::rapier_patch::PatchedBuild::prepare(root)?;
                Some(crate::rapier_patch::bare_steps(
                    &build,
                    steps.max(200_000),
                    3,
                )?)
            } else {
                None
            };
            compare(root, &tmp, runs, &ours, patched)
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
    let bare_steps = bare_steps(steps)?;
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

    readings(&rail);
    per_sample_work(&rail);

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

/// Bare integrator steps/s of arm6 with every arm joint dynamic (falling from rest), over
/// `steps` steps at dt = 1 ms (past the scenario's 1 s end: the arm keeps swinging).
pub fn bare_steps(steps: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let falling = Scenario::from_toml(&falling_arm6(), "arm6, every joint free (bench)")?;
    let mut sim = sim::simulation::Simulation::new(&falling);
    let t0 = Instant::now();
    for _ in 0..steps {
        sim.advance();
    }
    Ok(steps as f64 / t0.elapsed().as_secs_f64())
}

/// The readings' core per sample on `paper_rail` (issue 30's "readings in microseconds"): the
/// forward kinematics, RNEA and Newton–Euler joint wrenches of `sim::readout::evaluate_into` (as
/// a run calls it: one workspace reused) at each recorded state, every joint prescribed (its
/// acceleration known), repeated over the run.
fn readings(rail: &Scenario) {
    use sim::readout::{Known, Workspace, evaluate_into};
    use sim::recording::JointColumn;
    let run = sim::simulate(rail, None);
    let rec = &run.recording;
    let states: Vec<[Vec<f64>; 3]> = (0..rec.samples())
        .map(|k| {
            let at = |c| {
                (0..rec.joint_ids.len())
                    .map(|j| rec.joint_series(c, j)[k])
                    .collect()
            };
            [
                at(JointColumn::Q),
                at(JointColumn::Qd),
                at(JointColumn::Qdd),
            ]
        })
        .collect();
    let armature = vec![0.0; rec.joint_ids.len()];
    let gravity = sim::gravity_vector();
    let known: Vec<Vec<Known>> = (states.iter())
        .map(|[_, _, qdd]| qdd.iter().map(|&a| Known::Acceleration(a)).collect())
        .collect();
    let mut workspace = Workspace::default();
    let repeats = 200;
    let t0 = Instant::now();
    for _ in 0..repeats {
        for ([q, qd, _], known) in states.iter().zip(&known) {
            evaluate_into(
                &rail.chain,
                q,
                qd,
                known,
                &armature,
                &gravity,
                &mut workspace,
            )
            .expect("evaluates");
            std::hint::black_box(&workspace.readout);
        }
    }
    let per_sample = t0.elapsed().as_secs_f64() / (repeats * states.len()) as f64;
    println!(
        "paper_rail readings' core:   {:>10.2} µs per sample (forward kinematics, RNEA and joint \
         wrenches by sim::readout::evaluate_into at each of the {} recorded states)",
        1e6 * per_sample,
        states.len()
    );
}

/// Everything a `paper_rail` run does per sample besides integrating (issue 30's "readings in
/// microseconds" in full): `sim::simulate` — readings, Cardan rates, Rapier's cross-check, the
/// measured columns, the recording's residuals, checks and gates — less the same steps taken
/// by `Simulation::advance` alone (the world built in both), over the run's samples. Best of
/// five alternating rounds of 200 runs each.
fn per_sample_work(rail: &Scenario) {
    let (runs, rounds) = (200, 5);
    let steps = (rail.samples - 1) * rail.steps_per_sample + 1;
    let per_run = |f: &dyn Fn()| {
        let t0 = Instant::now();
        for _ in 0..runs {
            f();
        }
        t0.elapsed().as_secs_f64() / runs as f64
    };
    let simulate = || {
        std::hint::black_box(sim::simulate(rail, None));
    };
    let advance = || {
        let mut s = sim::simulation::Simulation::new(rail);
        for _ in 0..steps {
            s.advance();
        }
        std::hint::black_box(&s);
    };
    let (mut whole, mut stepping) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        whole = whole.min(per_run(&simulate));
        stepping = stepping.min(per_run(&advance));
    }
    println!(
        "paper_rail per-sample work:  {:>10.2} µs per sample besides the step (sim::simulate {:.0} \
         µs a run less {steps} Simulation::advance {:.0} µs, over {} samples)",
        1e6 * (whole - stepping) / rail.samples as f64,
        1e6 * whole,
        1e6 * stepping,
        rail.samples
    );
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
    patched: Option<(f64, f64)>,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(python) = peer_python(root) else {
        println!(
            "peer: skipped — could not set up a Python virtual environment with mujoco==4.0.0, pyarrow, numpy and \
             pin==4.1.0 under target/peer-venv (needs python3 -m venv and network access to PyPI)"
        );
        return Ok(());
    };
    let our_run = tmp.join("run0");
    let runs_arg = runs.min(50).to_string();
    let text = run_peer(
        &python,
        &root.join("xtask/peer/peer_mujoco.py"),
        &["--runs", &runs_arg, "--ours", &our_run.to_string_lossy()],
    )?;
    let (mj_steps, peer_runs) = (
        result(&text, "mj_step_per_s")?,
        result(&text, "runs_per_s")?,
    );
    let (peer_tau, our_tau) = (
        result(&text, "peer_tau_vs_pinocchio")?,
        result(&text, "ours_tau_vs_pinocchio")?,
    );
    // The strong peer (xtask/peer/peer_mujoco_strong.py, the reference as given): `exact` is the reference
    // motion's states with mj_inverse per sample, `batch` a closed loop at 1 ms in mujoco.batch.
    let threads = rayon::current_num_threads().to_string();
    let strong = |mode: &str, threads: &str| -> Result<f64, Box<dyn std::error::Error>> {
        let script = root.join("xtask/peer/peer_mujoco_strong.py");
        let runs = runs.clamp(10, 100).to_string();
        let args = ["--runs", &runs, "--threads", threads, "--mode", mode];
        Ok(result(&run_peer(&python, &script, &args)?, "runs_per_s")?)
    };
    let (exact_1, exact_n, batch_n) = (
        strong("exact", "1")?,
        strong("exact", &threads)?,
        strong("batch", &threads)?,
    );
    println!("\n| what | MuJoCo peer | this project | ratio |\n|---|---:|---:|---:|");
    println!(
        "| arm6 bare steps/s (plain `mj_step` vs Rapier's multibody step) | {mj_steps:.0} | {:.0} | {:.2} |",
        ours.bare_steps,
        ours.bare_steps / mj_steps
    );
    if let Some((published, patched)) = patched {
        println!(
            "| arm6 bare steps/s, published rapier3d-f64 vs with xtask/rapier-patch (alternating \
             processes, medians of 3) | {mj_steps:.0} | {published:.0} → {patched:.0} | {:.2} → {:.2} |",
            published / mj_steps,
            patched / mj_steps
        );
    }
    let row = |what: &str, peer: f64, name: &str, ours: f64| {
        println!(
            "| {what} | {peer:.1} ({name}) | {ours:.1} | {:.2} |",
            ours / peer
        );
    };
    row(
        "whole `paper_rail` runs/s, one thread",
        exact_1,
        "strong, exact",
        ours.runs,
    );
    row(
        &format!("whole `paper_rail` runs/s, {threads} threads"),
        exact_n,
        "strong, exact",
        ours.runs_parallel,
    );
    row(
        &format!("whole `paper_rail` runs/s, {threads} threads"),
        batch_n,
        "strong, closed loop in mujoco.batch",
        ours.runs_parallel,
    );
    row(
        "whole `paper_rail` runs/s, one thread",
        peer_runs,
        "first peer",
        ours.runs,
    );
    println!(
        "| population arms/s, all cores | — | {:.1} | {:.0}× the 3 arms/s before |",
        ours.arms,
        ours.arms / 3.0
    );
    println!("| recorded τ vs Pinocchio's RNEA, relative | {peer_tau:.1e} | {our_tau:.1e} | |");
    println!(
        "\nWhat each side writes per run: the peers, bodies.parquet and joints.parquet (zstd) with \
         positions, quaternions, accelerations, wrenches, q, qd, qdd, tau; this project, also Cardan \
         angles and rates, centroid velocities, body-frame rates, joint points, friction and current \
         columns, truth.parquet, manifest.json and SHA256SUMS, renamed into place atomically."
    );
    Ok(())
}

/// Runs a peer script with `args`; its standard output.
fn run_peer(
    python: &Path,
    script: &Path,
    args: &[&str],
) -> Result<String, Box<dyn std::error::Error>> {
    let output = Command::new(python).arg(script).args(args).output()?;
    if !output.status.success() {
        return Err(format!(
            "peer {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The value a peer printed as `RESULT key value`.
pub(crate) fn result(text: &str, key: &str) -> Result<f64, String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("RESULT {key} ")))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| format!("the peer printed no {key}"))
}

/// The peer's Python: `target/peer-venv/bin/python`, created and filled if missing; `None` if
/// that is impossible here.
pub(crate) fn peer_python(root: &Path) -> Option<PathBuf> {
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
