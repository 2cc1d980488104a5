//! Mutations of TOML documents for the property-based tests of the file readers (scenario and
//! study files): wrong types, extreme and non-finite numbers, missing and unknown fields, huge
//! arrays, and raw-text damage. Shared by `sim/tests/suite/fuzz.rs` and `validation/tests/suite/fuzz.rs`.

#![allow(dead_code)]

use proptest::prelude::*;
use toml::Value;

/// One step of a path into a TOML document.
#[derive(Clone, Debug)]
pub enum Step {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// Every node's path (tables, arrays and leaves), in document order.
pub fn paths(v: &Value) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

fn walk(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Table(t) => {
            for (k, child) in t {
                here.push(Step::Key(k.clone()));
                walk(child, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                here.push(Step::Index(i));
                walk(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in path {
        cur = match (s, cur) {
            (Step::Key(k), Value::Table(t)) => t.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// What to do at a node.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Replace it.
    Replace(Value),
    /// Remove it from its table or array.
    Remove,
    /// Add an unknown key beside it (in its table, or in it if it is a table).
    Unknown,
    /// Replace it by an array of `n` copies of itself.
    Repeat(usize),
}

/// Values of every TOML type, with the numbers a careless or hostile file could hold.
pub fn value() -> impl Strategy<Value = Value> {
    let floats = prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(1e-12),
        Just(1e12),
        Just(-1.0),
        any::<f64>(),
    ];
    let ints = prop_oneof![
        Just(0i64),
        Just(-1),
        Just(i64::MAX),
        Just(i64::MIN),
        Just(255),
        Just(256),
        any::<i64>(),
    ];
    prop_oneof![
        floats.prop_map(Value::Float),
        ints.prop_map(Value::Integer),
        any::<bool>().prop_map(Value::Boolean),
        prop_oneof![
            Just(String::new()),
            Just("NaN".to_string()),
            Just("arm6".to_string()),
            Just("../models/nonexistent.urdf".to_string()),
            "[a-z_]{0,12}",
        ]
        .prop_map(Value::String),
        Just(Value::Array(Vec::new())),
        Just(Value::Table(Default::default())),
        (0usize..20_000).prop_map(|n| Value::Array(vec![Value::Float(1.0); n])),
    ]
}

/// A mutation.
pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => value().prop_map(Mutation::Replace),
        2 => Just(Mutation::Remove),
        1 => Just(Mutation::Unknown),
        1 => (0usize..2_000).prop_map(Mutation::Repeat),
    ]
}

/// Applies `m` at the node `pick` (an index into [`paths`], wrapped) of `doc`.
pub fn apply(doc: &mut Value, pick: usize, m: &Mutation) {
    let all = paths(doc);
    let path = &all[pick % all.len()];
    match m {
        Mutation::Replace(v) => {
            if let Some(n) = node(doc, path) {
                *n = v.clone();
            }
        }
        Mutation::Remove => {
            let Some((last, parent)) = path.split_last() else {
                return;
            };
            match (last, node(doc, parent)) {
                (Step::Key(k), Some(Value::Table(t))) => {
                    t.remove(k);
                }
                (Step::Index(i), Some(Value::Array(a))) => {
                    a.remove(*i);
                }
                _ => {}
            }
        }
        Mutation::Unknown => {
            let target = match node(doc, path) {
                Some(Value::Table(_)) => path.as_slice(),
                _ => path.split_last().map_or(&[][..], |(_, p)| p),
            };
            if let Some(Value::Table(t)) = node(doc, target) {
                t.insert("unknown_field".into(), Value::Integer(1));
            }
        }
        Mutation::Repeat(n) => {
            if let Some(v) = node(doc, path) {
                *v = Value::Array(vec![v.clone(); *n]);
            }
        }
    }
}

/// Raw-text damage: cut at a byte, or insert a string at a byte (both at a char boundary).
#[derive(Clone, Debug)]
pub enum Damage {
    /// Keep the first `n` bytes.
    Truncate(usize),
    /// Insert text.
    Insert(usize, String),
}

/// A raw-text damage.
pub fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Truncate),
        (
            any::<usize>(),
            prop_oneof![
                Just("=".to_string()),
                Just("[".to_string()),
                Just("\"".to_string()),
                Just("\n[[joint]]\n".to_string()),
                Just("\u{0}".to_string()),
                Just("é".to_string()),
                "[ -~]{1,8}",
            ]
        )
            .prop_map(|(at, s)| Damage::Insert(at, s)),
    ]
}

/// `text` damaged.
pub fn damaged(text: &str, d: &Damage) -> String {
    let boundary = |at: usize| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match d {
        Damage::Truncate(n) => text[..boundary(*n)].to_string(),
        Damage::Insert(at, s) => {
            let at = boundary(*at);
            format!("{}{s}{}", &text[..at], &text[at..])
        }
    }
}

/// The proptest settings of these tests: `PROPTEST_CASES` cases (else `default`), a fixed
/// seed (reproducible in CI; set `PROPTEST_RNG_SEED` for other draws), no regression files.
pub fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(default);
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(13);
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..ProptestConfig::default()
    }
}
