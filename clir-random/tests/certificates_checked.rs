//! Every certificate `--certify` writes is accepted by the independent checker `clir-check`
//! (docs/CERTIFICATES.md): on every random package (fact sets `clir_reference::random::facts`)
//! and on the demo packages (random fact sets, and examples/downstream's cases).
//! `CLIR_CERTIFY_CASES` sets how many fact-set seeds per package (default 2; 10 times as many
//! for a demo). fide.laws.chess is checked in the root crate's tests/cli_check.rs.

mod support;

use clir::jsonl::Options;
use clir_check::{check_line, Package, Verdict};
use clir_codegen::ir::Document;
use serde_json::Value;

/// Rules `cases` with certificates and checks each: (certified, failures).
fn check(pkg: &dyn clir::Package, bytes: &[u8], cases: &[Value]) -> (usize, Vec<String>) {
    let checker = Package::parse(bytes).expect("the checker reads the package");
    let options = Options { grants: support::grants(pkg), certify: true, ..Default::default() };
    let (lines, out) = support::rule(pkg, cases, &options);
    let (mut certified, mut failures) = (0, Vec::new());
    for (case, ruling) in lines.iter().zip(&out) {
        match check_line(&checker, case, ruling) {
            Verdict::Certified => certified += 1,
            Verdict::NotRuled(_) => {}
            Verdict::Rejected(f) => failures.push(format!("case {case}: {f:?}")),
        }
    }
    (certified, failures)
}

fn seeds() -> u64 {
    support::seeds("CLIR_CERTIFY_CASES", 2)
}

#[test]
fn every_certificate_of_a_random_package_is_accepted() {
    let (mut certified, mut failures) = (0, Vec::new());
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let cases = support::random_cases(seed, &doc, seeds());
        let (c, f) = check(pkg, bytes, &cases);
        certified += c;
        failures.extend(f.into_iter().take(2).map(|f| format!("package seed {seed}, {f}")));
    }
    eprintln!("{} random packages: {certified} certificates accepted", clir_random::PACKAGES.len());
    assert!(certified > 100, "too few certificates checked: {certified}");
    assert!(
        failures.is_empty(),
        "certificates rejected:\n{}",
        failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_certificate_of_a_demo_package_is_accepted() {
    let mut failures = Vec::new();
    for &(name, bytes, pkg) in clir_random::DEMOS {
        let doc = Document::parse(bytes).expect("parses");
        let cases = support::demo_cases(name, &doc, seeds());
        let (certified, f) = check(pkg, bytes, &cases);
        eprintln!("{name}: {} cases, {certified} certificates accepted", cases.len());
        assert!(certified > 0, "{name}: nothing certified");
        failures.extend(f.into_iter().take(3).map(|f| format!("{name}: {f}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
