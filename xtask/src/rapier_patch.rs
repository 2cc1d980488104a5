//! The upstream contribution to Rapier's multibody step (issue 30, item 4) and its measurement:
//! `cargo xtask bench-rapier-patch [--steps N] [--rounds K] [--tests] [--population ARMS]`, and the
//! patched figure of `cargo xtask bench --peer`.
//!
//! The patch, `xtask/rapier-patch/multibody-composite.patch` (its pull-request text beside it in
//! `PULL_REQUEST.md`), holds only changed lines; no Rapier source is committed. This module copies
//! the published rapier3d-f64 that Cargo.lock names from Cargo's registry into a temporary
//! directory, applies the patch with `git apply`, copies the workspace's files (those git does not
//! ignore) beside it, and builds the copy with `--config patch.crates-io.rapier3d-f64.path=…` into
//! `target/rapier-patch` (kept between runs, so only the first build is long). The default build
//! never sees the patch.
//!
//! Measured, published and patched alternately, each in its own process (`xtask bare-steps`):
//! arm6's bare integrator steps/s; then both builds write the same runs (`xtask write-run`) and
//! every Float64 column of their joints and bodies tables is compared (largest difference,
//! absolute and relative to the column's largest value): the patch reorders floating-point sums,
//! so the runs agree to rounding, not to the byte (a scenario that amplifies rounding shows more:
//! see [`crate::rapier_trajectories`]). `--tests` also runs the sim suite and
//! validation's Pinocchio and paper_rail tests on the patched build.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The patch, relative to the workspace root (its pull-request text is `PULL_REQUEST.md` beside it).
const PATCH: &str = "xtask/rapier-patch/multibody-composite.patch";

/// The crate the patch applies to (the version is the one Cargo.lock names).
const CRATE: &str = "rapier3d-f64";

/// The runs both builds write and compare: the Panda's excitation (7 joints integrated by Rapier
/// under computed-torque servos), the URDF test arm with a torque-driven joint, a PD-servo slide
/// and a prescribed joint, and paper_rail (every joint prescribed: the step's mass matrices do
/// not enter it, so it must come out identical).
const COMPARED_RUNS: [&str; 3] = [
    "scenarios/panda_excitation.toml",
    "scenarios/urdf_tilted3_torque.toml",
    "scenarios/paper_rail.toml",
];

/// Whole runs timed with both builds (simulated and recorded, not written), and how many:
/// paper_rail (every joint prescribed, the workload of the project's populations) and
/// urdf_tilted3_torque (joints integrated by Rapier).
const TIMED_RUNS: [(&str, usize); 2] = [
    ("scenarios/paper_rail.toml", 200),
    ("scenarios/urdf_tilted3_torque.toml", 20),
];

/// A copy of the workspace built against the patched crate; the temporary copy is removed on
/// drop, the build directory (`target/rapier-patch`) is kept.
pub struct PatchedBuild {
    /// Temporary directory holding the patched crate and the workspace copy.
    dir: PathBuf,
    /// The patched crate's source.
    krate: PathBuf,
    /// The workspace copy.
    workspace: PathBuf,
    /// Cargo's target directory for the patched build.
    target: PathBuf,
}

impl Drop for PatchedBuild {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl PatchedBuild {
    /// Copies and patches the crate, copies the workspace, and builds the xtask binary.
    pub fn prepare(root: &Path) -> Result<Self, Box<dyn Error>> {
        let dir = std::env::temp_dir().join(format!("armid-rapier-patch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let source = registry_source(root)?;
        let name = source.file_name().ok_or("registry source has no name")?;
        let build = PatchedBuild {
            krate: dir.join(name),
            workspace: dir.join("workspace"),
            target: root.join("target/rapier-patch"),
            dir,
        };
        copy_tree(&source, &build.krate)?;
        let patch = root.join(PATCH);
        checked(
            Command::new("git")
                .arg("apply")
                .arg(&patch)
                .current_dir(&build.krate),
            &format!("git apply {} in {}", patch.display(), build.krate.display()),
        )?;
        copy_workspace(root, &build.workspace)?;
        println!(
            "rapier patch: {} applied to a copy of {}; building the workspace against it in {} \
             (the first build takes ~10 minutes)…",
            PATCH,
            source.display(),
            build.target.display()
        );
        checked(
            &mut build.cargo(&["build", "--release", "--quiet", "-p", "xtask"]),
            "cargo build of the patched workspace",
        )?;
        build.check_patched()?;
        Ok(build)
    }

    /// An error unless the workspace copy's Cargo.lock resolved rapier3d-f64 to the patched
    /// copy (a path dependency has no `source`).
    fn check_patched(&self) -> Result<(), Box<dyn Error>> {
        let lock = std::fs::read_to_string(self.workspace.join("Cargo.lock"))?;
        let entry = lock
            .split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{CRATE}\"")))
            .ok_or_else(|| format!("the patched workspace's Cargo.lock has no {CRATE}"))?;
        if entry.contains("source =") {
            return Err(format!("the patched workspace resolved {CRATE} from the registry").into());
        }
        Ok(())
    }

