//! The user guide (`book/`) against the code: the scenario reference's example is a scenario
//! the parser accepts, every key the parser reads is in its tables and every key in its tables
//! is one the parser reads; the README stays a short tour.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sim::scenario::Scenario;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn chapter() -> String {
    std::fs::read_to_string(root().join("book/src/scenario-reference.md")).unwrap()
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
    let example = text
        .split("```toml\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a toml example");
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
