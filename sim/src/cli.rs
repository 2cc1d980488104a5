//! The `sim` command line: simulate a scenario or a population, replay a recording, export a
//! model, check a scenario. `sim` and `armid` (the project's one command, with `validation`'s
//! subcommands too) parse these subcommands.

use std::path::PathBuf;

use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};

use crate::scenario::Scenario;

/// The simulation commands (`sim …`, and the same subcommands of `armid`).
#[derive(Subcommand)]
pub enum Command {
    /// Simulate a scenario and write one run directory (bodies/joints/truth Parquet + manifest).
    Run {
        /// The scenario file (TOML), e.g. scenarios/paper_rail.toml.
        scenario: PathBuf,
        /// The run directory to create; written atomically (complete or absent).
        #[arg(long)]
        out: PathBuf,
        /// Replace OUT if it already exists.
        #[arg(long)]
        force: bool,
        /// Write the run even if it fails a validity gate (its manifest then says `valid:
        /// false` and names the failure); the exit status is still non-zero.
        #[arg(long)]
        keep_invalid: bool,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Simulate the arms of a scenario's `[population]` section into one population dataset
    /// (OUT/bodies|joints|truth|manifests/shard=NNNNN/part-0.parquet, shards of
    /// `arms_per_shard` arms), in parallel. Shards already complete in OUT are kept, so an
    /// interrupted run resumes.
    /// `sim population verify DIR` checks a population assembled from shards.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Population {
        /// `verify`, or none to simulate.
        #[command(subcommand)]
        action: Option<PopulationAction>,
        /// The scenario file (TOML) with a `[population]` section.
        #[arg(required = true)]
        scenario: Option<PathBuf>,
        /// The population directory (created if needed; shards may share it).
        #[arg(long, required = true)]
        out: Option<PathBuf>,
        /// Only shards s with s mod N = K, as K/N (0-based): for batch schedulers.
        #[arg(long, default_value = "0/1")]
        shard: crate::scenario::population::Shard,
        /// Regenerate arms that are already complete in OUT.
        #[arg(long)]
        force: bool,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Write a model as URDF: a reference model's name (arm6, link2, cyl2), a URDF file, or a
    /// scenario file (its model, with the scenario's joint damping).
    ExportUrdf {
        /// `arm6`, `link2`, `cyl2`, a `.urdf` file or a `.toml` scenario.
        model: String,
        /// The URDF file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write a model as MuJoCo MJCF (`sim::mjcf::export`): a reference model's name, a URDF or
    /// MJCF file, or a scenario file (its model, with the scenario's locks and damping). An MJCF
    /// file's own drives (a coupled drive's fixed tendon, a motor per drive, as `identify`'s
    /// `model.xml` states them) are written back, unless `--drives` replaces them.
    ExportMjcf {
        /// `arm6`, `link2`, `cyl2`, a `.urdf` or `.xml` file or a `.toml` scenario.
        model: String,
        /// The MJCF file to write.
        #[arg(long)]
        out: PathBuf,
        /// A joint of a URDF or MJCF file held at a position: `NAME=POSITION` (rad or m),
        /// repeated (a gripper's fingers).
        #[arg(long, value_parser = lock)]
        lock: Vec<(String, f64)>,
        /// An identified drive-train file (`estimate --urdf-out`'s or `identify`'s
        /// `drives.toml`): each drive's rotor inertia, viscous and Coulomb terms become its
        /// joint's `armature`, `damping` and `frictionloss` (a coupled drive's, a fixed
        /// tendon's), replacing the model's own, as `replay --drives` does. No motors: they need
        /// the transmission's ratios, which `identify` takes from the recording's
        /// configuration.
        #[arg(long)]
        drives: Option<PathBuf>,
    },
    /// Play a recorded run's joint trajectory (`validation import` output) on a model and write
    /// the replay's run directory, with its torque residual against the recording per joint in
    /// its manifest (`sim::replay`).
    Replay(crate::replay::Options),
    /// Drive a model as the robot was driven: from the run's recorded states, under its logged
    /// torques, open loop over short windows; print how far it drifts (`sim::rollout`).
    Rollout(crate::rollout::Options),
    /// Write a servo arm's runs (commands on every joint) as one LeRobot v3.0 dataset, each run
    /// an episode (`sim::lerobot_export`).
    ExportLerobot(crate::lerobot_export::Options),
    /// Read and check a scenario file without simulating it.
    Check {
        /// The scenario file (TOML).
        scenario: PathBuf,
    },
}

/// `sim population`'s own subcommands.
#[derive(Subcommand)]
pub enum PopulationAction {
    /// Report missing, invalid and unexpected (duplicate, stray) arms of a population
    /// directory; exits non-zero if there are any.
    Verify {
        /// The population directory.
        dir: PathBuf,
    },
}

/// Runs one command.
pub fn run(command: Command) -> crate::Result<()> {
    match command {
        Command::ExportUrdf { model, out } => {
            let (chain, _) = model_of(&model, &Default::default())?;
            write_model(&out, &chain, &crate::urdf::to_string(&chain)?)?;
            for line in crate::urdf::export::unstated(&chain, None) {
                eprintln!(
                    "note: URDF cannot state {line}: not in {} (sim export-mjcf writes it)",
                    out.display()
                );
            }
        }
        Command::ExportMjcf {
            model,
            out,
            lock,
            drives,
        } => {
            let locks = lock.into_iter().collect();
            // An MJCF model's own drives (tendons, motors) are written back unless a drives
            // file replaces them.
            let source = (crate::mjcf::is_mjcf(&model) && drives.is_none())
                .then(|| crate::mjcf::read(std::path::Path::new(&model), &locks))
                .transpose()?;
            let (chain, names) = match &source {
                Some(m) => (m.chain.clone(), Some(m.joints.clone())),
                None => model_of(&model, &locks)?,
            };
            let drives = (drives.as_deref())
                .map(|path| crate::drive_train::DriveTrain::read(path, chain.links.len()))
                .transpose()?;
            let actuation = match (&drives, &source) {
                (Some(drives), _) => Some(crate::mjcf::Actuation {
                    drives,
                    transmission: None,
                }),
                (None, Some(m)) => m.actuation(),
                (None, None) => None,
            };
            let text = crate::mjcf::with_drives(&chain, names.as_deref(), actuation.as_ref());
            write_model(&out, &chain, &text)?;
        }
        Command::Replay(options) => {
            let r = crate::replay::replay(&options, None)?;
            println!(
                "wrote {}: torque NRMS against the recording {:.4} (moving joints {:.4}) over samples {}..{}",
                options.out.display(),
                r.torque_nrms,
                r.torque_nrms_moving,
                r.window[0],
                r.window[1]
            );
            for (name, v) in &r.torque_nrms_joints {
                println!("  {name}: {v:.4}");
            }
            print_replay_rollouts(&options)?;
        }
        Command::Rollout(options) => {
            let r = crate::rollout::rollout(&options)?;
            print_rollout(&r);
        }
        Command::ExportLerobot(options) => {
            let frames = crate::lerobot_export::export(&options)?;
            println!(
                "wrote {}: {} episodes, {} frames",
                options.out.display(),
                frames.len(),
                frames.iter().sum::<usize>()
            );
        }
        Command::Check { scenario } => {
            let s = Scenario::from_path(&scenario)?;
            println!(
                "{}: model {}, {} samples, {} steps per sample",
                scenario.display(),
                s.chain.name,
                s.samples,
                s.steps_per_sample
            );
        }
        Command::Population {
            action: Some(PopulationAction::Verify { dir }),
            ..
        } => verify(&dir)?,
        Command::Population {
            action: None,
            scenario,
            out,
            shard,
            force,
            quiet,
        } => {
            let (scenario, out) = (scenario.expect("required"), out.expect("required"));
            let s = Scenario::from_path(&scenario)?;
            let pb = (!quiet).then(|| {
                let pb = ProgressBar::new(0);
                pb.set_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:40}] {pos}/{len} arms, {per_sec}, ETA {eta}",
                    )
                    .expect("template")
                    .progress_chars("=> "),
                );
                pb.set_message(format!(
                    "{} shard {}/{}",
                    s.file.name, shard.index, shard.count
                ));
                pb
            });
            let t0 = std::time::Instant::now();
            let g = crate::batch::generate(&s, &out, shard, force, pb.as_ref())?;
            if let Some(pb) = &pb {
                pb.finish_and_clear();
            }
            let secs = t0.elapsed().as_secs_f64();
            println!(
                "{}: shard {}/{}: wrote {} arms in {secs:.1} s ({:.2} arms/s), kept {} complete arms",
                out.display(),
                shard.index,
                shard.count,
                g.written,
                g.written as f64 / secs.max(1e-9),
                g.kept
            );
            if !g.invalid.is_empty() {
                for (k, why) in &g.invalid {
                    eprintln!("arm {k}: {why}");
                }
                return Err(crate::Error::Command(format!(
                    "{} arms failed a validity gate and were not written",
                    g.invalid.len()
                )));
            }
        }
        Command::Run {
            scenario,
            out,
            force,
            keep_invalid,
            quiet,
        } => {
            let s = Scenario::from_path(&scenario)?;
            if out.exists() && !force {
                return Err(crate::dataset::DatasetError::Exists(out).into());
            }
            let pb = (!quiet).then(|| {
                let pb = ProgressBar::new(s.samples as u64);
                pb.set_style(
                    ProgressStyle::with_template(
                        "{msg} [{bar:40}] {pos}/{len} samples, {per_sec}, ETA {eta}",
                    )
                    .expect("template")
                    .progress_chars("=> "),
                );
                pb.set_message(s.file.name.clone());
                pb
            });
            let result = crate::simulate(&s, pb.as_ref());
            if let Some(pb) = &pb {
                pb.finish_and_clear();
            }
            if let (Some(invalid), true) = (&result.manifest.invalid, keep_invalid) {
                let m = &result.manifest;
                crate::dataset::write_run_keeping_invalid(&out, &result.recording, m, force)?;
                return Err(crate::Error::Command(format!(
                    "{invalid}; written to `{}` marked invalid",
                    out.display()
                )));
            }
            crate::dataset::write_run(&out, &result.recording, &result.manifest, force)?;
            let c = &result.manifest.checks;
            let servo = c
                .max_servo_tracking_error
                .map_or(String::new(), |e| format!(", servo tracking error {e:.2e}"));
            println!(
                "wrote {} ({} samples); RNEA residual {:.2e} (relative), tracking error {:.2e}{servo}",
                out.display(),
                result.recording.samples(),
                c.rnea_max_rel_residual,
                c.max_tracking_error
            );
        }
    }
    Ok(())
}

