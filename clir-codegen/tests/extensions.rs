//! The language extensions of docs/EXTENSIONS.md compile when the package declares their features.

use clir_codegen::canonical::seal;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_testkit::Package;

/// Compiles the package of the notation statements `nodes` declaring `features` (besides
/// `core-executable`); the codes of the errors, or the Rust.
fn compile(features: &[&str], nodes: &str) -> Result<String, Vec<Option<&'static str>>> {
    let text = format!("package ext.test 0.1.0\nnamespace urn:test:ext\nfeatures {}\n{nodes}", features.join(" "));
    let bytes = Package::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}")).bytes();
    let report = verify_bytes(&bytes, &VerifyOptions::default());
    if !report.ok() {
        return Err(report.failures().0.iter().map(|d| d.code).collect());
    }
    let doc = report.into_document().expect("verified");
    clir_codegen::compile_document(&doc, &seal(&bytes)).map_err(|e| e.0.iter().map(|d| d.code).collect())
}

const NAF: &str = "
    empirical person(Integer)
    empirical banned(Integer, Integer)
    institutional ok(Integer)
    rule R strict [x: Integer, y: Integer]: ok(x) :- person(x), not banned(x, y)
";

// The rejections (a feature missing or unknown, cyclic negation, a String for an Integer, unsafe
// heads) are golden files in tests/rejected/; here, the packages that declare what they use compile.

#[test]
fn negation_compiles_with_its_feature() {
    let rust = compile(&["negation-as-failure"], NAF).expect("compiles");
    // y is local to the negation: no banned(x, _) for the x at hand, a range of banned by x.
    let test = rust.split("fn rule_r").nth(1).expect("the rule's function");
    assert!(test.contains("!::clir::rt::any_keyed(banned, (case, x), |_| true)"), "{rust}");
}

#[test]
fn strings_and_arithmetic_compile_with_their_features() {
    let nodes = r#"
        empirical r(Integer, Integer)
        institutional a(Integer)
        institutional s(String)
        rule R strict [x: Integer, y: Integer]: a(x + y) :- r(x, y)
        rule S strict [x: Integer, y: Integer]: s("ttt_obj") :- r(x, y)
    "#;
    compile(&["integer-arithmetic", "string-values"], nodes).expect("compiles");
}
