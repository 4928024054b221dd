//! The synthetic packages of `examples/synthetic.rs` verify and compile, with the shape the
//! generator promises.

#[path = "../examples/synthetic/generator.rs"]
mod generator;

use clir_testkit::Node;

#[test]
fn a_synthetic_package_of_60_rules_verifies_and_compiles() {
    let pkg = generator::package(60, 1);
    let count = |f: &dyn Fn(&Node) -> bool| pkg.nodes.iter().filter(|n| f(n)).count();
    assert_eq!(count(&|n| matches!(n, Node::Rule(_))), 60);
    assert_eq!(count(&|n| matches!(n, Node::Type { .. })), 8);
    assert!(count(&|n| matches!(n, Node::Priority { .. })) > 0);
    assert!(count(&|n| matches!(n, Node::Closure { .. })) > 0);
    let strengths: Vec<&str> = pkg
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Rule(r) => Some(r.strength.as_str()),
            _ => None,
        })
        .collect();
    for s in ["strict", "defeasible", "defeater"] {
        assert!(strengths.contains(&s), "a {s} rule");
    }
    let notation = generator::notation(60, 1);
    let bodies: Vec<&str> = notation.lines().filter_map(|l| l.split_once(" :- ").map(|(_, body)| body)).collect();
    assert!(bodies.iter().any(|b| b.contains("not ")), "negation as failure");
    assert!(bodies.iter().any(|b| b.starts_with('~') || b.contains(", ~")), "strong negation");
    assert!(bodies.iter().any(|b| [" >= ", " > ", " < ", " <= "].iter().any(|op| b.contains(op))), "comparisons");

    let bytes = pkg.bytes();
    assert_eq!(bytes, generator::package(60, 1).bytes(), "deterministic");
    assert_ne!(bytes, generator::package(60, 2).bytes(), "the seed matters");
    let seal = clir_codegen::canonical::seal(&bytes);
    let report = clir_codegen::verify::verify_bytes(&bytes, &Default::default());
    let verified = report.into_document().unwrap_or_else(|d| panic!("verifies: {d:?}"));
    let code = clir_codegen::compile_document(&verified, &seal).unwrap_or_else(|d| panic!("compiles: {d:?}"));
    assert!(code.contains("chain_"), "the transitive relation is generated");
}
