//! The compiled test.extensions package (fixtures/test.extensions.clir: negation as failure,
//! Strings, Integer arithmetic with wraparound) rules hand-made and random cases as the
//! reference evaluator does, and every explanation is a proof.

#[allow(dead_code)] // the other tests' helpers
mod support;

use clir::jsonl::Options;
use clir_codegen::ir::Document;
use clir_random::test_extensions::Package;
use clir_reference::agree::{cases, disagreement};
use clir_reference::explanations::Checker;
use clir_reference::Reference;
use serde_json::{json, Value};

const BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/test_extensions.lawir.json"));

#[test]
fn the_extensions_rule_as_the_reference_says() {
    let doc = Document::parse(BYTES).expect("parses");
    let (reference, checker) = (Reference::new(&doc).expect("evaluable"), Checker::new(&doc));
    let mut all = vec![
        json!({"case": "naf", "facts": {
            "person": [["ann"], ["bob"], ["cy"]], "suspect": [["ann"], ["bob"]], "alibi": [["bob"]],
            "banned": [["ann", "bob"]], "~verified": [["cy"]]}}),
        json!({"case": "strings", "facts": {
            "person": [["ann"]],
            "role": [["ann", "officer"], ["bob", "Officer"], ["cy", "officer "], ["ann", "clerk"], ["dee", "a,b"], ["dee", ""]],
            "flagged": [["a b"], ["clerk"]], "~flagged": [["a b"]]}}),
        json!({"case": "wraparound", "facts": {
            "balance": [["x", i64::MAX], ["y", 10], ["z", i64::MIN], ["w", -7], ["v", 1]],
            "fee": [["x", -1], ["y", 3], ["z", 1], ["w", i64::MIN]]}}),
    ];
    all.extend(cases(&doc, 0..20));
    let (_, out) = support::rule(&Package, &all, &Options { explain: true, ..Default::default() });
    let mut failures = Vec::new();
    for (case, line) in all.iter().zip(&out) {
        let mut why: Vec<String> = disagreement(&reference.rule(case, &[]), line).into_iter().collect();
        let verdict = checker.check(case, &[], &serde_json::from_str::<Value>(line).expect("JSON"));
        why.extend(verdict.unsound.into_iter().map(|(l, e)| format!("unsound explanation of {l}: {e}")));
        if !why.is_empty() {
            failures.push(format!("case {}: {}", case["case"], why.join("; ")));
        }
    }
    assert!(failures.is_empty(), "disagreements:\n{}", failures.join("\n"));
    let wrapped: Value = serde_json::from_str(&out[2]).unwrap();
    assert_eq!(wrapped["definite"]["after_fee"][1], json!(["x", i64::MIN]), "{wrapped}");
}
