//! Packages the compiler must reject, each with its message pinned verbatim.
//!
//! Every package is written by hand, node by node, with correct contentHashes and canonical
//! bytes, so the only thing wrong with it is the one defect under test. The compile-stage cases
//! pass `verify_bytes` and fail `compile_document`; the parse-stage and reference cases fail
//! `verify_bytes` (and, where the model still parses, `compile_document` too). No input panics.
use clir_codegen::canonical::{canonical_bytes, node_content_hash, seal};
use clir_codegen::compile_document;
use clir_codegen::ir::Document;
use clir_codegen::verify::{verify_bytes, Report, VerifyOptions};
use serde_json::{json, Value};

const NS: &str = "urn:test:rejected";
const INTEGER: &str = "urn:law:std#Integer";

fn id(name: &str) -> String {
    format!("{NS}#{name}")
}

/// A type reference: `Integer` is the built-in, anything else a type of the package.
fn ty(name: &str) -> Value {
    if name == "Integer" {
        json!({ "name": INTEGER })
    } else {
        json!({ "name": id(name) })
    }
}

fn true_() -> Value {
    json!({ "kind": "boolean", "value": true })
}

// Terms.
fn var(v: &str) -> Value {
    json!({ "kind": "var", "var": v })
}
fn konst(name: &str) -> Value {
    json!({ "kind": "const_ref", "id": id(name) })
}
fn int(i: i64) -> Value {
    json!({ "kind": "value", "type": ty("Integer"), "value": i })
}

// Formulas.
fn lit(pred: &str, args: &[Value]) -> Value {
    json!({ "kind": "literal", "predicate": id(pred), "polarity": "positive", "args": args })
}
fn neg(pred: &str, args: &[Value]) -> Value {
    json!({ "kind": "literal", "predicate": id(pred), "polarity": "negative", "args": args })
}
fn status(s: &str, formula: Value) -> Value {
    json!({ "kind": "status", "status": s, "formula": formula })
}
fn cmp(op: &str, left: Value, right: Value) -> Value {
    json!({ "kind": "comparison", "op": op, "left": left, "right": right })
}

/// A package under construction: its nodes in document order.
#[derive(Default, Clone)]
struct Pkg {
    nodes: Vec<Value>,
}

impl Pkg {
    fn node(mut self, name: &str, kind: &str, fields: Value) -> Self {
        let mut n = json!({
            "id": id(name),
            "kind": kind,
            "package": NS,
            "labels": [{ "language": "en", "text": name }],
        });
        for (k, v) in fields.as_object().unwrap() {
            n[k] = v.clone();
        }
        self.nodes.push(n);
        self
    }

    fn type_decl(self, name: &str) -> Self {
        self.node(name, "type_decl", json!({ "name": name, "typeKind": "entity" }))
    }

    fn constant(self, name: &str, of: &str) -> Self {
        self.node(
            name,
            "symbol_decl",
            json!({
                "name": name, "symbolKind": "constant", "parameters": [], "returnType": ty(of),
                "value": { "kind": "entity_ref", "id": id(name) },
            }),
        )
    }

    /// A relation with `(parameter name, type)` parameters.
    fn relation(self, name: &str, kind: &str, params: &[(&str, &str)]) -> Self {
        let params: Vec<Value> = params
            .iter()
            .map(|(p, t)| json!({ "id": id(&format!("{name}/arg/{p}")), "name": p, "type": ty(t) }))
            .collect();
        self.node(
            name,
            "symbol_decl",
            json!({ "name": name, "symbolKind": "relation", "relationKind": kind, "parameters": params }),
        )
    }

    fn external(self, relation: &str, capability: &str) -> Self {
        self.node(
            &format!("{relation}/external"),
            "external_decl",
            json!({ "symbol": id(relation), "capability": capability, "effect": "judgment" }),
        )
    }

    /// A rule `head <- body` with `(variable, type)` variables.
    fn rule(self, name: &str, strength: &str, vars: &[(&str, &str)], head: Value, body: &[Value]) -> Self {
        let vars: Vec<Value> = vars.iter().map(|(v, t)| json!({ "id": v, "type": ty(t) })).collect();
        self.node(
            name,
            "rule",
            json!({
                "strength": strength, "variables": vars, "head": head,
                "body": { "kind": "and", "items": body },
                "scope": true_(), "interpretations": [], "anchors": [],
            }),
        )
    }

    fn priority(self, name: &str, higher: &str, lower: &str) -> Self {
        self.node(
            name,
            "priority_rule",
            json!({
                "higher": { "kind": "const_ref", "id": id(higher) },
                "lower": { "kind": "const_ref", "id": id(lower) },
                "condition": true_(), "priorityKind": "direct", "anchors": [],
            }),
        )
    }

