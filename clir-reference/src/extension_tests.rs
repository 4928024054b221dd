//! EXTENSIONS.md §1-3 (negation as failure, Strings, Integer arithmetic): small packages whose
//! rulings are derived by hand from the text, and the packages the evaluator must refuse.

use crate::explanations::Checker;
use crate::{evaluate, Reference};
use clir_codegen::ir::Document;
use clir_testkit::Package;
use serde_json::{json, Value};

fn doc(notation: &str) -> Document {
    let pkg = Package::parse(notation).unwrap_or_else(|e| panic!("{e}"));
    Document::parse(&pkg.bytes()).expect("the kit's bytes parse")
}

/// The ruling of one case `c` with `facts`; panics on an error line.
fn rule(notation: &str, facts: Value) -> Value {
    let out = evaluate(&doc(notation), &json!({"case": "c", "facts": facts}), &[]);
    assert!(out.get("error").is_none(), "unexpected error: {out}");
    out
}

const NAF: &str = r#"
package test.naf 0.1.0
features negation-as-failure
type Person
empirical person(who: Person)
empirical suspect(who: Person)
empirical alibi(who: Person)
empirical banned(who: Person, by: Person)
empirical verified(who: Person)
institutional accused(who: Person)
institutional clear(who: Person)
institutional free(who: Person)
institutional trusted(who: Person)
rule Accuse defeasible: accused(p) :- suspect(p)
rule Alibi defeater: ~accused(p) :- alibi(p)
rule Clear strict: clear(p) :- person(p), not accused(p)
rule Free defeasible: free(p) :- person(p), not banned(p, q)
rule Trust defeasible: trusted(p) :- person(p), not ~verified(p)
"#;

/// `not L` holds when `L` is not `+d`: a literal only supported (attacked by a defeater) does
/// not block it; a strict rule with definite premises and a negation is `+D`; a variable only
/// the negation has means "no such value"; `not ~p` reads the strong negation's `+d`.
#[test]
fn negation_as_failure_reads_the_concluded_layer() {
    let out = rule(
        NAF,
        json!({
            "person": [["ann"], ["bob"], ["cy"]],
            "suspect": [["ann"], ["bob"]],
            "alibi": [["bob"]],
            "banned": [["ann", "bob"]],
            "~verified": [["cy"]],
        }),
    );
    // accused(ann) is concluded; accused(bob) is supported, but the defeater blocks it.
    assert_eq!(out["concluded"]["accused"], json!([["ann"]]), "{out}");
    assert_eq!(out["concluded"]["clear"], json!([["bob"], ["cy"]]), "{out}");
    assert_eq!(out["definite"]["clear"], json!([["bob"], ["cy"]]), "{out}");
    assert_eq!(out["concluded"]["free"], json!([["bob"], ["cy"]]), "{out}");
    assert!(out["definite"].get("free").is_none(), "{out}");
    assert_eq!(out["concluded"]["trusted"], json!([["ann"], ["bob"]]), "{out}");
}

#[test]
fn a_cycle_through_negation_is_refused() {
    let err = Reference::new(&doc(
        "package test.cycle 0.1.0\nfeatures negation-as-failure\ntype Person\nempirical person(who: Person)\n\
         institutional a(who: Person)\ninstitutional b(who: Person)\n\
         rule A defeasible: a(p) :- person(p), not b(p)\nrule B defeasible: b(p) :- person(p), not a(p)",
    ))
    .unwrap_err();
    assert!(err.contains("cycle through negation"), "{err}");
}

const STRINGS: &str = r#"
package test.strings 0.1.0
features string-values
type Person
empirical role(who: Person, title: String)
empirical flagged(title: String)
institutional officer(who: Person)
institutional titled(who: Person, title: String)
rule Officer strict: officer(p) :- role(p, "officer")
rule Titled defeasible: titled(p, t) :- role(p, t)
"#;

/// A String is its text: equal when its bytes are, sorted by them, echoed as given, and written
/// inside a literal as an entity name is (quoted when it holds white space).
#[test]
fn strings_compare_by_their_bytes() {
    let out = rule(
        STRINGS,
        json!({
            "role": [["ann", "officer"], ["bob", "Officer"], ["cy", "officer "], ["ann", "clerk"]],
            "flagged": [["a b"]],
            "~flagged": [["a b"]],
        }),
    );
    assert_eq!(out["concluded"]["officer"], json!([["ann"]]), "{out}");
    assert_eq!(
        out["concluded"]["titled"],
        json!([["ann", "clerk"], ["ann", "officer"], ["bob", "Officer"], ["cy", "officer "]]),
        "{out}"
    );
    assert_eq!(out["contradictions"], json!(["flagged(\"a b\")"]), "{out}");
}

