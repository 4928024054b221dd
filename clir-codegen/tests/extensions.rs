//! The language extensions of docs/EXTENSIONS.md: each needs its feature, and the compiler's
//! diagnostics carry the documented codes.

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

#[test]
fn negation_needs_its_feature() {
    assert_eq!(compile(&[], NAF).unwrap_err(), vec![Some("feature_not_declared")]);
    let rust = compile(&["negation-as-failure"], NAF).expect("compiles");
    assert!(rust.contains("binary_search"), "the negation is a sorted-set test");
}

#[test]
fn unknown_features_are_still_rejected() {
    assert!(compile(&["negation-as-failure-2"], NAF).is_err());
}

#[test]
fn cyclic_negation_is_rejected_with_its_code() {
    let nodes = "
        institutional ok
        rule R strict: ok :- not ok
    ";
    assert_eq!(compile(&["negation-as-failure"], nodes).unwrap_err(), vec![Some("cyclic_negation")]);
}

#[test]
fn strings_and_arithmetic_need_their_features_and_types() {
    let nodes = |head_arg: &str| {
        format!(
            r#"
            empirical r(Integer, Integer)
            institutional a(Integer)
            institutional s(String)
            rule R strict [x: Integer, y: Integer]: a({head_arg}) :- r(x, y)
            rule S strict [x: Integer, y: Integer]: s("ttt_obj") :- r(x, y)
            "#
        )
    };
    let err = compile(&[], &nodes("x + y")).unwrap_err();
    assert!(err.iter().all(|c| *c == Some("feature_not_declared")) && err.len() >= 2, "{err:?}");
    compile(&["integer-arithmetic", "string-values"], &nodes("x + y")).expect("compiles");
    assert_eq!(
        compile(&["integer-arithmetic", "string-values"], &nodes(r#""1""#)).unwrap_err(),
        vec![Some("type_mismatch")],
        "\"1\" is not 1"
    );
}

#[test]
fn unsafe_rules_carry_their_codes() {
    let nodes = |head_var: &str| {
        format!(
            "
            empirical q(Integer)
            institutional p(Integer)
            rule R strict [{head_var}: Integer, y: Integer]: p({head_var}) :- q(y)
            "
        )
    };
    assert_eq!(compile(&[], &nodes("x")).unwrap_err(), vec![Some("unbound_variable")]);
    assert_eq!(compile(&[], &nodes("_1")).unwrap_err(), vec![Some("safety_violations")]);
}
