//! The generated code and the reference evaluator (SEMANTICS §4 followed literally) agree on
//! every random package and every random fact set.

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_codegen::ir::Document;
use serde_json::Value;

#[test]
fn generated_code_agrees_with_the_reference_evaluator() {
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let cat = Catalog::new(pkg.schema());
        let grants: Vec<String> =
            pkg.schema().relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect();
        let opts = Options { grants: grants.clone(), explain: false };
        let cases = clir_reference::random::facts(seed, &doc);
        let lines: Vec<(usize, String)> =
            cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
        // All fact sets of a package as one batch: cases must not leak into each other.
        let (out, _) = rule_chunk(pkg, &cat, &lines, &opts);
        for (case, got) in cases.iter().zip(&out) {
            let want = clir_reference::evaluate(&doc, case, &grants);
            let got: Value = serde_json::from_str(got).expect("output is JSON");
            compared += 1;
            if got != want && failures.len() < 5 {
                failures.push(format!(
                    "package seed {seed}, case {case}\n  generated: {got}\n  reference: {want}"
                ));
            }
        }
    }
    eprintln!("compared {compared} rulings over {} random packages", clir_random::PACKAGES.len());
    assert!(failures.is_empty(), "disagreements:\n{}", failures.join("\n"));
    assert!(compared >= clir_random::PACKAGES.len());
}

/// The comparison is not vacuous: the random rulings conclude things, attack and contradict.
#[test]
fn random_rulings_are_not_trivial() {
    let (mut concluded, mut negative, mut contradictions, mut errors) = (0, 0, 0, 0);
    for &(seed, bytes, _) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let grants: Vec<String> = Vec::new();
        for case in clir_reference::random::facts(seed, &doc) {
            let r = clir_reference::evaluate(&doc, &case, &grants);
            if r.get("error").is_some() {
                errors += 1;
                continue;
            }
            for (k, v) in r["concluded"].as_object().unwrap() {
                concluded += v.as_array().unwrap().len();
                if k.starts_with('~') {
                    negative += 1;
                }
            }
            contradictions += r["contradictions"].as_array().unwrap().len();
        }
    }
    eprintln!("concluded {concluded}, negative relations {negative}, contradictions {contradictions}, error lines without grant {errors}");
    assert!(concluded > 100 && negative > 10, "random facts conclude too little");
}
