//! The user guide (`book/`) against the code: the scenario reference's example is a scenario
//! the parser accepts, every key the parser reads is in its tables and every key in its tables
//! is one the parser reads; every column a run writes is in the dataset contract; the README
//! stays a short tour.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sim::scenario::Scenario;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn chapter() -> String {
    std::fs::read_to_string(root().join("book/src/scenario-reference.md")).unwrap()
}

/// The scenario reference's example scenario (its first TOML block).
fn example(chapter: &str) -> &str {
    chapter
        .split("```toml\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a toml example")
}

/// The keys of the tables under the heading that starts with `heading`.
fn documented(text: &str, heading: &str) -> BTreeSet<String> {
    let start = text.find(&format!("\n## {heading}")).expect(heading);
    let section = &text[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |k| k + 3);
    section[..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next().map(String::from))
        .collect()
}

/// The keys of a TOML table (or of every table of an array).
fn keys(v: Option<&toml::Value>) -> BTreeSet<String> {
    match v {
        Some(toml::Value::Table(t)) => t.keys().cloned().collect(),
        Some(toml::Value::Array(a)) => a.iter().flat_map(|e| keys(Some(e))).collect(),
        _ => BTreeSet::new(),
    }
}

#[test]
fn the_scenario_reference_lists_exactly_the_keys_the_parser_reads() {
    let text = chapter();
    let example = example(&text);
    let s = Scenario::from_toml_in(example, "reference example", &root().join("scenarios"))
        .unwrap_or_else(|e| panic!("{e}"));
    // Written back with the flags that are left out when false set, so that every key shows.
    let mut file = s.file.clone();
    file.time.steady_state = true;
    let written = toml::Value::try_from(&file).unwrap();
    let mut top = keys(Some(&written));
    // Populations have their own chapter (and the example has none).
    top.insert("population".into());
    for (heading, parsed) in [
        ("Top level", top),
        ("`[time]`", keys(written.get("time"))),
        ("`[solver]`", keys(written.get("solver"))),
        ("`[[joint]]`", keys(written.get("joint"))),
    ] {
        assert_eq!(documented(&text, heading), parsed, "section {heading}");
    }
}

#[test]
fn the_readme_is_a_short_tour() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "README.md has {lines} lines; the guide is book/"
    );
    let summary = std::fs::read_to_string(root().join("book/src/SUMMARY.md")).unwrap();
    for chapter in summary.lines().filter_map(|l| l.split("](").nth(1)) {
        let file = chapter.trim_end_matches(')');
        assert!(root().join("book/src").join(file).is_file(), "{file}");
    }
}

/// Every picture the README shows is in the repository: a path that exists and that git does not
/// ignore (a clean clone has it; the README's screenshot was once a git-ignored output).
#[test]
fn the_readmes_pictures_are_committed() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let pictures: Vec<&str> = readme
        .split("![")
        .skip(1)
        .filter_map(|s| s.split("](").nth(1)?.split(')').next())
        .collect();
    assert!(!pictures.is_empty(), "the README shows a picture");
    for picture in pictures {
        let path = root().join(picture);
        assert!(
            path.is_file(),
            "README.md shows {picture}, which is not there"
        );
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() < 300_000,
            "{picture}: a small PNG ({} bytes)",
            bytes.len()
        );
        // Where the checkout is a git work tree, the picture must not be ignored.
        if let Ok(out) = std::process::Command::new("git")
            .arg("-C")
            .arg(root())
            .args(["check-ignore", "-q", picture])
            .output()
        {
            assert_ne!(out.status.code(), Some(0), "{picture} is git-ignored");
        }
    }
}

/// The scenario reference's example (every kind of sensor, noise, LuGre friction), run and
/// written: each column of its three Parquet files is in the dataset chapter (a measured copy `<c>_meas`
/// through its column `c`).
#[test]
fn every_column_a_run_writes_is_in_the_dataset_contract() {
    let example = example(&chapter()).replace("end = 2.0", "end = 0.1");
    let s = Scenario::from_toml_in(&example, "dataset example", &root().join("scenarios"))
        .unwrap_or_else(|e| panic!("{e}"));
    let run = sim::simulate(&s, None);
    let dir = std::env::temp_dir().join(format!("sim-dataset-contract-{}", std::process::id()));
    sim::dataset::write_run_keeping_invalid(&dir, &run.recording, &run.manifest, true).unwrap();
    let contract = std::fs::read_to_string(root().join("book/src/dataset.md")).unwrap();
    let listed = |c: &str| contract.contains(&format!("`{c}`"));
    let mut missing = Vec::new();
    for file in ["bodies.parquet", "joints.parquet", "truth.parquet"] {
        let table = sim::dataset::reader::ParquetColumns::read(&dir.join(file)).unwrap();
        for c in table.names() {
            let base = c.strip_suffix("_meas");
            if !(listed(c) || base.is_some_and(listed)) {
                missing.push(format!("{file}: {c}"));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        missing.is_empty(),
        "not in book/src/dataset.md: {missing:?}"
    );
    assert!(
        run.recording.friction_state,
        "the example has a LuGre joint"
    );
}
