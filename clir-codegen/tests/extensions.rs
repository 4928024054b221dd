//! The language extensions of docs/EXTENSIONS.md: each needs its feature, and the compiler's
//! diagnostics carry the documented codes.

use clir_codegen::canonical::{canonical_bytes, node_content_hash, seal};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use serde_json::{json, Value};

const NS: &str = "urn:test:ext";

fn rel(name: &str, kind: &str, types: &[&str]) -> Value {
    let params: Vec<Value> = types
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("{NS}#{name}/arg/{i}"), "name": format!("a{i}"), "type": {"name": t}}))
        .collect();
    json!({"id": format!("{NS}#{name}"), "kind": "symbol_decl", "symbolKind": "relation", "relationKind": kind,
           "name": name, "labels": [], "package": NS, "parameters": params})
}

fn lit(p: &str, args: Value) -> Value {
    json!({"kind": "literal", "predicate": format!("{NS}#{p}"), "polarity": "positive", "args": args})
}

fn var(v: &str) -> Value {
    json!({"kind": "var", "var": v})
}

fn rule(id: &str, head: Value, body: Vec<Value>, vars: &[(&str, &str)]) -> Value {
    let variables: Vec<Value> = vars.iter().map(|(v, t)| json!({"id": v, "type": {"name": t}})).collect();
    json!({"id": format!("{NS}#{id}"), "kind": "rule", "package": NS, "labels": [], "anchors": [],
           "interpretations": [], "scope": {"kind": "boolean", "value": true}, "strength": "strict",
           "variables": variables, "head": head, "body": {"kind": "and", "items": body}})
}

/// Compiles a package of `nodes` declaring `features`; the codes of the errors, or the Rust.
fn compile(features: &[&str], nodes: Vec<Value>) -> Result<String, Vec<Option<&'static str>>> {
    let nodes: Vec<Value> = nodes
        .into_iter()
        .map(|mut n| {
            let h = node_content_hash(&n);
            n["contentHash"] = json!(h);
            n
        })
        .collect();
    let doc = json!({"schemaVersion": "law.core.ir/0.2",
        "package": {"name": "ext.test", "namespace": NS, "version": "0.1.0", "semanticHash": format!("sha256:{}", "0".repeat(64))},
        "semanticVersion": "0.1.0", "semanticHash": format!("sha256:{}", "0".repeat(64)),
        "features": features, "imports": [], "metadata": {}, "strata": [], "nodes": nodes});
    let bytes = canonical_bytes(&doc);
    let report = verify_bytes(&bytes, &VerifyOptions::default());
    if !report.ok() {
        return Err(report.failures().0.iter().map(|d| d.code).collect());
    }
    let doc = report.into_document().expect("verified");
    clir_codegen::compile_document(&doc, &seal(&bytes)).map_err(|e| e.0.iter().map(|d| d.code).collect())
}

const INT: &str = "urn:law:std#Integer";
const STR: &str = "urn:law:std#String";

fn naf_nodes() -> Vec<Value> {
    vec![
        rel("person", "empirical", &[INT]),
        rel("banned", "empirical", &[INT, INT]),
        rel("ok", "institutional", &[INT]),
        rule(
            "R",
            lit("ok", json!([var("x")])),
            vec![
                lit("person", json!([var("x")])),
                json!({"kind": "not", "formula": lit("banned", json!([var("x"), var("y")]))}),
            ],
            &[("x", INT), ("y", INT)],
        ),
    ]
}

#[test]
fn negation_needs_its_feature() {
    assert_eq!(compile(&["core-executable"], naf_nodes()).unwrap_err(), vec![Some("feature_not_declared")]);
    let rust = compile(&["core-executable", "negation-as-failure"], naf_nodes()).expect("compiles");
    assert!(rust.contains("binary_search"), "the negation is a sorted-set test");
}

#[test]
fn unknown_features_are_still_rejected() {
    assert!(compile(&["core-executable", "negation-as-failure-2"], naf_nodes()).is_err());
}

#[test]
fn cyclic_negation_is_rejected_with_its_code() {
    let nodes = vec![
        rel("ok", "institutional", &[]),
        rule("R", lit("ok", json!([])), vec![json!({"kind": "not", "formula": lit("ok", json!([]))})], &[]),
    ];
    assert_eq!(compile(&["core-executable", "negation-as-failure"], nodes).unwrap_err(), vec![Some("cyclic_negation")]);
}

#[test]
fn strings_and_arithmetic_need_their_features_and_types() {
    let nodes = |head_arg: Value| {
        vec![
            rel("r", "empirical", &[INT, INT]),
            rel("a", "institutional", &[INT]),
            rel("s", "institutional", &[STR]),
            rule(
                "R",
                lit("a", json!([head_arg])),
                vec![lit("r", json!([var("x"), var("y")]))],
                &[("x", INT), ("y", INT)],
            ),
            rule(
                "S",
                lit("s", json!([{"kind": "value", "type": {"name": STR}, "value": "ttt_obj"}])),
                vec![lit("r", json!([var("x"), var("y")]))],
                &[("x", INT), ("y", INT)],
            ),
        ]
    };
    let sum = json!({"kind": "arith", "op": "add", "left": var("x"), "right": var("y")});
    let err = compile(&["core-executable"], nodes(sum.clone())).unwrap_err();
    assert!(err.iter().all(|c| *c == Some("feature_not_declared")) && err.len() >= 2, "{err:?}");
    compile(&["core-executable", "integer-arithmetic", "string-values"], nodes(sum)).expect("compiles");
    let text = json!({"kind": "value", "type": {"name": STR}, "value": "1"});
    assert_eq!(
        compile(&["core-executable", "integer-arithmetic", "string-values"], nodes(text)).unwrap_err(),
        vec![Some("type_mismatch")],
        "\"1\" is not 1"
    );
}

#[test]
fn unsafe_rules_carry_their_codes() {
    let nodes = |head_var: &str| {
        vec![
            rel("q", "empirical", &[INT]),
            rel("p", "institutional", &[INT]),
            rule(
                "R",
                lit("p", json!([var(head_var)])),
                vec![lit("q", json!([var("y")]))],
                &[(head_var, INT), ("y", INT)],
            ),
        ]
    };
    assert_eq!(compile(&["core-executable"], nodes("x")).unwrap_err(), vec![Some("unbound_variable")]);
    assert_eq!(compile(&["core-executable"], nodes("_1")).unwrap_err(), vec![Some("safety_violations")]);
}