    /// `cargo ARGS` in the workspace copy, against the patched crate.
    pub fn cargo(&self, args: &[&str]) -> Command {
        // `--config` goes before the subcommand: after it, a `--` in `args` would hand it to
        // the test binaries instead of Cargo.
        let mut cargo = cargo_command();
        cargo
            .arg("--config")
            .arg(format!(
                "patch.crates-io.{CRATE}.path={:?}",
                self.krate.to_string_lossy()
            ))
            .args(args)
            .env("CARGO_TARGET_DIR", &self.target)
            .current_dir(&self.workspace);
        cargo
    }

    /// The patched build's xtask binary.
    pub fn xtask(&self) -> PathBuf {
        self.target.join("release/xtask")
    }
}

/// The Cargo running this xtask (`$CARGO`), or `cargo` from the path.
fn cargo_command() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The registry source directory of the rapier3d-f64 that Cargo.lock names (`cargo metadata`).
fn registry_source(root: &Path) -> Result<PathBuf, Box<dyn Error>> {
    let output = stdout_of(
        cargo_command()
            .args(["metadata", "--format-version", "1", "--locked"])
            .current_dir(root),
        "cargo metadata",
    )?;
    let metadata: serde_json::Value = serde_json::from_str(&output)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == CRATE)
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or_else(|| format!("cargo metadata lists no {CRATE}"))?;
    Ok(Path::new(manifest)
        .parent()
        .ok_or("manifest path has no parent")?
        .to_path_buf())
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Copies the workspace's files as they are in the working tree (tracked, and untracked but not
/// ignored) to `to`.
fn copy_workspace(root: &Path, to: &Path) -> Result<(), Box<dyn Error>> {
    let files = stdout_of(
        Command::new("git")
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .current_dir(root),
        "git ls-files (the workspace must be a git checkout)",
    )?;
    for file in files.split('\0').filter(|f| !f.is_empty()) {
        if file.contains(char::REPLACEMENT_CHARACTER) {
            return Err(format!("git ls-files: a file name is not UTF-8: {file}").into());
        }
        let file = Path::new(file);
        let (from, target) = (root.join(file), to.join(file));
        if !from.exists() {
            continue; // deleted in the working tree
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(&from, &target)?;
    }
    Ok(())
}

/// Runs `command`; an error naming `what` with its standard error if it fails.
fn checked(command: &mut Command, what: &str) -> Result<(), Box<dyn Error>> {
    stdout_of(command, what).map(drop)
}

/// Runs `command`; its standard output, or an error naming `what` with its standard error.
pub(crate) fn stdout_of(command: &mut Command, what: &str) -> Result<String, Box<dyn Error>> {
    let output = command.output()?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{what} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into())
    }
}

/// Bare steps/s of the published (`this` binary) and the patched build, `rounds` alternating
/// runs of `steps` steps each, medians.
pub fn bare_steps(
    build: &PatchedBuild,
    steps: usize,
    rounds: usize,
) -> Result<(f64, f64), Box<dyn Error>> {
    let steps = steps.to_string();
    alternating(
        build,
        rounds,
        &["bare-steps", "--steps", &steps],
        "bare_steps_per_s",
    )
}

/// `scenario`'s runs/s (simulated and recorded, not written) of the published and the patched
/// build, `rounds` alternating measurements of `runs` runs, medians.
fn runs_per_s(
    build: &PatchedBuild,
    scenario: &Path,
    runs: usize,
    rounds: usize,
) -> Result<(f64, f64), Box<dyn Error>> {
    let (scenario, runs) = (scenario.to_string_lossy(), runs.to_string());
    let args = ["simulate-runs", &scenario, "--runs", &runs];
    alternating(build, rounds, &args, "runs_per_s")
}

