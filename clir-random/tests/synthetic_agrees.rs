//! The synthetic compliance packages of 50 rules (clir-testkit/examples/synthetic: negation as
//! failure, strong negation, closures, contested relations, recursion), compiled by the real
//! compiler, rule random fact sets as the reference evaluator does, and every explanation is a
//! proof: the CI size of benches/synthetic-reference.sh, through the same comparison
//! (`clir_reference::agree`). `CLIR_SYNTHETIC_CASES` sets how many fact-set seeds per package
//! (default 8).

#[allow(dead_code)] // the other tests' helpers
mod support;

use clir::jsonl::Options;
use clir_codegen::ir::Document;
use clir_reference::agree::{cases, disagreement};
use clir_reference::explanations::Checker;
use clir_reference::Reference;
use serde_json::Value;

#[test]
fn synthetic_packages_rule_as_the_reference_does() {
    let (mut compared, mut concluded, mut explained, mut failures) = (0, 0, 0, Vec::new());
    for &(rules, seed, bytes, pkg) in clir_random::SYNTHETIC {
        let doc = Document::parse(bytes).expect("parses");
        let reference = Reference::new(&doc).expect("the reference evaluates the synthetic package");
        let checker = Checker::new(&doc);
        let cases = cases(&doc, 0..support::seeds("CLIR_SYNTHETIC_CASES", 8));
        let grants = support::grants(pkg);
        let (_, out) =
            support::rule(pkg, &cases, &Options { grants: grants.clone(), explain: true, ..Default::default() });
        for (case, line) in cases.iter().zip(&out) {
            let want = reference.rule(case, &grants);
            compared += 1;
            concluded +=
                want["concluded"].as_object().map_or(0, |r| r.values().map(|t| t.as_array().unwrap().len()).sum());
            let mut why: Vec<String> = disagreement(&want, line).into_iter().collect();
            let verdict = checker.check(case, &grants, &serde_json::from_str::<Value>(line).expect("JSON"));
            explained += verdict.checked;
            why.extend(verdict.unsound.into_iter().map(|(l, e)| format!("unsound explanation of {l}: {e}")));
            if !why.is_empty() {
                failures.push(format!("{rules} rules, seed {seed}, case {}: {}", case["case"], why.join("; ")));
            }
        }
    }
    eprintln!("compared {compared} rulings ({concluded} literals concluded), checked {explained} explanations");
    assert!(failures.is_empty(), "disagreements:\n{}", failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n"));
    assert!(compared >= 10 && concluded > 100 && explained > 100, "too little compared");
}
