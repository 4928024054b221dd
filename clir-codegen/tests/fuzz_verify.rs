//! Fuzzing: verification never panics on mutated copies of the published package.
//!
//! Two targets: byte-level edits (flips, truncations, insertions, deletions), which mostly stop
//! at the JSON parser, and tree-level edits (a value anywhere replaced by another), which keep
//! the JSON valid and canonical and so reach the model and the reference checks. Case counts are
//! fixed (2000 byte-level, 500 tree-level: each of those runs every check, ~35 ms in a debug
//! build) unless `PROPTEST_CASES` sets both.
use clir_codegen::canonical;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

const SEED: &[u8] = include_bytes!("../../sources/fide.laws.chess-0.1.0.lawir.json");

fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default_cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(vec![
        b'{', b'}', b'[', b']', b'"', b':', b',', b'\\', b'0', b'9', b'-', b' ', b'\n', 0u8, 0xff, 0xc3, b'e',
    ]);
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Edit::Flip(i, x)),
        (any::<usize>(), interesting).prop_map(|(i, b)| Edit::Set(i, b)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    if bytes.is_empty() {
        return;
    }
    let at = |i: usize| i % bytes.len();
    match e {
        Edit::Flip(i, x) => {
            let i = at(*i);
            bytes[i] ^= x;
        }
        Edit::Set(i, b) => {
            let i = at(*i);
            bytes[i] = *b;
        }
        Edit::Truncate(i) => {
            let i = at(*i);
            bytes.truncate(i);
        }
        Edit::Insert(i, b) => {
            let i = at(*i);
            bytes.splice(i..i, b.iter().copied());
        }
        Edit::Delete(i, n) => {
            let i = at(*i);
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
    }
}

/// Every value of the tree, by pre-order index; replaces the `k`-th with `v`.
fn replace_nth(root: &mut Value, k: &mut usize, v: &Value) -> bool {
    if *k == 0 {
        *root = v.clone();
        return true;
    }
    *k -= 1;
    match root {
        Value::Array(items) => items.iter_mut().any(|x| replace_nth(x, k, v)),
        Value::Object(map) => map.values_mut().any(|x| replace_nth(x, k, v)),
        _ => false,
    }
}

fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count).sum(),
        Value::Object(map) => map.values().map(count).sum(),
        _ => 0,
    }
}

fn replacement() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(1.5),
        json!(""),
        json!("urn:fide:laws:clir:chess#Game"),
        json!("urn:fide:laws:clir:chess#game_drawn"),
        json!("urn:fide:laws:clir:chess#AgreedDraw"),
        json!("literal"),
        json!("and"),
        json!("status"),
        json!("comparison"),
        json!("rule"),
        json!("symbol_decl"),
        json!("publication"),
        json!("const_ref"),
        json!("var"),
        json!([]),
        json!({}),
        json!([{}]),
        json!({"kind": "and", "items": [{"kind": "and", "items": []}]}),
        json!({"kind": "var", "var": "v0"}),
        json!({"kind": "value", "type": {"name": "urn:law:std#Integer"}, "value": 1}),
        json!({"kind": "const_ref", "id": "urn:fide:laws:clir:chess#Playing"}),
        json!({"kind": "literal", "polarity": "negative", "predicate": "urn:fide:laws:clir:chess#game_drawn", "args": []}),
    ])
}

fn opts() -> VerifyOptions {
    VerifyOptions {
        seal: Some(canonical::seal(SEED)),
        root: Some(std::env::temp_dir().join("clir-fuzz-no-such-root")),
        ..VerifyOptions::default()
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn byte_edits_never_panic(edits in prop::collection::vec(edit(), 1..6)) {
        let mut bytes = SEED.to_vec();
        for e in &edits {
            apply(&mut bytes, e);
        }
        let report = verify_bytes(&bytes, &opts());
        // A changed file can never pass a seal pin.
        prop_assert_eq!(report.ok(), bytes == SEED);
        let _ = report.into_document();
    }
}

proptest! {
    #![proptest_config(config(500))]

    #[test]
    fn tree_edits_never_panic(picks in prop::collection::vec((any::<prop::sample::Index>(), replacement()), 1..4)) {
        let mut doc: Value = serde_json::from_slice(SEED).unwrap();
        for (at, v) in &picks {
            let mut k = at.index(count(&doc));
            replace_nth(&mut doc, &mut k, v);
        }
        let bytes = canonical::canonical_bytes(&doc);
        let report = verify_bytes(&bytes, &VerifyOptions { seal: None, ..opts() });
        for c in &report.checks {
            prop_assert!(!c.detail.is_empty() || c.name == "parse");
        }
        let _ = report.failures();
        let _ = report.into_document();
    }
}
