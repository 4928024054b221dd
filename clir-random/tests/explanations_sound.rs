//! Every explanation `--explain` writes is a proof on its own (docs/DECISIONS.md 31), rebuilt by
//! the independent checker `clir_reference::explanations` against the package and the reference
//! evaluator: on every random package (fact sets `clir_reference::random::facts`) and on the
//! demo packages of the tests and examples (random fact sets, and examples/downstream's cases).
//! `CLIR_EXPLAIN_CASES` sets how many fact-set seeds per package (default 4; 10 times as many
//! for a demo). fide.laws.chess is checked in the root crate's tests/explanations_sound.rs.

mod support;

use clir::jsonl::Options;
use clir_codegen::ir::Document;
use clir_reference::explanations::Checker;
use serde_json::Value;

/// Rules `cases` with explanations and checks them: (explanations checked, unsound, examples).
fn check(pkg: &dyn clir::Package, bytes: &[u8], cases: &[Value]) -> (usize, usize, Vec<String>) {
    let doc = Document::parse(bytes).expect("parses");
    let checker = Checker::new(&doc);
    let grants = support::grants(pkg);
    let (_, out) = support::rule(pkg, cases, &Options { grants: grants.clone(), explain: true, ..Default::default() });
    let (mut checked, mut unsound, mut examples) = (0, 0, Vec::new());
    for (case, line) in cases.iter().zip(&out) {
        let ruling: Value = serde_json::from_str(line).expect("a ruling line is JSON");
        let v = checker.check(case, &grants, &ruling);
        checked += v.checked;
        unsound += v.unsound.len();
        examples.extend(v.unsound.into_iter().take(2).map(|(l, why)| format!("case {case}: {l}: {why}")));
    }
    (checked, unsound, examples)
}

fn seeds() -> u64 {
    support::seeds("CLIR_EXPLAIN_CASES", 4)
}

#[test]
fn every_explanation_of_a_random_package_is_a_proof() {
    let (mut checked, mut unsound, mut examples) = (0, 0, Vec::new());
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let cases = support::random_cases(seed, &doc, seeds());
        let (c, u, e) = check(pkg, bytes, &cases);
        checked += c;
        unsound += u;
        examples.extend(e.into_iter().take(2).map(|e| format!("package seed {seed}, {e}")));
    }
    eprintln!("{} random packages: {checked} explanations checked, {unsound} unsound", clir_random::PACKAGES.len());
    assert!(checked > 1000, "too few explanations checked: {checked}");
    assert_eq!(
        unsound,
        0,
        "explanations that are not proofs:\n{}",
        examples.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_explanation_of_a_demo_package_is_a_proof() {
    let mut failures = Vec::new();
    for &(name, bytes, pkg) in clir_random::DEMOS {
        let doc = Document::parse(bytes).expect("parses");
        let cases = support::demo_cases(name, &doc, seeds());
        let (checked, unsound, examples) = check(pkg, bytes, &cases);
        eprintln!("{name}: {} cases, {checked} explanations checked, {unsound} unsound", cases.len());
        assert!(checked > 0, "{name}: nothing explained");
        if unsound > 0 {
            failures.push(format!("{name}: {unsound} unsound:\n{}", examples.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
