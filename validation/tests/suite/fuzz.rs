//! Property-based tests of the study-file reader and the dataset reader (issue 13).
//!
//! - Study files (`studies/*.toml`), mutated or damaged as text: reading never panics and gives
//!   an error naming the file and the field (or the TOML line), or a study.
//! - A run directory with one file truncated, a byte changed, a range zeroed or the file
//!   removed: with its `SHA256SUMS` every such run is refused, naming the file; without it
//!   the Parquet and JSON readers never panic, and an error names the file.
//!
//! CI runs a bounded number of cases with a fixed seed; a longer run:
//! `PROPTEST_CASES=5000 cargo test --release -p validation --test suite fuzz::`.

use crate::files;
use crate::mutate;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use validation::kind::Plan;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn known() -> Vec<String> {
    validation::estimate::registry_names()
}

fn studies() -> &'static [toml::Value] {
    static STUDIES: OnceLock<Vec<toml::Value>> = OnceLock::new();
    STUDIES.get_or_init(|| {
        files::toml_files(&root().join("studies"))
            .iter()
            // The list of `reproduce`'s tiers is not a study.
            .filter(|p| !p.ends_with("reproduce.toml"))
            .map(|p| toml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
            .collect()
    })
}

/// Reads a study text as `studies/fuzz.toml`; fails the property on a panic or an unclear error.
fn read_study(text: &str) {
    let path = root().join("studies/fuzz.toml");
    let names = known();
    let read = catch_unwind(AssertUnwindSafe(|| Plan::from_toml(text, &path, &names)));
    match read {
        Err(_) => panic!("the study reader panicked on:\n{text}"),
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("fuzz.toml") && (msg.contains("field `") || msg.contains("line ")),
                "unclear error: {msg}\nfor:\n{text}"
            );
        }
    }
}

/// A short paper_rail run written once; each case corrupts a copy.
fn pristine() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("scenarios/paper_rail.toml"))
            .unwrap()
            .replace("end = 2.0", "end = 0.1");
        let s = sim::scenario::Scenario::from_toml(&text, "rail").unwrap();
        let run = sim::simulate(&s, None);
        let dir = std::env::temp_dir().join(format!("validation-fuzz-{}", std::process::id()));
        sim::dataset::write_run(&dir.join("pristine"), &run.recording, &run.manifest, true)
            .unwrap();
        dir.join("pristine")
    })
}

const FILES: [&str; 5] = [
    "bodies.parquet",
    "joints.parquet",
    "truth.parquet",
    "manifest.json",
    "SHA256SUMS",
];

/// What is done to one file.
#[derive(Clone, Debug)]
enum Corruption {
    Truncate(usize),
    Xor(usize, u8),
    Zero(usize, usize),
    Remove,
}

fn corruption() -> impl Strategy<Value = Corruption> {
    prop_oneof![
        any::<usize>().prop_map(Corruption::Truncate),
        (any::<usize>(), 1u8..=255).prop_map(|(at, x)| Corruption::Xor(at, x)),
        (any::<usize>(), 1usize..64).prop_map(|(at, n)| Corruption::Zero(at, n)),
        Just(Corruption::Remove),
    ]
}

/// A copy of the pristine run with `file` corrupted (and, unless `keep_sums`, no checksum
/// list); `None` when the corruption changes nothing.
fn corrupted(case: &str, file: &str, c: &Corruption, keep_sums: bool) -> Option<PathBuf> {
    let dir = pristine().with_file_name(case);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in FILES {
        std::fs::copy(pristine().join(f), dir.join(f)).unwrap();
    }
    if !keep_sums {
        std::fs::remove_file(dir.join("SHA256SUMS")).unwrap();
    }
    let path = dir.join(file);
    let mut bytes = std::fs::read(&path).ok()?;
    let n = bytes.len();
    match *c {
        Corruption::Truncate(k) => {
            // A checksum list without its last newline says the same.
            let k = k % n;
            if file == "SHA256SUMS" && bytes[k..].iter().all(u8::is_ascii_whitespace) {
                return None;
            }
            bytes.truncate(k)
        }
        Corruption::Xor(at, x) => bytes[at % n] ^= x,
        Corruption::Zero(at, len) => {
            let at = at % n;
            let end = (at + len).min(n);
            if bytes[at..end].iter().all(|b| *b == 0) {
                return None;
            }
            bytes[at..end].fill(0);
        }
        Corruption::Remove => {
            std::fs::remove_file(&path).unwrap();
            return Some(dir);
        }
    }
    std::fs::write(&path, bytes).unwrap();
    Some(dir)
}

/// Reads `dir`; a panic fails the property. `Ok` is whether it read.
fn read_run(dir: &Path) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| sim::reading::read_run(dir)))
        .unwrap_or_else(|_| panic!("the dataset reader panicked on {}", dir.display()))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(mutate::config(96))]

    #[test]
    fn mutated_study_files_give_a_clear_error_or_a_study(
        base in any::<usize>(),
        edits in proptest::collection::vec((any::<usize>(), mutate::mutation()), 1..4),
    ) {
        let mut doc = studies()[base % studies().len()].clone();
        for (pick, m) in &edits {
            mutate::apply(&mut doc, *pick, m);
        }
        read_study(&toml::to_string(&doc).unwrap_or_default());
    }

    #[test]
    fn damaged_study_text_gives_a_clear_error_or_a_study(
        base in any::<usize>(),
        damage in proptest::collection::vec(mutate::damage(), 1..3),
    ) {
        let mut text = toml::to_string(&studies()[base % studies().len()]).unwrap();
        for d in &damage {
            text = mutate::damaged(&text, d);
        }
        read_study(&text);
    }

    #[test]
    fn a_corrupted_run_with_its_checksums_is_refused_naming_the_file(
        file in 0usize..5,
        c in corruption(),
    ) {
        // Without its list the run reads as one assembled by hand (next property).
        let list_removed = file == 4 && matches!(c, Corruption::Remove);
        if let Some(dir) = corrupted("with-sums", FILES[file], &c, true).filter(|_| !list_removed) {
            let e = read_run(&dir).expect_err("a corrupted run must be refused");
            prop_assert!(e.contains(&dir.display().to_string()), "{}", e);
        }
    }

    #[test]
    fn a_corrupted_run_without_checksums_never_panics_the_readers(
        file in 0usize..4,
        c in corruption(),
    ) {
        if let Some(dir) = corrupted("without-sums", FILES[file], &c, false)
            && let Err(e) = read_run(&dir)
        {
            prop_assert!(e.contains(&dir.display().to_string()), "{}", e);
        }
    }
}

#[test]
fn the_pristine_run_and_every_shipped_study_read() {
    read_run(pristine()).unwrap();
    let names = known();
    for doc in studies() {
        let text = toml::to_string(doc).unwrap();
        Plan::from_toml(&text, &root().join("studies/x.toml"), &names).unwrap();
    }
}

#[test]
fn a_run_kept_invalid_is_not_read_as_data() {
    let s = sim::scenario::Scenario::from_toml(files::HUGE_TORQUES, "huge").unwrap();
    let run = sim::simulate(&s, None);
    assert!(run.manifest.invalid.is_some());
    let dir = pristine().with_file_name("kept-invalid");
    sim::dataset::write_run_keeping_invalid(&dir, &run.recording, &run.manifest, true).unwrap();
    let e = read_run(&dir).unwrap_err();
    assert!(
        e.contains("marked invalid") && e.contains("non_finite"),
        "{e}"
    );
    let e = sim::reading::from_simulated(&run, &dir).err().unwrap();
    assert!(e.to_string().contains("marked invalid"), "{e}");
}
