//! The repository stands on its own (issue 61): a user's clone has nothing beside it, so no
//! tracked file may read or name a path outside the repository. Two checks over every tracked
//! file (`git ls-files`; a walk of the tree, less `target/`, `generated/` and hidden folders,
//! where git is not there):
//! - no text names the development data that sits beside the workspace where the project is
//!   developed (the folder [`BESIDE`] one level up, its `data/`, `spec/`, `bench/` and `papers/`),
//!   in any form a path takes in a command, a TOML value, a Rust string or a Python path
//!   expression ([`outside`]; the texts are put together at run time, so that this file, which
//!   is checked too, does not hold them);
//! - every relative path in a TOML file (a string value starting with `./` or `../`, resolved
//!   from the file's folder as the scenario and study readers resolve it) stays inside the
//!   repository.

use std::path::{Component, Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The folder of development data beside the workspace where the project is developed.
const BESIDE: &str = "shared";

/// Texts that name the development data beside the workspace.
fn outside() -> Vec<String> {
    let mut texts = vec![format!("../{BESIDE}")];
    texts.extend(["data", "spec", "bench", "papers"].map(|d| format!("{BESIDE}/{d}")));
    texts.push(format!("\"{BESIDE}\" / \""));
    texts.push(format!("join(\"{BESIDE}\")"));
    texts
}

/// Every tracked file, relative to the root.
fn tracked(root: &Path) -> Vec<PathBuf> {
    let git = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    match git {
        Ok(out) if out.status.success() => (out.stdout.split(|b| *b == 0))
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .filter(|p| root.join(p).is_file())
            .collect(),
        _ => {
            let mut out = Vec::new();
            walk(root, root, &mut out);
            out
        }
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = path.strip_prefix(root).unwrap().to_path_buf();
        if name.starts_with('.') && name != ".ci" || rel == Path::new("target") {
            continue;
        }
        if path.is_dir() {
            if rel != Path::new("generated") {
                walk(root, &path, out);
            }
        } else {
            out.push(rel);
        }
    }
}

/// `path` with `.` and `..` taken out lexically; `None` where it climbs above its start.
fn normal(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Every relative path among the string values of a TOML value, with its key path.
fn relative_paths(value: &toml::Value, key: &str, out: &mut Vec<(String, String)>) {
    match value {
        toml::Value::String(s) if s.starts_with("../") || s.starts_with("./") => {
            out.push((key.to_string(), s.clone()));
        }
        toml::Value::Array(items) => {
            for (k, v) in items.iter().enumerate() {
                relative_paths(v, &format!("{key}[{k}]"), out);
            }
        }
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                relative_paths(v, &key, out);
            }
        }
        _ => {}
    }
}

#[test]
fn no_tracked_file_reaches_outside_the_repository() {
    let root = root();
    let files = tracked(&root);
    let outside = outside();
    assert!(
        files.iter().any(|f| f == Path::new("Cargo.toml")),
        "no tracked files found under {}",
        root.display()
    );
    let mut failures = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue; // not text
        };
        for (k, line) in text.lines().enumerate() {
            if let Some(what) = outside.iter().find(|p| line.contains(p.as_str())) {
                failures.push(format!(
                    "{}:{}: names `{what}`: {line}",
                    file.display(),
                    k + 1
                ));
            }
        }
        if file.extension().is_some_and(|e| e == "toml") {
            let value: toml::Value = match toml::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("{}: not TOML: {e}", file.display()));
                    continue;
                }
            };
            let mut paths = Vec::new();
            relative_paths(&value, "", &mut paths);
            let folder = file.parent().unwrap_or(Path::new(""));
            for (key, path) in paths {
                if normal(&folder.join(&path)).is_none() {
                    failures.push(format!(
                        "{}: `{key}` = \"{path}\" resolves outside the repository",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The check above finds what it looks for: a study file naming the recording beside the
/// workspace, and a relative path that climbs out.
#[test]
fn the_check_finds_paths_outside() {
    let mut paths = Vec::new();
    let value: toml::Value =
        toml::from_str("recording = \"../../elsewhere/tx40\"\n[a]\nb = [\"./x\", \"../y\"]")
            .unwrap();
    relative_paths(&value, "", &mut paths);
    assert_eq!(paths.len(), 3);
    let folder = Path::new("studies");
    let climbing: Vec<&str> = (paths.iter())
        .filter(|(_, p)| normal(&folder.join(p)).is_none())
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(climbing, ["recording"]);
    assert!(
        (outside().iter())
            .any(|p| format!("recording = \"../../{BESIDE}/data/tx40\"").contains(p.as_str()))
    );
}
