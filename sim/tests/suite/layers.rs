//! The modules of each crate form layers, at every level: no import cycle between the top-level
//! modules of `sim` or `validation`, nor between the files (child modules) of any module folder,
//! and the top-level modules keep the layers each crate declares ([`SIM_LAYERS`],
//! [`VALIDATION_LAYERS`]: data flow one way, scenario → model → simulation → recording →
//! dataset → estimator → study → report).
//!
//! Read from the sources: every `crate::`, `super::` or `self::` path outside comments and
//! unit-test modules, and in a root file every path from one of its children's bare names;
//! `use` trees expanded (a glob `super::*` names the module itself), resolved to the module it
//! names through the `pub use` re-exports of root files. A path from a file inside child `a` of
//! module `m` to an item inside its sibling `b` is an edge `a → b` of `m`. A root file's own
//! code (`mod.rs`, `lib.rs`: 17 % of the code before issue 61) is the child [`ROOT`] of its
//! module: a path from a child to an item the root defines, or to the module itself, is an edge
//! to it, and a path of the root's code to a child an edge from it; its `mod` and `pub use`
//! lines only name its children and make no edge. The crate's error ([`ERROR`]) gathers the
//! module errors for `?`: its paths to them are conversions and make no edge. A cycle fails the
//! test with the files and lines that close it.

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

/// Every path of a file's code that starts at `crate`, `super` or `self`, or at one of
/// `children` (the modules a root file declares, in scope by their bare names), with its line:
/// whole `use` statements (over several lines) expanded, other paths read to their last `::`.
/// A path from a child name is returned from `self`.
fn paths(code: &[(usize, String)], children: &[String]) -> Vec<(usize, Vec<String>)> {
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
            out.extend(inline_paths(text, children).into_iter().map(|p| (*line, p)));
        }
        k += 1;
    }
    for (_, p) in &mut out {
        if p.first().is_some_and(|h| children.contains(h)) {
            p.insert(0, "self".into());
        }
    }
    out.retain(|(_, p)| {
        p.first()
            .is_some_and(|h| ["crate", "super", "self"].contains(&h.as_str()))
    });
    out
}