    fn closure(self, name: &str, predicate: &str, domain: &str) -> Self {
        self.node(
            name,
            "closure_policy",
            json!({
                "predicate": id(predicate), "domain": { "kind": "const_ref", "id": id(domain) },
                "deriveExplicitNegative": true,
            }),
        )
    }

    /// The whole document, every contentHash computed.
    fn document(&self) -> Value {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut n = n.clone();
                n["contentHash"] = Value::String(node_content_hash(&n));
                n
            })
            .collect();
        json!({
            "schemaVersion": "law.core.ir/0.2",
            "package": {
                "name": "test.rejected", "namespace": NS, "version": "0.1.0",
                "semanticHash": format!("sha256:{}", "0".repeat(64)),
            },
            "semanticVersion": "0.1.0",
            "semanticHash": format!("sha256:{}", "1".repeat(64)),
            "features": ["core-executable"],
            "imports": [],
            "metadata": {},
            "strata": [],
            "nodes": nodes,
        })
    }

    /// Canonical bytes of the document.
    fn bytes(&self) -> Vec<u8> {
        canonical_bytes(&self.document())
    }
}

/// Types `Game` and `Player`, the empirical relations `started(game)` and
/// `player_of(game: Game, who: Player)`, and `moves(game, n: Integer)`.
fn base() -> Pkg {
    Pkg::default()
        .type_decl("Game")
        .type_decl("Player")
        .relation("started", "empirical", &[("game", "Game")])
        .relation("player_of", "empirical", &[("game", "Game"), ("who", "Player")])
        .relation("moves", "empirical", &[("game", "Game"), ("n", "Integer")])
}

fn verify(bytes: &[u8]) -> Report {
    verify_bytes(bytes, &VerifyOptions::default())
}

/// The Display text of diagnostics, one line per diagnostic.
fn lines(d: &clir_codegen::Diagnostics) -> Vec<String> {
    d.to_string().lines().map(str::to_string).collect()
}

/// The package verifies, and compiling it fails: the Display text of the diagnostics, by line.
fn compile_error(pkg: &Pkg) -> Vec<String> {
    let bytes = pkg.bytes();
    let report = verify(&bytes);
    assert!(report.ok(), "the package must verify; it fails with:\n{}", report.failures());
    let doc = report.into_document().expect("verified");
    match compile_document(&doc, &seal(&bytes)) {
        Ok(_) => panic!("the package compiled; it must be rejected"),
        Err(d) => lines(&d),
    }
}

/// The package fails verification: the Display text of its failures, by line.
fn verify_error(pkg: &Pkg) -> Vec<String> {
    let report = verify(&pkg.bytes());
    assert!(!report.ok(), "the package verified; it must be rejected");
    lines(&report.failures())
}

// ---------------------------------------------------------------------------------------------
// The packages.

/// `p` has rules for both signs, and `p <- q`, `q <- p`.
fn contested_in_own_cycle() -> Pkg {
    base()
        .relation("p", "institutional", &[("game", "Game")])
        .relation("q", "institutional", &[("game", "Game")])
        .rule("PFromQ", "defeasible", &[("g", "Game")], lit("p", &[var("g")]), &[lit("q", &[var("g")])])
        .rule("NotPWhenStarted", "defeasible", &[("g", "Game")], neg("p", &[var("g")]), &[lit("started", &[var("g")])])
        .rule("QFromP", "defeasible", &[("g", "Game")], lit("q", &[var("g")]), &[lit("p", &[var("g")])])
}

/// `p(g, w) <- started(g)`: `w` occurs only in the head.
fn unsafe_head_variable() -> Pkg {
    base().relation("p", "institutional", &[("game", "Game"), ("who", "Player")]).rule(
        "WinnerFromNowhere",
        "strict",
        &[("g", "Game"), ("w", "Player")],
        lit("p", &[var("g"), var("w")]),
        &[lit("started", &[var("g")])],
    )
}

/// `p(g) <- started(g), n >= 75`: `n` occurs only in the comparison.
fn unsafe_comparison_variable() -> Pkg {
    base().relation("p", "institutional", &[("game", "Game")]).rule(
        "DrawAfterUnboundMoves",
        "strict",
        &[("g", "Game"), ("n", "Integer")],
        lit("p", &[var("g")]),
        &[lit("started", &[var("g")]), cmp("ge", var("n"), int(75))],
    )
}