/// `sim population verify DIR`.
fn verify(dir: &std::path::Path) -> crate::Result<()> {
    let v = crate::dataset::verify::verify(dir)?;
    println!(
        "{}: {} of {} arms valid; {} missing, {} invalid, {} unexpected files",
        dir.display(),
        v.valid,
        v.arms,
        v.missing.len(),
        v.invalid.len(),
        v.unexpected.len()
    );
    for k in &v.missing {
        println!("missing: arm {k}");
    }
    for (k, why) in &v.invalid {
        println!("invalid: arm {k}: {why}");
    }
    for p in &v.unexpected {
        println!("unexpected: {}", p.display());
    }
    if v.is_whole() {
        Ok(())
    } else {
        Err(crate::Error::Command(format!(
            "{}: the population is not whole",
            dir.display()
        )))
    }
}

/// A `--lock` argument that is not `NAME=POSITION`.
#[derive(Debug, thiserror::Error)]
#[error("expected NAME=POSITION (the position in rad or m), got {given:?}")]
pub struct LockArgument {
    /// What was given.
    pub given: String,
}

/// A `--lock NAME=POSITION` argument.
fn lock(text: &str) -> Result<(String, f64), LockArgument> {
    let bad = || LockArgument { given: text.into() };
    let (name, position) = text.split_once('=').ok_or_else(bad)?;
    let position: f64 = position.parse().map_err(|_| bad())?;
    Ok((name.to_string(), position))
}

