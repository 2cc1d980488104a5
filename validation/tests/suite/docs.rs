//! Docs that run (issue 49): every shell command of the README and of the user guide
//! (`book/src/*.md`, its `sh` blocks) is either run here, in the order its page shows it, or
//! named in [`COVERED_ELSEWHERE`] with where it is run. A command that is neither fails the
//! test, so a page cannot show a command no test runs, and a documented command that stops
//! working fails CI.
//!
//! The commands run on small inputs: each page gets a fresh working directory holding
//! `models/` (the repository's), copies of `scenarios/` and `studies/` with every population
//! cut to [`ARMS`] arms and every study to [`SEEDS`] seeds, and the placeholders the pages
//! write for the reader's own files ([`Fixtures::placeholder`]) stand for runs and files made
//! once here.
//! `cp …`, `sed …` and `paste …` run as written (the last two by `sh -c`), on the repository's
//! files (the TX40 recording is `models/tx40/recording/`); `armid …`, `cargo run --release -p validation -- …` and
//! `cargo run --release -p sim -- …` run the binaries this test was built with (`armid`, its alias `validation`; `sim`'s
//! subcommands are `armid`'s, [`sim_alias_is_armid`]); Cargo's own choice of binary for
//! `cargo run -p validation` is checked in [`every_package_with_two_binaries_names_the_one_cargo_runs`].

use std::path::{Path, PathBuf};
use std::process::Command;

use super::import::wide_csv;

/// Arms per population in the pages' working directories.
const ARMS: usize = 3;

/// Seeds per study in the pages' working directories.
const SEEDS: usize = 2;

/// Documented commands this test does not run, by prefix, and where each is run instead.
const COVERED_ELSEWHERE: [(&str, &str); 10] = [
    (
        "cargo xtask reproduce",
        "long (5 min by default, an hour with --full): run by hand and by the reproduction; \
         each part's computation is tested in this suite and in xtask's",
    ),
    ("cargo test", "CI runs it (.ci/run)"),
    (
        "armid identify tx40.csv --model models/tx40/tx40_mdh_modified.urdf --config \
         models/tx40/recording.toml --rate 5000 --only idim_ols,idim_wls,idim_consistent",
        "python/tests/test_identify_mujoco.py runs this command on the same log (built from the \
         same two files) and loads its model.xml in MuJoCo; 10 s here",
    ),
    (
        "armid rollout tx40_model/run",
        "python/tests/test_identify_mujoco.py runs this command on the identify output it makes \
         and rolls model.xml out in MuJoCo on the same windows",
    ),
    (
        "python3 -m venv",
        "CI runs it (.ci/run: the Python package and its tests)",
    ),
    (
        ".venv/bin/",
        "CI runs it (.ci/run: the Python package and its tests)",
    ),
    (
        "cargo install --path validation",
        "builds the binaries this test runs (armid, validation)",
    ),
    (
        "armid study studies/teaching.toml",
        "long (its sweeps simulate 45 min of the arm, about a minute): the default `cargo xtask \
         reproduce` runs the same file; tests/suite/teaching.rs the same pipeline",
    ),
    (
        "cargo run --release -p validation -- estimate sweep=",
        "long (the sweep runs simulate 45 min of the arm): tests/suite/teaching.rs runs this \
         experiment (two sweeps, excitation, validation) through the same estimators",
    ),
    (
        "chromium --headless",
        "python/tests/test_report.py loads the same page in headless Chromium and takes its \
         screenshot",
    ),
];

/// Standard tools a page uses to shape a user's files (FIGAROH's CSVs into one log): run by
/// `sh -c` as written, redirections included.
const SHELL_TOOLS: [&str; 2] = ["sed", "paste"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One shell command of a page: continuation lines joined, the comment after it dropped.
#[derive(Debug)]
struct Documented {
    page: String,
    text: String,
}

/// The pages with shell commands: the README, then the guide's chapters.
fn pages() -> Vec<PathBuf> {
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root().join("book/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    std::iter::once(root().join("README.md"))
        .chain(chapters)
        .collect()
}

/// The bodies of `text`'s fenced code blocks of language `language` (```` ```sh ````), in order.
pub(crate) fn fenced<'a>(text: &'a str, language: &str) -> Vec<&'a str> {
    let open = format!("```{language}\n");
    (text.split(open.as_str()).skip(1))
        .map(|block| block.split("```").next().unwrap_or_default())
        .collect()
}

