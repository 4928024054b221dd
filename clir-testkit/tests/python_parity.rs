//! The conformance adapter's Python builder (conformance/clir_conformance/translate.py) and the
//! kit write the same package byte for byte: same canonical form, contentHashes and semanticHash.

use std::path::PathBuf;
use std::process::Command;

/// A small Datalog program: a recursive pair of rules, a comparison with a constant, an Integer
/// fact and a String fact.
const PROGRAM: &str = r#"
class Program:
    rules = [
        "path(X,Y) :- edge(X,Y).",
        "path(X,Z) :- path(X,Y), edge(Y,Z).",
        "named(X,N) :- path(X,Y), label(Y,N), X < Y, Y > 1.",
    ]
    facts = {"edge": [(1, 2), (2, 3)], "label": [(3, "c")]}

import sys
from clir_conformance.translate import translate_program
sys.stdout.buffer.write(translate_program(Program).package_bytes)
"#;

/// The same package in the notation: every predicate `P` (k-th in order of first appearance,
/// facts first) is the institutional `pK_P` fed by the empirical `inK_P` through rule `inputK`;
/// the program's rules are `r0`, `r1`, ...
const NOTATION: &str = r#"
package conformance.case 0.1.0
namespace urn:clir:conformance
features string-values
institutional p0_edge(Integer, Integer) id p0
empirical in0_edge(Integer, Integer) id in0
institutional p1_label(Integer, String) id p1
empirical in1_label(Integer, String) id in1
institutional p2_path(Integer, Integer) id p2
empirical in2_path(Integer, Integer) id in2
institutional p3_named(Integer, String) id p3
empirical in3_named(Integer, String) id in3
rule input0 strict: p0_edge(x0, x1) :- in0_edge(x0, x1)
rule input1 strict: p1_label(x0, x1) :- in1_label(x0, x1)
rule input2 strict: p2_path(x0, x1) :- in2_path(x0, x1)
rule input3 strict: p3_named(x0, x1) :- in3_named(x0, x1)
rule r0 strict: p2_path(X, Y) :- p0_edge(X, Y)
rule r1 strict: p2_path(X, Z) :- p2_path(X, Y), p0_edge(Y, Z)
rule r2 strict: p3_named(X, N) :- p2_path(X, Y), p1_label(Y, N), X < Y, Y > 1
"#;

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root").to_path_buf()
}

fn python_bytes() -> Vec<u8> {
    let root = workspace_root();
    let out = Command::new("python3")
        .arg("-c")
        .arg(PROGRAM)
        .current_dir(&root)
        .env("PYTHONPATH", root.join("conformance"))
        .output()
        .unwrap_or_else(|e| panic!("this test needs `python3` on PATH (CI has it): cannot run it: {e}"));
    assert!(out.status.success(), "python3 failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn pretty(bytes: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn python_builder_and_kit_write_the_same_bytes() {
    let python = python_bytes();
    let kit = clir_testkit::Package::parse(NOTATION).expect("the notation parses").bytes();
    assert!(python == kit, "the builders differ:\n--- python\n{}\n--- kit\n{}", pretty(&python), pretty(&kit));
    assert!(clir_codegen::verify::verify_bytes(&kit, &Default::default()).ok(), "the package verifies");
}