#[test]
fn a_string_column_takes_only_json_strings() {
    let out = evaluate(&doc(STRINGS), &json!({"case": "c", "facts": {"flagged": [[1]]}}), &[]);
    assert_eq!(out["error"], "relation `flagged`: argument `title` must be a String (a JSON string), got 1", "{out}");
}

const ARITH: &str = r#"
package test.arith 0.1.0
features integer-arithmetic
type Account
empirical balance(a: Account, n: Integer)
empirical fee(a: Account, f: Integer)
institutional after_fee(a: Account, n: Integer)
institutional overdrawn(a: Account)
institutional scaled(a: Account, n: Integer)
rule After strict: after_fee(a, n - f) :- balance(a, n), fee(a, f)
rule Over defeasible: overdrawn(a) :- balance(a, n), fee(a, f), n - f < 0
rule Scaled strict: scaled(a, (n + 1) * 2) :- balance(a, n)
"#;

/// Arithmetic is 64-bit two's complement and wraps on overflow, in heads and in comparisons.
#[test]
fn arithmetic_wraps_around() {
    let max = i64::MAX;
    let out = rule(
        ARITH,
        json!({
            "balance": [["x", max], ["y", 10]],
            "fee": [["x", -1], ["y", 3]],
        }),
    );
    // max - (-1) wraps to i64::MIN; (max + 1) * 2 = MIN * 2 wraps to 0; (10 + 1) * 2 = 22.
    assert_eq!(out["definite"]["after_fee"], json!([["x", i64::MIN], ["y", 7]]), "{out}");
    assert_eq!(out["definite"]["scaled"], json!([["x", 0], ["y", 22]]), "{out}");
    // x's balance after the fee is i64::MIN: below 0, so x is overdrawn.
    assert_eq!(out["concluded"]["overdrawn"], json!([["x"]]), "{out}");
}

#[test]
fn arithmetic_inside_a_body_literal_and_unbound_variables_are_refused() {
    let head = "package test.bad 0.1.0\nfeatures integer-arithmetic\ntype Account\n\
                empirical balance(a: Account, n: Integer)\ninstitutional rich(a: Account)\n";
    let inside = Reference::new(&doc(&format!("{head}rule R strict: rich(a) :- balance(a, n + 1)"))).unwrap_err();
    assert!(inside.contains("rule urn:test:bad#R: arithmetic inside a body literal"), "{inside}");
    let unbound = Reference::new(&doc(&format!("{head}rule R strict: rich(a) :- balance(b, n), n > 5"))).unwrap_err();
    assert!(unbound.contains("variable a is not bound"), "{unbound}");
}

const CHECKED: &str = r#"
package test.checked 0.1.0
features integer-arithmetic negation-as-failure
type Account
empirical balance(a: Account, n: Integer)
empirical start(a: Account, n: Integer)
empirical frozen(a: Account)
institutional next(a: Account, n: Integer)
rule Next strict: next(a, n + 1) :- balance(a, n), not frozen(a)
rule Start strict: next(a, n) :- start(a, n)
"#;

/// The explanation checker evaluates a head's arithmetic and the negations of the rule it cites.
#[test]
fn explanations_with_arithmetic_and_negation_are_checked() {
    let doc = doc(CHECKED);
    let id = |r: &str| format!("urn:test:checked#{r}");
    let fact = |l: &str| json!({"literal": l, "definite": true, "fact": "input"});
    let node = |lit: &str, rule: &str, premise: &str| {
        json!({"literal": lit, "definite": true, "rule": id(rule), "strength": "strict", "label": "",
               "articles": [], "premises": [fact(premise)]})
    };
    let case = json!({"case": "c", "facts": {
        "balance": [["x", i64::MAX], ["y", 1]], "start": [["y", 2]], "frozen": [["y"]]}});
    let min = format!("next(x,{})", i64::MIN);
    let ruling = |explanation: Value| {
        json!({"case": "c", "explanations": {
            min.clone(): node(&min, "Next", &format!("balance(x,{})", i64::MAX)),
            "next(y,2)": explanation,
        }})
    };
    let checker = Checker::new(&doc);
    let sound = checker.check(&case, &[], &ruling(node("next(y,2)", "Start", "start(y,2)")));
    assert_eq!((sound.checked, sound.unsound.len()), (2, 0), "{:?}", sound.unsound);
    // next(y,2) is 1 + 1 by Next, but y is frozen: `not frozen(y)` fails.
    let frozen = checker.check(&case, &[], &ruling(node("next(y,2)", "Next", "balance(y,1)")));
    assert_eq!(frozen.unsound.len(), 1, "{:?}", frozen.unsound);
    assert!(frozen.unsound[0].1.contains("no substitution makes rule"), "{:?}", frozen.unsound);
}
