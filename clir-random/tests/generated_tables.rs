//! The generated tables of every random and demo package (`CODEC`, issue 27) read and write
//! exactly what the runtime's generic reader and writer do: the same ruling and error lines,
//! byte for byte, with and without explanations and certificates. fide.laws.chess is held to
//! the same in the root crate's tests/generated_reader.rs.

// Not every helper of the shared module is used here.
#[allow(dead_code)]
mod support;

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_codegen::ir::Document;
use serde_json::Value;

/// Rules `cases` through the package's generated tables and through the generic ones, with
/// each set of options; returns the lines compared.
fn compare(name: &str, pkg: &dyn clir::Package, cases: &[Value]) -> usize {
    let generated = Catalog::of(pkg);
    assert!(generated.generated(), "{name}: the compiled package's tables agree with its schema");
    let generic = Catalog::new(pkg.schema());
    let mut lines: Vec<(usize, String)> = cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
    // Lines the fast paths give up on, and lines with errors, alongside the random cases.
    let n = lines.len();
    lines.extend(
        [
            r#"{"case":"bad","facts":{"no_such_relation":[["x"]]}}"#,
            r#"{"case":7}"#,
            "not json",
            r#"{"facts":{},"case":"e"}"#,
        ]
        .iter()
        .enumerate()
        .map(|(i, l)| (n + i + 1, l.to_string())),
    );
    let grants = support::grants(pkg);
    for opts in [
        Options::default(),
        Options { grants: grants.clone(), explain: true, ..Default::default() },
        Options { grants, certify: true, strict_constants: true, ..Default::default() },
    ] {
        let (a, _) = rule_chunk(pkg, &generated, &lines, &opts);
        let (b, _) = rule_chunk(pkg, &generic, &lines, &opts);
        assert_eq!(a.len(), lines.len(), "{name}: one line per case");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(x, y, "{name}, line {}: {}", i + 1, lines[i].1);
        }
    }
    lines.len()
}

#[test]
fn generated_tables_rule_every_random_and_demo_package_alike() {
    let mut compared = 0;
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        compared += compare(&format!("package seed {seed}"), pkg, &support::random_cases(seed, &doc, 2));
    }
    for &(name, bytes, pkg) in clir_random::DEMOS {
        let doc = Document::parse(bytes).expect("parses");
        compared += compare(name, pkg, &support::demo_cases(name, &doc, 1));
    }
    eprintln!("{compared} lines ruled alike, three ways each");
    assert!(compared > clir_random::PACKAGES.len() * 4);
}
