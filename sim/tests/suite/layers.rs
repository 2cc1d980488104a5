//! The modules of each crate form layers: no import cycle between top-level modules of `sim`
//! or `validation` (data flow one way: scenario → model → simulation → recording → dataset →
//! estimator → study → report). Read from the sources: every `crate::<module>` path outside
//! comments and unit-test modules is an edge from the module of its file; a cycle fails the test
//! with the files and lines that close it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where each edge was seen: `(from, to) → "file:line"`.
type Edges = BTreeMap<(String, String), String>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules of `src` (files `x.rs` and folders `x/`), binaries' roots left out.
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_string();
            (p.is_dir() || p.extension().is_some_and(|e| e == "rs")).then_some(name)
        })
        .filter(|m| !["lib", "main", "bin"].contains(&m.as_str()))
        .collect()
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests`.
fn code(text: &str) -> Vec<(usize, String)> {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.split("//").next().unwrap_or("").to_string()))
        .collect()
}

/// The modules a line names after `crate::`, alone or in a `crate::{…}` group.
fn targets(line: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (k, _) in line.match_indices("crate::") {
        let rest = &line[k + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            out.extend(inner.split(',').map(ident));
        } else {
            out.push(ident(rest));
        }
    }
    out
}

fn edges(src: &Path) -> (BTreeSet<String>, Edges) {
    let mods = modules(src);
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut edges = Edges::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let from = first.trim_end_matches(".rs").to_string();
        if !mods.contains(&from) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, c) in code(&text) {
            for to in targets(&c) {
                if to != from && mods.contains(&to) {
                    let at = format!("{}:{line}", file.display());
                    edges.entry((from.clone(), to)).or_insert(at);
                }
            }
        }
    }
    (mods, edges)
}

/// A cycle through `start`, if any, as its module path.
fn cycle(start: &str, edges: &Edges) -> Option<Vec<String>> {
    let next = |m: &str| -> Vec<String> {
        (edges.keys())
            .filter(|(a, _)| a == m)
            .map(|(_, b)| b.clone())
            .collect()
    };
    let mut stack = vec![vec![start.to_string()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        for n in next(path.last().unwrap()) {
            if n == start {
                return Some([path.clone(), vec![n]].concat());
            }
            if seen.insert(n.clone()) {
                stack.push([path.clone(), vec![n]].concat());
            }
        }
    }
    None
}

fn check(krate: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let (mods, edges) = edges(&src);
    assert!(mods.len() > 10, "{krate}: modules {mods:?}");
    assert!(!edges.is_empty());
    let cycles: Vec<String> = (mods.iter())
        .filter_map(|m| cycle(m, &edges))
        .map(|path| {
            let steps: Vec<String> = path
                .windows(2)
                .map(|w| {
                    format!(
                        "{} → {} ({})",
                        w[0],
                        w[1],
                        edges[&(w[0].clone(), w[1].clone())]
                    )
                })
                .collect();
            steps.join(", ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "{krate}: import cycles:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_simulator_has_no_import_cycle() {
    check("sim");
}

#[test]
fn the_estimation_crate_has_no_import_cycle() {
    check("validation");
}

#[test]
fn the_checker_sees_a_cycle() {
    let edges: Edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .map(|(a, b)| ((a.to_string(), b.to_string()), String::new()))
        .into_iter()
        .collect();
    assert_eq!(cycle("a", &edges).unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(cycle("d", &edges), None);
    assert_eq!(
        targets("use crate::{dataset::x, model}; let y = crate::scenario::S;"),
        ["dataset", "model", "scenario"]
    );
}