/// Every command of the page's `sh` blocks, in order.
fn commands(page: &Path) -> Vec<Documented> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page
        .strip_prefix(root())
        .unwrap_or(page)
        .display()
        .to_string();
    let mut out = Vec::new();
    for block in fenced(&text, "sh") {
        let joined = block.replace("\\\n", " ");
        for line in joined.lines() {
            let command = line.split(" #").next().unwrap_or_default().trim();
            if !command.is_empty() && !command.starts_with('#') {
                out.push(Documented {
                    page: name.clone(),
                    text: command.split_whitespace().collect::<Vec<_>>().join(" "),
                });
            }
        }
    }
    out
}

/// The files the pages' placeholders stand for, made once.
struct Fixtures {
    dir: PathBuf,
}

impl Fixtures {
    fn make() -> Self {
        let dir = std::env::temp_dir().join(format!("validation-docs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let armid = |args: &[&str]| run(Command::new(env!("CARGO_BIN_EXE_armid")).args(args), &dir);
        let scenario = |name: &str| root().join("scenarios").join(name).display().to_string();
        let at = |name: &str| dir.join(name).display().to_string();
        for (name, file) in [
            ("ur10", "ur10_fourier.toml"),
            ("paper_rail", "paper_rail.toml"),
        ] {
            armid(&["run", &scenario(file), "--out", &at(name)]).unwrap();
        }
        // The UR10 run as a user's logger writes it, and the maker's URDF (also the pages'
        // "CAD model").
        let run = sim::reading::read_run(&dir.join("ur10")).unwrap();
        let csv = wide_csv(&run.measurements, |_, _, tau| tau);
        std::fs::write(dir.join("log.csv"), &csv).unwrap();
        std::fs::write(dir.join("log2.csv"), &csv).unwrap();
        std::fs::copy(
            root().join("models/example-robot-data/ur10_robot.urdf"),
            dir.join("robot.urdf"),
        )
        .unwrap();
        Fixtures { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// What a page's placeholder (a word in capitals, or the reader's own file) stands for.
    fn placeholder(&self, word: &str) -> Option<String> {
        Some(match word {
            "RUN_DIR..." => self.path("paper_rail"),
            "RUN_DIR" => self.path("ur10"),
            "log.csv" | "log2.csv" => self.path(word),
            "robot.urdf" | "CAD.urdf" => self.path("robot.urdf"),
            "FILE" => "studies/mim_noise.toml".into(),
            "DIR" => "generated/dir".into(),
            _ => return None,
        })
    }
}

/// A fresh working directory for one page: `models/` linked, `scenarios/` and `studies/`
/// copied and made small.
fn workdir(fixtures: &Fixtures, page: &str) -> PathBuf {
    let dir = fixtures.dir.join(page.replace('/', "_"));
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(root().join("models"), dir.join("models")).unwrap();
    for (folder, edit) in [
        ("scenarios", ("arms = ", ARMS)),
        ("studies", ("seeds = ", SEEDS)),
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let small: Vec<String> = text
                .lines()
                .map(|l| match l.strip_prefix(edit.0) {
                    Some(_) => format!("{}{}", edit.0, edit.1),
                    None => l.to_string(),
                })
                .collect();
            std::fs::write(
                dir.join(folder).join(path.file_name().unwrap()),
                small.join("\n"),
            )
            .unwrap();
        }
    }
    dir
}

/// Runs `command` in `dir`: its standard output, or why it failed.
fn run(command: &mut Command, dir: &Path) -> Result<String, String> {
    let out = command
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The documented command as a program and its arguments: the binary its prefix names, the
/// optional `[…]` groups left out, a `>` redirection left out, placeholders replaced (also as
/// `key=VALUE`).
fn program(fixtures: &Fixtures, text: &str) -> Option<(PathBuf, Vec<String>)> {
    let (binary, rest) = if let Some(rest) = text.strip_prefix("armid ") {
        (env!("CARGO_BIN_EXE_armid"), rest)
    } else if let Some(rest) = text.strip_prefix("cargo run --release -p validation -- ") {
        (env!("CARGO_BIN_EXE_validation"), rest)
    } else if let Some(rest) = text.strip_prefix("cargo run --release -p sim -- ") {
        (env!("CARGO_BIN_EXE_armid"), rest)
    } else if let Some(rest) = text.strip_prefix("cp ") {
        ("cp", rest)
    } else if SHELL_TOOLS
        .iter()
        .any(|t| text.starts_with(&format!("{t} ")))
    {
        return Some((PathBuf::from("sh"), vec!["-c".into(), text.to_string()]));
    } else {
        return None;
    };
    let mut args = Vec::new();
    let mut optional = 0;
    for word in rest
        .split(" > ")
        .next()
        .unwrap_or_default()
        .split_whitespace()
    {
        if word.starts_with('[') {
            optional += 1;
        }
        let skip = optional > 0;
        if word.ends_with(']') {
            optional -= 1;
        }
        if skip {
            continue;
        }
        let replaced = match word.split_once('=') {
            Some((key, value)) if !key.starts_with('-') => {
                fixtures.placeholder(value).map(|v| format!("{key}={v}"))
            }
            _ => fixtures.placeholder(word),
        };
        args.push(replaced.unwrap_or_else(|| word.to_string()));
    }
    Some((PathBuf::from(binary), args))
}

#[test]
fn every_documented_command_runs_or_is_covered_elsewhere() {
    let fixtures = Fixtures::make();
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in pages() {
        let commands = commands(&page);
        if commands.is_empty() {
            continue;
        }
        let dir = workdir(&fixtures, &commands[0].page);
        for c in &commands {
            if COVERED_ELSEWHERE.iter().any(|(p, _)| c.text.starts_with(p)) {
                continue;
            }
            let Some((binary, args)) = program(&fixtures, &c.text) else {
                failures.push(format!(
                    "{}: `{}` is neither run nor covered",
                    c.page, c.text
                ));
                continue;
            };
            ran += 1;
            let t0 = std::time::Instant::now();
            if let Err(why) = run(Command::new(binary).args(&args), &dir) {
                failures.push(format!("{}: `{}` ({args:?}): {why}", c.page, c.text));
            }
            eprintln!(
                "{:6.2} s  {}: {}",
                t0.elapsed().as_secs_f64(),
                c.page,
                c.text
            );
        }
    }
    std::fs::remove_dir_all(&fixtures.dir).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 30, "{ran} documented commands run");
}

/// `cargo run --release -p sim -- …` runs `sim`'s binary, whose subcommands are `armid`'s: the
/// same help, so the test runs the documented `sim` commands through `armid`.
#[test]
fn sim_alias_is_armid() {
    let help = |args: &[&str]| {
        run(
            Command::new(env!("CARGO_BIN_EXE_armid")).args(args),
            &root(),
        )
        .unwrap()
    };
    let sim_main = std::fs::read_to_string(root().join("sim/src/main.rs")).unwrap();
    assert!(help(&["run", "--help"]).contains("--out"));
    assert!(
        sim_main.contains("sim::cli::"),
        "sim's binary is the simulation half of armid's command line"
    );
}

/// `cargo run -p PACKAGE` needs `default-run` where a package has more than one binary
/// ("could not determine which binary to run"): every such package of the workspace names one
/// of its binaries.
#[test]
fn every_package_with_two_binaries_names_the_one_cargo_runs() {
    for package in ["sim", "validation", "xtask", "python"] {
        let path = root().join(package).join("Cargo.toml");
        let manifest: toml::Value =
            toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let bins: Vec<&str> = (manifest.get("bin").and_then(|b| b.as_array()))
            .map(|a| a.iter().filter_map(|b| b.get("name")?.as_str()).collect())
            .unwrap_or_default();
        if bins.len() > 1 {
            let chosen = manifest["package"]
                .get("default-run")
                .and_then(|d| d.as_str());
            assert!(
                chosen.is_some_and(|c| bins.contains(&c)),
                "{}: {} binaries {bins:?} and no default-run among them",
                path.display(),
                bins.len()
            );
        }
    }
}