/// The chain an export command names (a scenario's model, a URDF or MJCF file with `locks`, or
/// a reference model) and its joints' names where the file gives them.
fn model_of(
    model: &str,
    locks: &crate::urdf::Locks,
) -> crate::Result<(crate::model::Chain, Option<Vec<String>>)> {
    let path = std::path::Path::new(model);
    Ok(if model.ends_with(".toml") {
        (Scenario::from_path(path)?.chain, None)
    } else if model.ends_with(".urdf") || crate::mjcf::is_mjcf(model) {
        let (chain, names) = crate::description::read_named(path, locks)?;
        (chain, Some(names))
    } else {
        let chain = crate::model::reference::by_name(model).ok_or_else(|| {
            crate::Error::Command(format!(
                "unknown model {model:?}: expected one of {:?}, a .urdf, an .xml (MJCF) or a \
                 .toml scenario",
                crate::model::reference::NAMES
            ))
        })?;
        (chain, None)
    })
}

/// Writes a model file `text` of `chain` to `out` and says so.
fn write_model(
    out: &std::path::Path,
    chain: &crate::model::Chain,
    text: &str,
) -> crate::Result<()> {
    std::fs::write(out, text).map_err(|source| crate::Error::Io {
        path: out.to_owned(),
        source,
    })?;
    println!(
        "wrote {} ({}: {} links)",
        out.display(),
        chain.name,
        chain.len()
    );
    Ok(())
}