/// `p(g) <- player_of(w, g)`: a Player where `game: Game` is declared (and the reverse).
fn argument_type_mismatch() -> Pkg {
    base().relation("p", "institutional", &[("game", "Game")]).rule(
        "SwappedArguments",
        "strict",
        &[("g", "Game"), ("w", "Player")],
        lit("p", &[var("g")]),
        &[lit("player_of", &[var("w"), var("g")])],
    )
}

/// `p(Playing) <- started(75), Playing >= n`, with `Playing` a Game constant: every term of the
/// wrong type is reported, constants and integers included.
fn constant_and_integer_of_wrong_type() -> Pkg {
    base().constant("Playing", "Game").relation("p", "institutional", &[("game", "Game")]).rule(
        "WrongTerms",
        "strict",
        &[("g", "Game"), ("n", "Integer")],
        lit("p", &[konst("Playing")]),
        &[lit("started", &[int(75)]), lit("moves", &[var("g"), var("n")]), cmp("ge", konst("Playing"), var("n"))],
    )
}

/// As [`unsafe_comparison_variable`], the comparison nested in an `and` after a `true`: the
/// message points at the comparison's own path.
fn unsafe_comparison_variable_nested() -> Pkg {
    let nested = json!({ "kind": "and", "items": [true_(), cmp("lt", int(0), var("n"))] });
    base().relation("p", "institutional", &[("game", "Game")]).rule(
        "NestedUnbound",
        "strict",
        &[("g", "Game"), ("n", "Integer")],
        lit("p", &[var("g")]),
        &[true_(), lit("started", &[var("g")]), nested],
    )
}

/// `A > B` and `B > A`.
fn superiority_cycle() -> Pkg {
    base()
        .relation("p", "institutional", &[("game", "Game")])
        .rule("A", "defeasible", &[("g", "Game")], lit("p", &[var("g")]), &[lit("started", &[var("g")])])
        .rule("B", "defeasible", &[("g", "Game")], neg("p", &[var("g")]), &[lit("started", &[var("g")])])
        .priority("AOverB", "A", "B")
        .priority("BOverA", "B", "A")
}

/// `A > B`, `B > C`, `C > A`, and an acyclic `D > B` beside them.
fn superiority_three_cycle() -> Pkg {
    base()
        .relation("p", "institutional", &[("game", "Game")])
        .rule("A", "defeasible", &[("g", "Game")], lit("p", &[var("g")]), &[lit("started", &[var("g")])])
        .rule("B", "defeasible", &[("g", "Game")], neg("p", &[var("g")]), &[lit("started", &[var("g")])])
        .rule("C", "defeasible", &[("g", "Game")], lit("p", &[var("g")]), &[lit("started", &[var("g")])])
        .rule("D", "defeasible", &[("g", "Game")], lit("p", &[var("g")]), &[lit("started", &[var("g")])])
        .priority("DOverB", "D", "B")
        .priority("AOverB", "A", "B")
        .priority("BOverC", "B", "C")
        .priority("COverA", "C", "A")
}

/// A body item `{"kind":"status","status":"assumed",...}`.
fn unknown_status() -> Pkg {
    base().relation("p", "institutional", &[("game", "Game")]).rule(
        "AssumedStart",
        "strict",
        &[("g", "Game")],
        lit("p", &[var("g")]),
        &[status("assumed", lit("started", &[var("g")]))],
    )
}

/// `p` is closed over `started`, and a rule for `p` uses `~p`.
fn closure_negative_in_own_rule() -> Pkg {
    base()
        .relation("p", "institutional", &[("game", "Game")])
        .rule(
            "PUnlessNotP",
            "strict",
            &[("g", "Game")],
            lit("p", &[var("g")]),
            &[lit("started", &[var("g")]), neg("p", &[var("g")])],
        )
        .closure("PClosure", "p", "started")
}

/// `p` is closed over `started`; `q <- ~p` and `p <- q`: recursion through the closure negative.
fn closure_negative_through_recursion() -> Pkg {
    base()
        .relation("p", "institutional", &[("game", "Game")])
        .relation("q", "institutional", &[("game", "Game")])
        .rule("QFromNotP", "strict", &[("g", "Game")], lit("q", &[var("g")]), &[neg("p", &[var("g")])])
        .rule("PFromQ", "strict", &[("g", "Game")], lit("p", &[var("g")]), &[lit("q", &[var("g")])])
        .closure("PClosure", "p", "started")
}

/// A judgment relation no external_decl names.
fn judgment_without_external() -> Pkg {
    base()
        .relation("touched", "judgment", &[("who", "Player")])
        .relation("ruled_on", "judgment", &[("game", "Game")])
        .external("ruled_on", "judgment:Arbiter")
}

