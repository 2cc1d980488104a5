//! The modules of each crate form layers, at every level: no import cycle between the top-level
//! modules of `sim` or `validation` (data flow one way: scenario → model → simulation → recording
//! → dataset → estimator → study → report), nor between the files (child modules) of any module
//! folder. Read from the sources: every `crate::`, `super::` or `self::` path outside comments
//! and unit-test modules, `use` trees expanded, resolved to the module it names (through the
//! `pub use` re-exports of a module's root file); a path from a file inside child `a` of module
//! `m` to an item inside its sibling `b` is an edge `a → b` of `m`. A cycle fails the test with
//! the files and lines that close it. A module's root file (`mod.rs`, `lib.rs`) re-exports its
//! children and is not a sibling of them, so its own paths make no edge at its level.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root, e.g. `["study", "sweep"]`.
type ModPath = Vec<String>;

/// Where each edge was seen, per parent module: `parent → (from, to) → "file:line"`.
type Edges = BTreeMap<ModPath, BTreeMap<(String, String), String>>;

/// The crate's module tree: every module path that is a file or a folder.
struct Tree {
    modules: BTreeSet<ModPath>,
    /// Re-exports of module roots: `(module, name) → the path it names`.
    reexports: BTreeMap<(ModPath, String), ModPath>,
}

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

