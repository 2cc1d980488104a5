//! Property-based tests of the scenario reader (issue 13): every shipped scenario, shortened,
//! then mutated (wrong types, extreme and non-finite numbers, missing and unknown fields, huge
//! arrays) or damaged as text. Reading never panics and either gives an error that names the
//! file and the field (or the TOML line), or a scenario; a scenario that is cheap enough is
//! simulated, which never panics either and gives a valid run or one that names its failed gate.
//!
//! CI runs a bounded number of cases with a fixed seed; a longer run:
//! `PROPTEST_CASES=5000 cargo test --release -p sim --test suite fuzz::` (any `PROPTEST_RNG_SEED`).

use crate::files;
use crate::mutate;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use mutate::{Damage, Mutation};
use proptest::prelude::*;
use sim::scenario::Scenario;

/// Simulated only up to this many integrator steps.
const STEP_BUDGET: usize = 20_000;

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// Every shipped scenario as a TOML document, four sample periods long and without a
/// steady-state requirement.
fn bases() -> &'static [(String, toml::Value)] {
    static BASES: std::sync::OnceLock<Vec<(String, toml::Value)>> = std::sync::OnceLock::new();
    BASES.get_or_init(|| {
        files::toml_files(&scenarios_dir())
            .into_iter()
            .map(|p| {
                let mut doc: toml::Value =
                    toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                let time = doc["time"].as_table_mut().unwrap();
                let period = time["sample_period"].as_float().unwrap();
                time.insert("end".into(), toml::Value::Float(4.0 * period));
                time.remove("steady_state");
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, doc)
            })
            .collect()
    })
}

/// Reads `text`; panics (failing the property) on a panic or an unclear error.
fn read(text: &str) -> Option<Scenario> {
    let dir = scenarios_dir();
    let read = catch_unwind(AssertUnwindSafe(|| {
        Scenario::from_toml_in(text, "fuzz.toml", &dir)
    }));
    match read {
        Err(_) => panic!("the scenario reader panicked on:\n{text}"),
        Ok(Ok(s)) => Some(s),
        Ok(Err(e)) => {
            let msg = e.to_string();
            assert!(
                msg.contains("fuzz.toml") && (msg.contains("field `") || msg.contains("line ")),
                "unclear error: {msg}\nfor:\n{text}"
            );
            None
        }
    }
}

/// Simulates a scenario that fits the budget; a panic fails the property.
fn simulate(s: &Scenario, text: &str) {
    if s.samples.saturating_mul(s.steps_per_sample) > STEP_BUDGET {
        return;
    }
    let run = catch_unwind(AssertUnwindSafe(|| sim::simulate(s, None)))
        .unwrap_or_else(|_| panic!("the simulation panicked on:\n{text}"));
    if let Some(invalid) = &run.manifest.invalid {
        // A run stopped by `dynamics` ends before the sample it names.
        let stopped = invalid.gate == sim::validity::Gate::Dynamics;
        let recorded = run.recording.samples();
        assert!(
            (stopped && invalid.sample == recorded) || invalid.sample < recorded,
            "{invalid}"
        );
        assert!(
            invalid
                .to_string()
                .contains(&format!("sample {}", invalid.sample))
        );
    }
}

fn mutated(base: usize, edits: &[(usize, Mutation)]) -> String {
    let (_, doc) = &bases()[base % bases().len()];
    let mut doc = doc.clone();
    for (pick, m) in edits {
        mutate::apply(&mut doc, *pick, m);
    }
    toml::to_string(&doc).unwrap_or_default()
}

proptest! {
    #![proptest_config(mutate::config(96))]

    #[test]
    fn mutated_scenarios_give_a_clear_error_or_a_run(
        base in any::<usize>(),
        edits in proptest::collection::vec((any::<usize>(), mutate::mutation()), 1..4),
    ) {
        let text = mutated(base, &edits);
        if let Some(s) = read(&text) {
            simulate(&s, &text);
        }
    }

    #[test]
    fn damaged_scenario_text_gives_a_clear_error_or_a_run(
        base in any::<usize>(),
        damage in proptest::collection::vec(mutate::damage(), 1..3),
    ) {
        let (_, doc) = &bases()[base % bases().len()];
        let mut text = toml::to_string(doc).unwrap();
        for d in &damage {
            text = mutate::damaged(&text, d);
        }
        if let Some(s) = read(&text) {
            simulate(&s, &text);
        }
    }
}

#[test]
fn every_unmutated_base_reads_and_runs_valid() {
    for (name, doc) in bases() {
        let text = toml::to_string(doc).unwrap();
        let s = read(&text).unwrap_or_else(|| panic!("{name}"));
        let run = sim::simulate(&s, None);
        assert!(
            run.manifest.invalid.is_none(),
            "{name}: {:?}",
            run.manifest.invalid
        );
    }
}

#[test]
fn a_damage_is_applied() {
    assert_eq!(mutate::damaged("abc", &Damage::Truncate(2)), "ab");
    assert_eq!(
        mutate::damaged("abc", &Damage::Insert(1, "x".into())),
        "axbc"
    );
}