/// A constant whose returnType is no declared type.
fn constant_of_undeclared_type() -> Pkg {
    base().constant("Playing", "GameState")
}

/// Every package of this file, by name (for the no-panic sweep).
fn all() -> Vec<(&'static str, Pkg)> {
    vec![
        ("contested_in_own_cycle", contested_in_own_cycle()),
        ("unsafe_head_variable", unsafe_head_variable()),
        ("unsafe_comparison_variable", unsafe_comparison_variable()),
        ("argument_type_mismatch", argument_type_mismatch()),
        ("constant_and_integer_of_wrong_type", constant_and_integer_of_wrong_type()),
        ("unsafe_comparison_variable_nested", unsafe_comparison_variable_nested()),
        ("superiority_cycle", superiority_cycle()),
        ("superiority_three_cycle", superiority_three_cycle()),
        ("unknown_status", unknown_status()),
        ("closure_negative_in_own_rule", closure_negative_in_own_rule()),
        ("closure_negative_through_recursion", closure_negative_through_recursion()),
        ("judgment_without_external", judgment_without_external()),
        ("constant_of_undeclared_type", constant_of_undeclared_type()),
    ]
}

// ---------------------------------------------------------------------------------------------
// The pinned messages.

#[test]
fn the_base_package_compiles() {
    // Guards the helpers: every rejection below is due to its one defect.
    let pkg = base()
        .constant("Playing", "Game")
        .relation("p", "institutional", &[("game", "Game")])
        .relation("touched", "judgment", &[("who", "Player")])
        .external("touched", "judgment:Arbiter")
        .rule(
            "Ok",
            "strict",
            &[("g", "Game"), ("w", "Player"), ("n", "Integer")],
            lit("p", &[var("g")]),
            &[
                lit("player_of", &[var("g"), var("w")]),
                status("supported", lit("moves", &[var("g"), var("n")])),
                cmp("ge", var("n"), int(75)),
            ],
        );
    let bytes = pkg.bytes();
    let report = verify(&bytes);
    assert!(report.ok(), "{}", report.failures());
    compile_document(&report.into_document().unwrap(), &seal(&bytes)).unwrap();
}

#[test]
fn contested_predicate_inside_its_own_cycle() {
    assert_eq!(
        compile_error(&contested_in_own_cycle()),
        ["nodes[7]: predicate `p` is contested (rules exist for both signs) but depends on itself through rule `urn:test:rejected#PFromQ`: q -[urn:test:rejected#PFromQ]-> p, p -[urn:test:rejected#QFromP]-> q; every body predicate of a rule for a contested predicate must lie in a lower stratum (node urn:test:rejected#PFromQ)"]
    );
}

#[test]
fn unsafe_head_variable_is_named() {
    assert_eq!(
        compile_error(&unsafe_head_variable()),
        ["nodes[6].head: rule `urn:test:rejected#WinnerFromNowhere`: head variable `w` does not occur in a body literal (unsafe) (node urn:test:rejected#WinnerFromNowhere)"]
    );
}

#[test]
fn unsafe_comparison_variable_is_named() {
    assert_eq!(
        compile_error(&unsafe_comparison_variable()),
        ["nodes[6].body.items[1]: rule `urn:test:rejected#DrawAfterUnboundMoves`: comparison variable `n` does not occur in a body literal (unsafe) (node urn:test:rejected#DrawAfterUnboundMoves)"]
    );
}

#[test]
fn unsafe_comparison_variable_in_a_nested_and() {
    assert_eq!(
        compile_error(&unsafe_comparison_variable_nested()),
        ["nodes[6].body.items[2].items[1]: rule `urn:test:rejected#NestedUnbound`: comparison variable `n` does not occur in a body literal (unsafe) (node urn:test:rejected#NestedUnbound)"]
    );
}

#[test]
fn argument_type_mismatch_names_rule_relation_parameter_and_variable() {
    // Both swapped arguments are reported, and nothing else: in particular not `g` as an unsafe
    // head variable (it is bound by the very literal that failed to type-check).
    assert_eq!(
        compile_error(&argument_type_mismatch()),
        [
            "nodes[6].body.items[0].args[0]: rule `urn:test:rejected#SwappedArguments`: argument `game` of `player_of` is variable `w` of type `Player`, but `Game` is expected (node urn:test:rejected#SwappedArguments)",
            "nodes[6].body.items[0].args[1]: rule `urn:test:rejected#SwappedArguments`: argument `who` of `player_of` is variable `g` of type `Game`, but `Player` is expected (node urn:test:rejected#SwappedArguments)",
        ]
    );
}