/// `xtask ARGS` of the published (`this` binary) and the patched build, `rounds` times each,
/// alternating; the medians of the `RESULT key` they print.
fn alternating(
    build: &PatchedBuild,
    rounds: usize,
    args: &[&str],
    key: &str,
) -> Result<(f64, f64), Box<dyn Error>> {
    let published = std::env::current_exe()?;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        a.push(measure(&published, args, key)?);
        b.push(measure(&build.xtask(), args, key)?);
    }
    Ok((median(&mut a), median(&mut b)))
}

fn measure(xtask: &Path, args: &[&str], key: &str) -> Result<f64, Box<dyn Error>> {
    let what = format!("{} {}", xtask.display(), args.join(" "));
    let output = stdout_of(Command::new(xtask).args(args), &what)?;
    Ok(crate::bench::result(&output, key)?)
}

/// `xtask simulate-runs`: runs/s of `sim::simulate` on a scenario (checks included, no writing).
pub fn simulate_runs(scenario: &Path, runs: usize) -> Result<f64, Box<dyn Error>> {
    let scenario = sim::scenario::Scenario::from_path(scenario)?;
    let t0 = std::time::Instant::now();
    for _ in 0..runs {
        std::hint::black_box(sim::simulate(&scenario, None));
    }
    Ok(runs as f64 / t0.elapsed().as_secs_f64())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `cargo xtask bench-rapier-patch`: builds, measures, compares trajectories and (with `tests`)
/// runs the tests on the patched build.
pub fn bench(
    root: &Path,
    steps: usize,
    rounds: usize,
    tests: bool,
    population: Option<usize>,
) -> Result<(), Box<dyn Error>> {
    let build = PatchedBuild::prepare(root)?;
    let (published, patched) = bare_steps(&build, steps, rounds)?;
    println!(
        "arm6 bare integrator steps/s (median of {rounds}, {steps} steps each): published {CRATE} \
         {published:.0}, patched {patched:.0} ({:.2}×)",
        patched / published
    );
    for (scenario, runs) in TIMED_RUNS {
        let (published, patched) = runs_per_s(&build, &root.join(scenario), runs, rounds)?;
        println!(
            "{scenario}: simulated runs/s (medians of {rounds} × {runs}, no writing): published \
             {published:.1}, patched {patched:.1} ({:.2}×)",
            patched / published
        );
    }
    crate::rapier_trajectories::compare(root, &build, &COMPARED_RUNS)?;
    if let Some(arms) = population {
        populations(root, &build, arms)?;
    }
    if tests {
        run_tests(&build)?;
    }
    Ok(())
}

/// A population_rail of `arms` arms generated (and verified, and read) by each build's
/// `xtask bench-population`, one after the other; the first line each prints.
fn populations(root: &Path, build: &PatchedBuild, arms: usize) -> Result<(), Box<dyn Error>> {
    let out = root.join("target/rapier-patch-population");
    let builds = [
        ("published", std::env::current_exe()?),
        ("patched", build.xtask()),
    ];
    for (name, xtask) in builds {
        let text = stdout_of(
            Command::new(&xtask)
                .args(["bench-population", "--arms", &arms.to_string(), "--out"])
                .arg(&out),
            &format!("{name} bench-population"),
        )?;
        println!("{name}: {}", text.lines().next().unwrap_or_default());
    }
    Ok(())
}

/// The sim suite and validation's Pinocchio and paper_rail tests on the patched build.
fn run_tests(build: &PatchedBuild) -> Result<(), Box<dyn Error>> {
    for (package, filters) in [
        ("sim", vec![]),
        ("validation", vec!["pinocchio", "paper_rail"]),
    ] {
        println!("rapier patch: cargo test --release -p {package} --test suite {filters:?}…");
        let mut args = vec!["test", "--release", "-p", package, "--test", "suite", "--"];
        args.extend(filters);
        let status = build.cargo(&args).status()?;
        build.check_patched()?;
        if !status.success() {
            return Err(format!("{package}'s tests failed on the patched build").into());
        }
    }
    Ok(())
}