/// The `crate::a::b`, `super::a` and `self::a` paths, and those from one of `children`,
/// written inside a line of code.
fn inline_paths(line: &str, children: &[String]) -> Vec<Vec<String>> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let heads = ["crate", "super", "self"].map(String::from);
    for head in heads.iter().chain(children) {
        let head = format!("{head}::");
        for (k, _) in line.match_indices(&head) {
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
                    for mut path in expand(rest.trim_end_matches(';')) {
                        // `pub use child::Item;` names a child by its bare name.
                        let mut child = m.clone();
                        child.extend(path.first().cloned());
                        if tree.modules.contains(&child) {
                            path.insert(0, "self".into());
                        }
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

/// The name a module's root file (`mod.rs`, `lib.rs`) takes among the module's children: its
/// own code (types, functions), which children use and which may use them.
const ROOT: &str = "(root)";

/// The module of a crate's one error type.
const ERROR: &str = "error";

/// Whether a line of a root file only re-exports (`pub use`, `mod`): naming a child is the
/// root's job, not a dependency of its code.
fn reexports(line: &str) -> bool {
    let t = line.trim_start();
    [
        "pub use ",
        "pub(crate) use ",
        "mod ",
        "pub mod ",
        "pub(crate) mod ",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// The edge a path from module `from` (its root file where `root`) to `to` draws: the module it
/// is drawn in and the two children it joins, each a child module or [`ROOT`] (the module's
/// own code, where the path ends at an item of the root file, or at the module itself as a
/// glob `super::*` does).
fn edge(
    tree: &Tree,
    from: &ModPath,
    root: bool,
    to: &ModPath,
) -> Option<(ModPath, String, String)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let side = |m: &ModPath| -> String {
        match m.get(common) {
            Some(c) if tree.modules.contains(&m[..=common]) => c.clone(),
            _ => ROOT.to_string(),
        }
    };
    let (a, b) = match (common < from.len(), common < to.len()) {
        (true, _) => (from[common].clone(), side(to)),
        (false, true) if root => (ROOT.to_string(), side(to)),
        _ => return None,
    };
    (a != b).then(|| (from[..common].to_vec(), a, b))
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
        let name = file.file_name().unwrap();
        let root = name == "mod.rs" || name == "lib.rs";
        let text = std::fs::read_to_string(file).unwrap();
        let code = code(&text);
        let lines: BTreeMap<usize, &str> = code.iter().map(|(k, l)| (*k, l.as_str())).collect();
        // A root file names its children by their bare names.
        let children: Vec<String> = match root {
            true => (tree.modules.iter())
                .filter(|m| m.len() == from.len() + 1 && m.starts_with(&from))
                .map(|m| m[from.len()].clone())
                .collect(),
            false => Vec::new(),
        };
        for (line, path) in paths(&code, &children) {
            let Some(to) = tree.resolve(&from, &path) else {
                continue;
            };
            let Some((parent, a, b)) = edge(&tree, &from, root, &to) else {
                continue;
            };
            if a == ROOT && reexports(lines[&line]) {
                continue;
            }
            // The crate's error gathers its modules' errors for `?` (`#[from]` conversions):
            // naming them is its job, not a dependency.
            if from == [ERROR] {
                continue;
            }
            let at = format!("{}:{line}", file.display());
            (edges.entry(parent).or_default())
                .entry((a, b))
                .or_insert(at);
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

/// `sim`'s top-level modules in layers, the earliest first: a module uses modules of its own
/// layer and earlier ones, never a later one's (the crate root's own code, [`ROOT`], is the
/// first layer's). Foundations; the parts of a model; its dynamics, what a run records and the
/// run directory that holds it (below the scenario, which plays recorded runs back); the
/// descriptions a scenario is read from; the simulation and its checks; a whole run,
/// populations, replays and run directories read back with their design; the command line.
const SIM_LAYERS: &[&[&str]] = &[
    &[
        ROOT,
        "error",
        "param",
        "convert",
        "kinematics",
        "wrench",
        "invalid",
        "butterworth",
    ],
    &[
        "elastic",
        "motor",
        "rotor",
        "term",
        "cogging",
        "friction",
        "drive_train",
        "position_servo",
        "noise",
        "sensor",
        "model",
    ],
    &[
        "dynamics",
        "recording",
        "measurement",
        "physical",
        "profile",
        "readout",
        "residuals",
        "drive",
        "payload",
        "dataset",
    ],
    &["urdf", "mjcf", "description", "scenario"],
    &["simulation", "checks", "validity"],
    &[
        "run",
        "batch",
        "replay",
        "reading",
        "rollout",
        "lerobot_export",
    ],
    &["cli"],
];

/// `validation`'s top-level modules in layers, as [`SIM_LAYERS`]: foundations; the dataset
/// (simulated and recorded runs, imports, their checks); estimators; studies; reports (which
/// render a study's serialized result); study kinds (which run and render); the command line.
const VALIDATION_LAYERS: &[&[&str]] = &[
    &[
        ROOT,
        "error",
        "lsq",
        "paper",
        "regressor",
        "excitation",
        "files",
        "fourier",
        "param",
        "signal",
    ],
    &["import", "consistency", "geometry", "encoder"],
    &["estimate"],
    &["study"],
    &["report"],
    &["kind"],
    &["cli"],
];

/// Every top-level module of `tree` is in one layer, and every top-level edge goes to the same
/// layer or an earlier one; the violations, one line each.
fn out_of_order(tree: &Tree, edges: &Edges, layers: &[&[&str]]) -> Vec<String> {
    let layer = |m: &str| layers.iter().position(|l| l.contains(&m));
    let mut out: Vec<String> = (tree.modules.iter())
        .filter(|m| m.len() == 1 && layer(&m[0]).is_none())
        .map(|m| format!("`{}` is in no layer", m[0]))
        .collect();
    for ((a, b), at) in edges.get(&Vec::new()).into_iter().flatten() {
        if let (Some(la), Some(lb)) = (layer(a), layer(b))
            && lb > la
        {
            out.push(format!("{a} (layer {la}) → {b} (layer {lb}) at {at}"));
        }
    }
    out
}

fn check(krate: &str, layers: &[&[&str]]) {
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
    let wrong = out_of_order(&tree, &edges, layers);
    assert!(
        wrong.is_empty(),
        "{krate}: imports against the declared layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_simulator_has_no_import_cycle_and_keeps_its_layers() {
    check("sim", SIM_LAYERS);
}

#[test]
fn the_estimation_crate_has_no_import_cycle_and_keeps_its_layers() {
    check("validation", VALIDATION_LAYERS);
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
    // A root file's code, a glob import and a root's item draw edges to and from the module's
    // own code; a root file names its children by bare names.
    let m = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<ModPath>();
    let tree = Tree {
        modules: [m(&[]), m(&["m"]), m(&["m", "a"]), m(&["n"])]
            .into_iter()
            .collect(),
        reexports: BTreeMap::new(),
    };
    let edge_of = |from: &[&str], root: bool, to: &[&str]| edge(&tree, &m(from), root, &m(to));
    let expected = |parent: &[&str], a: &str, b: &str| Some((m(parent), a.into(), b.into()));
    assert_eq!(
        edge_of(&["m", "a"], false, &["m"]),
        expected(&["m"], "a", ROOT)
    );
    assert_eq!(
        edge_of(&["m", "a"], false, &["m", "Item"]),
        expected(&["m"], "a", ROOT)
    );
    assert_eq!(
        edge_of(&["m"], true, &["m", "a", "f"]),
        expected(&["m"], ROOT, "a")
    );
    assert_eq!(edge_of(&["m"], false, &["m", "a", "f"]), None);
    assert_eq!(
        edge_of(&["m", "a"], false, &["n", "f"]),
        expected(&[], "m", "n")
    );
    let bare = paths(&[(1, "let x = a::f(b);".to_string())], &["a".to_string()]);
    assert_eq!(bare, [(1, m(&["self", "a", "f"]))]);
    // A layer's module that uses a later layer's is reported.
    let mut edges = Edges::new();
    edges
        .entry(m(&[]))
        .or_default()
        .insert(("m".into(), "n".into()), "at".into());
    assert_eq!(out_of_order(&tree, &edges, &[&["m"], &["n"]]).len(), 1);
    assert!(out_of_order(&tree, &edges, &[&["n"], &["m"]]).is_empty());
    assert_eq!(
        out_of_order(&tree, &edges, &[&["n"]]),
        ["`m` is in no layer"]
    );
    let found: Vec<String> = paths(&lines, &[])
        .iter()
        .map(|(_, p)| p.join("::"))
        .collect();
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