#[test]
fn constants_and_integers_of_the_wrong_type() {
    assert_eq!(
        compile_error(&constant_and_integer_of_wrong_type()),
        [
            "nodes[7].body.items[0].args[0]: rule `urn:test:rejected#WrongTerms`: argument `game` of `started` is the integer 75 of type `Integer`, but `Game` is expected (node urn:test:rejected#WrongTerms)",
            "nodes[7].body.items[2].left: rule `urn:test:rejected#WrongTerms`: the left side of a comparison is constant `Playing` of type `Game`, but `Integer` is expected (node urn:test:rejected#WrongTerms)",
        ]
    );
}

#[test]
fn superiority_cycle_is_spelled_out() {
    assert_eq!(
        compile_error(&superiority_cycle()),
        ["nodes[8]: the superiority relation is cyclic: `urn:test:rejected#A` > `urn:test:rejected#B` > `urn:test:rejected#A`, by priority rules `urn:test:rejected#AOverB`, `urn:test:rejected#BOverA` (node urn:test:rejected#AOverB)"]
    );
}

#[test]
fn longer_superiority_cycle_is_spelled_out_in_order() {
    assert_eq!(
        compile_error(&superiority_three_cycle()),
        ["nodes[11]: the superiority relation is cyclic: `urn:test:rejected#A` > `urn:test:rejected#B` > `urn:test:rejected#C` > `urn:test:rejected#A`, by priority rules `urn:test:rejected#AOverB`, `urn:test:rejected#BOverC`, `urn:test:rejected#COverA` (node urn:test:rejected#AOverB)"]
    );
}

#[test]
fn unknown_status_fails_verification() {
    // The model does not parse, so the `parse` check of verification reports it.
    assert_eq!(
        verify_error(&unknown_status()),
        [r#"nodes[6].body.items[0].status: unknown status "assumed" (node urn:test:rejected#AssumedStart)"#]
    );
}

#[test]
fn closure_negative_used_by_a_rule_for_its_own_predicate() {
    assert_eq!(
        compile_error(&closure_negative_in_own_rule()),
        ["nodes[6]: rule `urn:test:rejected#PUnlessNotP` uses the closure negative `~p` (closure `urn:test:rejected#PClosure`) in the closure's own stratum: p -[urn:test:rejected#PUnlessNotP]-> p; a closure negative may only be used above its predicate (node urn:test:rejected#PUnlessNotP)"]
    );
}

#[test]
fn closure_negative_used_through_recursion() {
    assert_eq!(
        compile_error(&closure_negative_through_recursion()),
        ["nodes[7]: rule `urn:test:rejected#QFromNotP` uses the closure negative `~p` (closure `urn:test:rejected#PClosure`) in the closure's own stratum: p -[urn:test:rejected#QFromNotP]-> q, q -[urn:test:rejected#PFromQ]-> p; a closure negative may only be used above its predicate (node urn:test:rejected#QFromNotP)"]
    );
}

#[test]
fn judgment_relation_without_external_decl() {
    // `ruled_on` has its external_decl; only `touched` is reported.
    assert_eq!(
        compile_error(&judgment_without_external()),
        ["nodes[5]: judgment relation `touched` has no external_decl naming its capability (node urn:test:rejected#touched)"]
    );
}

#[test]
fn constant_of_an_undeclared_type() {
    let pkg = constant_of_undeclared_type();
    // Verification rejects the dangling type reference ...
    assert_eq!(
        verify_error(&pkg),
        ["nodes[5].returnType.name: unknown type urn:test:rejected#GameState: no node declares it (node urn:test:rejected#Playing)"]
    );
    // ... and the compiler, given the parsed model anyway, rejects the constant itself.
    let bytes = pkg.bytes();
    let doc = Document::parse(&bytes).expect("the model parses");
    assert_eq!(
        lines(&compile_document(&doc, &seal(&bytes)).unwrap_err()),
        ["nodes[5].returnType: constant `Playing` must have a declared entity type, found `urn:test:rejected#GameState` (node urn:test:rejected#Playing)"]
    );
}

#[test]
fn no_rejected_input_panics() {
    for (name, pkg) in all() {
        let bytes = pkg.bytes();
        let outcome = std::panic::catch_unwind(|| {
            let report = verify(&bytes);
            let verified = report.ok();
            let compiled = match Document::parse(&bytes) {
                Ok(doc) => compile_document(&doc, &seal(&bytes)).is_ok(),
                Err(_) => false,
            };
            (verified, compiled)
        });
        match outcome {
            Ok((_, compiled)) => assert!(!compiled, "{name}: compiled, but must be rejected"),
            Err(_) => panic!("{name}: the compiler panicked"),
        }
    }
}