/// The module a source file holds: `study/sweep.rs` and `study/sweep/mod.rs` → `[study, sweep]`;
/// `None` for binaries (`main.rs`, `bin/`).
fn module_of(src: &Path, file: &Path) -> Option<ModPath> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = (rel.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin" || p == "main.rs") {
        return None;
    }
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests`, by line.
fn code(text: &str) -> Vec<(usize, String)> {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .enumerate()
        .map(|(k, l)| (k + 1, l.split("//").next().unwrap_or("").to_string()))
        .collect()
}

/// Splits `s` at `sep` where no brace is open.
fn split_top(s: &str, sep: &str) -> Vec<String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    let bytes = s.as_bytes();
    let mut k = 0;
    while k < s.len() {
        match bytes[k] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ if depth == 0 && s[k..].starts_with(sep) => {
                out.push(s[start..k].trim().to_string());
                k += sep.len();
                start = k;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out.push(s[start..].trim().to_string());
    out
}

/// A `use` tree expanded into its paths: `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`
/// (an `as` rename and a `*` glob end the path before them).
fn expand(tree: &str) -> Vec<Vec<String>> {
    let segments = split_top(tree.trim(), "::");
    let mut prefix = Vec::new();
    for (k, seg) in segments.iter().enumerate() {
        if let Some(group) = seg.strip_prefix('{') {
            let inner = group.strip_suffix('}').unwrap_or(group);
            let rest = segments[k + 1..].join("::");
            let mut out = Vec::new();
            for branch in split_top(inner, ",").iter().filter(|b| !b.is_empty()) {
                let branch = if rest.is_empty() {
                    branch.clone()
                } else {
                    format!("{branch}::{rest}")
                };
                for tail in expand(&branch) {
                    out.push([prefix.clone(), tail].concat());
                }
            }
            return out;
        }
        let name = seg.split_whitespace().next().unwrap_or("");
        if name == "*" || name.is_empty() {
            break;
        }
        prefix.push(name.to_string());
        if seg.contains(" as ") {
            break;
        }
    }
    vec![prefix]
}

/// Every path of a file's code that starts at `crate`, `super` or `self`, with its line:
/// whole `use` statements (over several lines) expanded, other paths read to their last `::`.
fn paths(code: &[(usize, String)]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < code.len() {
        let (line, text) = &code[k];
        let trimmed = text.trim_start();
        let after_vis = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        if let Some(rest) = after_vis.strip_prefix("use ") {
            let mut stmt = rest.to_string();
            while !stmt.contains(';') && k + 1 < code.len() {
                k += 1;
                stmt.push_str(&code[k].1);
            }
            let stmt = stmt.split(';').next().unwrap_or("");
            out.extend(expand(stmt).into_iter().map(|p| (*line, p)));
        } else {
            out.extend(inline_paths(text).into_iter().map(|p| (*line, p)));
        }
        k += 1;
    }
    out.retain(|(_, p)| {
        p.first()
            .is_some_and(|h| ["crate", "super", "self"].contains(&h.as_str()))
    });
    out
}

/// The `crate::a::b`, `super::a` and `self::a` paths written inside a line of code.
fn inline_paths(line: &str) -> Vec<Vec<String>> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for head in ["crate::", "super::", "self::"] {
        for (k, _) in line.match_indices(head) {
            if line[..k]
                .chars()
                .next_back()
                .is_some_and(|c| word(c) || c == ':')
            {
                continue;
            }
            let mut path = vec![head.trim_end_matches(':').to_string()];
            let mut rest = &line[k + head.len()..];
            loop {
                let name: String = rest.chars().take_while(|c| word(*c)).collect();
                if name.is_empty() {
                    break;
                }
                path.push(name.clone());
                match rest[name.len()..].strip_prefix("::") {
                    Some(r) => rest = r,
                    None => break,
                }
            }
            out.push(path);
        }
    }
    out
}

impl Tree {
    fn read(src: &Path, files: &[PathBuf]) -> Self {
        let mut modules = BTreeSet::new();
        let mut roots = Vec::new();
        for file in files {
            let Some(m) = module_of(src, file) else {
                continue;
            };
            for k in 0..=m.len() {
                modules.insert(m[..k].to_vec());
            }
            let name = file.file_name().unwrap();
            if name == "mod.rs" || name == "lib.rs" {
                roots.push((m, file.clone()));
            }
        }
        // The deepest roots first, so that a re-export of a re-export resolves.
        roots.sort_by_key(|(m, _)| std::cmp::Reverse(m.len()));
        let mut tree = Tree {
            modules,
            reexports: BTreeMap::new(),
        };
        for (m, file) in roots {
            let text = std::fs::read_to_string(&file).unwrap();
            for (_, line) in code(&text) {
                let t = line.trim_start();
                if let Some(rest) = t
                    .strip_prefix("pub use ")
                    .or(t.strip_prefix("pub(crate) use "))
                {
                    for path in expand(rest.trim_end_matches(';')) {
                        let target = tree.resolve(&m, &path);
                        if let (Some(name), Some(target)) = (path.last(), target) {
                            tree.reexports.insert((m.clone(), name.clone()), target);
                        }
                    }
                }
            }
        }
        tree
    }

    /// The absolute path a path written in module `at` names, through re-exports; `None` when
    /// it starts elsewhere (another crate, `std`).
    fn resolve(&self, at: &ModPath, path: &[String]) -> Option<ModPath> {
        let mut out: ModPath = match path.first()?.as_str() {
            "crate" => Vec::new(),
            "self" => at.clone(),
            "super" => at[..at.len().saturating_sub(1)].to_vec(),
            _ => return None,
        };
        for seg in &path[1..] {
            if seg == "super" {
                out.pop();
                continue;
            }
            if !self.modules.contains(&out) {
                break;
            }
            match self.reexports.get(&(out.clone(), seg.clone())) {
                Some(target) => out = target.clone(),
                None => out.push(seg.clone()),
            }
        }
        Some(out)
    }
}

fn edges(src: &Path) -> (Tree, Edges) {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let tree = Tree::read(src, &files);
    let mut edges = Edges::new();
    for file in &files {
        let Some(from) = module_of(src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for (line, path) in paths(&code(&text)) {
            let Some(to) = tree.resolve(&from, &path) else {
                continue;
            };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let parent = from[..common].to_vec();
                let child = |m: &ModPath| m[common].clone();
                if !tree.modules.contains(&to[..=common]) {
                    continue;
                }
                let at = format!("{}:{line}", file.display());
                (edges.entry(parent).or_default())
                    .entry((child(&from), child(&to)))
                    .or_insert(at);
            }
        }
    }
    (tree, edges)
}

/// A cycle through `start` among the edges of one module, if any, as its path of children.
fn cycle(start: &str, edges: &BTreeMap<(String, String), String>) -> Option<Vec<String>> {
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

/// Every cycle of every module of the edges, one line each, the same cycle once.
fn cycles(edges: &Edges) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut out = Vec::new();
    for (parent, level) in edges {
        let children: BTreeSet<&String> = level.keys().map(|(a, _)| a).collect();
        for child in children {
            let Some(path) = cycle(child, level) else {
                continue;
            };
            let members: BTreeSet<String> = path.iter().cloned().collect();
            if !found.insert((parent.clone(), members)) {
                continue;
            }
            let steps: Vec<String> = (path.windows(2))
                .map(|w| {
                    format!(
                        "{} → {} ({})",
                        w[0],
                        w[1],
                        level[&(w[0].clone(), w[1].clone())]
                    )
                })
                .collect();
            out.push(format!("in `{}`: {}", parent.join("::"), steps.join(", ")));
        }
    }
    out
}

fn check(krate: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let (tree, edges) = edges(&src);
    assert!(
        tree.modules.len() > 20,
        "{krate}: modules {:?}",
        tree.modules
    );
    assert!(edges.get(&Vec::new()).is_some_and(|e| e.len() > 10));
    let cycles = cycles(&edges);
    assert!(
        cycles.is_empty(),
        "{krate}: {} import cycles:\n{}",
        cycles.len(),
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
fn the_checker_reads_paths_and_sees_a_cycle() {
    let edges: BTreeMap<(String, String), String> =
        [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
            .map(|(a, b)| ((a.to_string(), b.to_string()), String::new()))
            .into_iter()
            .collect();
    assert_eq!(cycle("a", &edges).unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(cycle("d", &edges), None);
    let lines: Vec<(usize, String)> = [
        "use crate::{dataset::x, model::{A, b::C as D}};",
        "pub(crate) use super::{",
        "    sweep::Sweep,",
        "};",
        "let y = crate::scenario::S::new(); let z = self::a::f(super::super::b);",
    ]
    .iter()
    .enumerate()
    .map(|(k, l)| (k + 1, l.to_string()))
    .collect();
    let found: Vec<String> = paths(&lines).iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::dataset::x",
            "crate::model::A",
            "crate::model::b::C",
            "super::sweep::Sweep",
            "crate::scenario::S::new",
            "super::super::b",
            "self::a::f",
        ]
    );
}