/// `sim rollout`'s summary: the windows, the mean errors and each joint's.
/// The rollouts of a replay's model on the same stretch (`sim::rollout`, default windows), in
/// one line: how far the model drifts when driven by the logged torque, beside the replay's
/// torque figure.
fn print_replay_rollouts(replay: &crate::replay::Options) -> Result<(), crate::Error> {
    let options = crate::rollout::Options {
        run: replay.run.clone(),
        model: replay.urdf.clone(),
        drives: replay.drives.clone(),
        holdout: replay.holdout,
        horizon: None,
        spacing: None,
        out: None,
    };
    match crate::rollout::rollout(&options) {
        Ok(r) => {
            let f = &r.fidelity;
            let drift = match f.blown_up == f.per_window.len() {
                true => "every one blew up".to_string(),
                false => format!(
                    "drift at the horizon {:.4e} rad or m, {} blew up",
                    f.mean_horizon, f.blown_up
                ),
            };
            println!(
                "  rollouts ({} of {} s every {} s, `sim rollout`): {drift}",
                f.per_window.len(),
                f.windows.horizon,
                f.windows.spacing
            );
            Ok(())
        }
        Err(crate::Error::Rollout(crate::rollout::RolloutError::Option { .. })) => {
            println!("  no rollouts: the stretch is shorter than one");
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn print_rollout(r: &crate::rollout::RolledOut) {
    let f = &r.fidelity;
    println!(
        "{} on {}: {} rollouts of {} s every {} s from {:.3} s; {} blew up",
        r.model,
        r.run,
        f.per_window.len(),
        f.windows.horizon,
        f.windows.spacing,
        r.from,
        f.blown_up
    );
    if f.blown_up == f.per_window.len() {
        println!("  every window blew up: the model does not follow the log at this horizon");
    } else {
        println!(
            "  mean joint error at the horizon {:.4e}, RMS over the window {:.4e} (rad or m)",
            f.mean_horizon, f.mean_rms
        );
        for (j, (h, s)) in f.horizon.iter().zip(&f.rms).enumerate() {
            println!("  joint {}: {h:.4e} at the horizon, {s:.4e} RMS", j + 1);
        }
    }
    if !r.coupled.is_empty() {
        println!("  joints {:?} turned by a coupled drive", r.coupled);
    }
    if !r.servo_driven.is_empty() {
        println!(
            "  joints {:?} driven by position servos from the log's commands",
            r.servo_driven
        );
    }
    if let Some(c) = &r.commanded {
        println!(
            "  taking each command for the position instead (no model): {:.4e} at the horizon",
            c.mean_horizon
        );
    }
}
