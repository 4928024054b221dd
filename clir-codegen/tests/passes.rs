//! The passes after verification, one at a time, on small packages in the test kit's notation:
//! `resolve` (names, types, variables, safety), `strata` (dependency graph, contested
//! predicates, closures, collapsed layers) and `plan` (join order, accesses, views, checks,
//! fixpoints). The assertions are on the passes' data, never on message texts.

use clir_codegen::diag::Diagnostic;
use clir_codegen::ir::{ArithOp, CmpOp, Document, RelationKind, Status, Strength};
use clir_codegen::plan::{plan_rule, Access, Read, RulePlan, Shape};
use clir_codegen::resolve::{resolve, Program, RItem, RLiteral, RRule, RTerm, Ty};
use clir_codegen::strata::{stratify, Strata};
use clir_codegen::verify::{verify_bytes, Verified, VerifyOptions};
use clir_testkit::Package;

/// The verified document of a package in the notation.
fn document(text: &str) -> Verified {
    let pkg = Package::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify_bytes(&pkg.bytes(), &VerifyOptions::default()).into_document().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The resolved program of a package in the notation, which must resolve.
fn program(text: &str) -> Program {
    resolve(&document(text)).unwrap_or_else(|e| panic!("does not resolve: {e}\n{text}"))
}

/// The diagnostics `resolve` rejects the package with.
fn resolve_errors(text: &str) -> Vec<Diagnostic> {
    match resolve(&document(text)) {
        Ok(_) => panic!("resolves, but should not:\n{text}"),
        Err(e) => e.0,
    }
}

/// The program and its strata; both must succeed.
fn stratified(text: &str) -> (Program, Strata) {
    let p = program(text);
    let s = stratify(&p).unwrap_or_else(|e| panic!("does not stratify: {e}\n{text}"));
    (p, s)
}

fn rel(p: &Program, name: &str) -> usize {
    p.relations.iter().position(|r| r.name == name).unwrap_or_else(|| panic!("no relation {name}"))
}

fn rule_ix(p: &Program, local: &str) -> usize {
    let suffix = format!("#{local}");
    p.rules.iter().position(|r| r.id.ends_with(&suffix)).unwrap_or_else(|| panic!("no rule {local}"))
}

fn rule<'p>(p: &'p Program, local: &str) -> &'p RRule {
    &p.rules[rule_ix(p, local)]
}

fn var(r: &RRule, name: &str) -> usize {
    r.vars.iter().position(|v| v.0 == name).unwrap_or_else(|| panic!("no variable {name} in {}", r.id))
}

/// The names of the relations of each stratum, in evaluation order.
fn stratum_names(p: &Program, s: &Strata) -> Vec<Vec<String>> {
    s.strata.iter().map(|st| st.rels.iter().map(|&r| p.relations[r].name.clone()).collect()).collect()
}

// ----- resolve -----

const CHESS: &str = "
package t.resolve 0.1.0
type Game
type Player
const White: Player
empirical moves(game: Game, n: Integer)
judgment touched(who: Player) by judgment:Arbiter
institutional won(game: Game, who: Player)
rule W defeasible [g: Game, n: Integer, p: Player]:
    won(g, White) :- moves(g, n), n >= 75, supported touched(p), ~won(g, p)
rule Beats defeasible: ~won(g, p) :- moves(g, n), touched(p)
priority P: W > Beats
closure C: won over won2
empirical won2(Game, Player)
";

#[test]
fn resolve_indexes_types_constants_and_relations() {
    let p = program(CHESS);
    let types: Vec<&str> = p.types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(types, ["Game", "Player"]);
    assert_eq!(p.constants.len(), 1);
    assert_eq!((p.constants[0].name.as_str(), p.constants[0].ty), ("White", 1));
    assert_eq!(p.constants[0].id, "urn:t:resolve#White");

    let moves = &p.relations[rel(&p, "moves")];
    assert_eq!(moves.id, "urn:t:resolve#moves");
    assert_eq!(moves.kind, RelationKind::Empirical);
    assert_eq!(moves.params, [("game".to_string(), Ty::Entity(0)), ("n".to_string(), Ty::Integer)]);
    assert_eq!(moves.capability, None);

    let touched = &p.relations[rel(&p, "touched")];
    assert_eq!(touched.kind, RelationKind::Judgment);
    assert_eq!(touched.params, [("who".to_string(), Ty::Entity(1))]);
    assert_eq!(touched.capability.as_deref(), Some("judgment:Arbiter"));

    let won = &p.relations[rel(&p, "won")];
    assert_eq!(won.kind, RelationKind::Institutional);
    assert_eq!(won.params.iter().map(|x| x.1).collect::<Vec<_>>(), [Ty::Entity(0), Ty::Entity(1)]);
    // Relations are indexed in document order, declared after use or not.
    assert_eq!(rel(&p, "won2"), p.relations.len() - 1);
}

#[test]
fn resolve_turns_a_rule_into_indexed_items_and_terms() {
    let p = program(CHESS);
    let r = rule(&p, "W");
    assert_eq!(r.id, "urn:t:resolve#W");
    assert_eq!(r.strength, Strength::Defeasible);
    assert!(!r.never);
    assert_eq!(
        r.vars,
        [("g".to_string(), Ty::Entity(0)), ("n".to_string(), Ty::Integer), ("p".to_string(), Ty::Entity(1))]
    );
    let (g, n, pl) = (var(r, "g"), var(r, "n"), var(r, "p"));
    let (moves, touched, won) = (rel(&p, "moves"), rel(&p, "touched"), rel(&p, "won"));
    assert_eq!(r.head, RLiteral { rel: won, negative: false, args: vec![RTerm::Var(g), RTerm::Const(0)] });
    assert_eq!(r.body.len(), 4);
    assert!(matches!(&r.body[0], RItem::Literal(Status::Established, l)
        if *l == RLiteral { rel: moves, negative: false, args: vec![RTerm::Var(g), RTerm::Var(n)] }));
    assert!(matches!(r.body[1], RItem::Comparison(CmpOp::Ge, RTerm::Var(v), RTerm::Int(75)) if v == n));
    assert!(matches!(&r.body[2], RItem::Literal(Status::Supported, l)
        if *l == RLiteral { rel: touched, negative: false, args: vec![RTerm::Var(pl)] }));
    assert!(matches!(&r.body[3], RItem::Literal(Status::Established, l)
        if *l == RLiteral { rel: won, negative: true, args: vec![RTerm::Var(g), RTerm::Var(pl)] }));
    // Strongly negated literals bind, like positive ones.
    assert_eq!(r.bound_vars(), [g, n, pl]);
    assert_eq!(r.filter_vars(&r.body[1]), [n]);

    let beats = rule(&p, "Beats");
    assert!(beats.head.negative);
    // Without `[..]`, variables are typed by the first parameter they fill.
    assert_eq!(beats.vars.iter().map(|v| v.1).collect::<Vec<_>>(), [Ty::Entity(0), Ty::Entity(1), Ty::Integer]);
}

#[test]
fn resolve_links_priorities_and_closures_by_index() {
    let p = program(CHESS);
    assert_eq!(p.superiority.len(), 1);
    let s = &p.superiority[0];
    assert_eq!(s.id, "urn:t:resolve#P");
    assert_eq!((s.higher, s.lower), (rule_ix(&p, "W"), rule_ix(&p, "Beats")));
    assert_eq!(p.closures.len(), 1);
    let c = &p.closures[0];
    assert_eq!((c.rel, c.domain), (rel(&p, "won"), rel(&p, "won2")));
    assert_eq!((c.snapshot.as_deref(), c.complete_as_of.as_deref()), (None, None));

    let p = program(
        "package t.closure 0.1.0
         empirical d(Integer)
         institutional c(Integer)
         rule R strict: c(x) :- d(x)
         closure K: c over d asof \"2024-01-01T00:00:00Z\" snapshot urn:snap:1",
    );
    let c = &p.closures[0];
    assert_eq!(c.id, "urn:t:closure#K");
    assert_eq!(c.snapshot.as_deref(), Some("urn:snap:1"));
    assert_eq!(c.complete_as_of.as_deref(), Some("2024-01-01T00:00:00Z"));
}

#[test]
fn resolve_keeps_negation_locals_and_arithmetic_in_the_head() {
    let p = program(
        "package t.naf 0.1.0
         features negation-as-failure integer-arithmetic
         empirical person(Integer)
         empirical banned(Integer, Integer)
         institutional next(Integer)
         rule R strict: next(x + 1) :- person(x), not banned(x, y), x < 10",
    );
    let r = rule(&p, "R");
    let (x, y) = (var(r, "x"), var(r, "y"));
    assert_eq!(r.head.args, [RTerm::Arith(0)]);
    assert_eq!(r.ariths, [(ArithOp::Add, RTerm::Var(x), RTerm::Int(1))]);
    let mut head_vars = Vec::new();
    r.term_vars(r.head.args[0], &mut head_vars);
    assert_eq!(head_vars, [x]);
    assert!(matches!(&r.body[1], RItem::Not(l) if l.rel == rel(&p, "banned") && l.vars() == [x, y]));
    // `y` is local to the negation: only the positive literals bind, and the negation needs
    // just what they bind.
    assert_eq!(r.bound_vars(), [x]);
    assert_eq!(r.filter_vars(&r.body[1]), [x]);
    assert_eq!(r.filter_vars(&r.body[2]), [x]);
}

/// The (check, code, node local id) of each diagnostic.
fn shape(errs: &[Diagnostic]) -> Vec<(&'static str, Option<&'static str>, String)> {
    errs.iter()
        .map(|d| (d.check, d.code, d.node.as_deref().and_then(|n| n.rsplit('#').next()).unwrap_or("").to_string()))
        .collect()
}

const SAFETY: &str = "
package t.safety 0.1.0
features negation-as-failure
empirical a(Integer)
empirical b(Integer, Integer)
institutional p(Integer)
";

#[test]
fn resolve_accepts_safe_rules() {
    let p = program(&format!(
        "{SAFETY}
         rule Bound strict: p(x) :- a(x)
         rule Strong strict: p(x) :- ~a(x)
         rule Compared strict: p(x) :- b(x, y), x < y
         rule Local strict: p(x) :- a(x), not b(x, y)
         rule Fact strict: p(3)"
    ));
    assert_eq!(p.rules.len(), 5);
    assert!(rule(&p, "Fact").body.is_empty());
}

#[test]
fn resolve_rejects_unsafe_variables_with_their_codes() {
    let cases = [
        ("rule U strict: p(x) :- a(y)", "unbound_variable"),
        ("rule U strict: p(x) :- a(y), x > 1", "unbound_variable"),
        ("rule U strict: p(y) :- a(x), not b(x, y)", "unbound_variable"),
        ("rule U strict: p(z) :- a(z), not b(z, x), not b(x, z)", "unbound_variable"),
        ("rule U strict [_: Integer, x: Integer]: p(_) :- a(x)", "safety_violations"),
    ];
    for (rule, code) in cases {
        let errs = resolve_errors(&format!("{SAFETY}\n{rule}"));
        assert!(!errs.is_empty(), "{rule}");
        for s in shape(&errs) {
            assert_eq!(s, ("resolve", Some(code), "U".to_string()), "{rule}");
        }
    }
}

/// The validator's findings for a package in the notation (which must parse).
fn validation_errors(text: &str) -> Vec<Diagnostic> {
    let pkg = Package::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let doc = Document::parse(&pkg.bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    clir_codegen::validate::validate(&doc).diagnostics
}

#[test]
fn the_validator_rejects_wrong_types_arity_and_names() {
    let base = "
package t.types 0.1.0
type Game
type Player
const White: Player
empirical g(Game)
institutional p(Game)
";
    let cases = [
        ("rule U strict: p(White) :- g(White)", Some("type_mismatch")),
        ("rule U strict [x: Integer]: p(x) :- g(x)", Some("type_mismatch")),
        ("rule U strict [x: Game]: p(x) :- g(x), x > 1", Some("type_mismatch")),
        ("rule U strict: p(x) :- g(x, x)", Some("arity_mismatch")),
        ("rule U strict: p(x) :- nothing(x)", None),
    ];
    for (rule, code) in cases {
        let errs = validation_errors(&format!("{base}\n{rule}"));
        assert!(shape(&errs).iter().any(|s| *s == ("references", code, "U".to_string())), "{rule}: {:?}", shape(&errs));
        // Verification fails, so the passes after it never see the package.
        let bytes = Package::parse(&format!("{base}\n{rule}")).unwrap().bytes();
        assert!(verify_bytes(&bytes, &VerifyOptions::default()).into_document().is_err(), "{rule}");
    }
    // A name declared twice, and a closure whose domain has other parameter types.
    let errs = validation_errors(&format!("{base}\ninstitutional p(Game) id p2"));
    assert_eq!(shape(&errs), [("references", None, "p2".to_string())]);
    assert!(validation_errors(&format!("{base}\nclosure C: p over g")).is_empty());
    let errs = validation_errors(&format!("{base}\ninstitutional g2(Player)\nclosure C: p over g2"));
    assert_eq!(shape(&errs), [("references", None, "C".to_string())]);
}

// ----- strata -----

const REACH: &str = "
package t.strata 0.1.0
type Node
empirical edge(Node, Node)
institutional reach(Node, Node)
institutional back(Node, Node)
institutional top(Node)
rule R1 strict: reach(x, y) :- edge(x, y)
rule R2 strict: reach(x, z) :- back(x, y), edge(y, z)
rule R3 STRENGTH: back(x, y) :- reach(y, x)
rule T strict: top(x) :- reach(x, x)
";

#[test]
fn recursion_through_uncontested_predicates_is_one_recursive_stratum() {
    let (p, s) = stratified(&REACH.replace("STRENGTH", "defeasible"));
    assert_eq!(stratum_names(&p, &s), [vec!["edge"], vec!["reach", "back"], vec!["top"]]);
    let mid = &s.strata[1];
    assert!(mid.recursive && !mid.contested);
    let mut rules = mid.rules.clone();
    rules.sort();
    assert_eq!(rules, [rule_ix(&p, "R1"), rule_ix(&p, "R2"), rule_ix(&p, "R3")]);
    assert!(!s.strata[0].recursive && s.strata[0].rules.is_empty());
    assert!(!s.strata[2].recursive);
    assert_eq!(s.strata[2].rules, [rule_ix(&p, "T")]);
    for (i, st) in s.strata.iter().enumerate() {
        for &r in &st.rels {
            assert_eq!(s.rels[r].stratum, i);
            assert!(!s.rels[r].contested);
        }
    }
    assert!(s.rels[rel(&p, "edge")].input && !s.rels[rel(&p, "reach")].input);
}

#[test]
fn a_contested_predicate_uses_only_lower_strata() {
    let (p, s) = stratified(
        "package t.contested 0.1.0
         empirical a(Integer)
         empirical b(Integer)
         institutional q(Integer)
         institutional d(Integer)
         institutional e(Integer)
         rule Q strict: q(x) :- a(x)
         rule D1 defeasible: d(x) :- q(x)
         rule D2 defeasible: ~d(x) :- b(x), q(x)
         rule E defeasible: e(x) :- a(x)
         rule X defeater: ~e(x) :- b(x)",
    );
    let (d, e) = (rel(&p, "d"), rel(&p, "e"));
    // Rules for both signs, or a defeater alone, make a predicate contested.
    assert!(s.rels[d].contested && s.rels[e].contested && !s.rels[rel(&p, "q")].contested);
    assert_eq!(s.rels[d].has_rules, [true, true]);
    assert_eq!(s.rels[e].has_rules, [true, true]);
    for c in [d, e] {
        let st = &s.strata[s.rels[c].stratum];
        assert!(st.contested && !st.recursive);
        assert_eq!(st.rels, [c]);
        for &ri in &st.rules {
            assert_eq!(p.rules[ri].head.rel, c);
            for item in &p.rules[ri].body {
                if let RItem::Literal(_, l) = item {
                    assert!(s.rels[l.rel].stratum < s.rels[c].stratum, "{}", p.rules[ri].id);
                }
            }
        }
    }
}

#[test]
fn a_contested_predicate_in_a_cycle_is_rejected() {
    let p = program(
        "package t.cycle 0.1.0
         empirical a(Integer)
         institutional d(Integer)
         institutional f(Integer)
         rule D1 defeasible: d(x) :- f(x)
         rule D2 defeasible: ~d(x) :- a(x)
         rule F strict: f(x) :- d(x)",
    );
    let errs = stratify(&p).expect_err("d depends on itself").0;
    assert_eq!(shape(&errs), [("strata", Some("contested_cycle"), "D1".to_string())]);
}

const CLOSURE: &str = "
package t.closed 0.1.0
empirical dom(Integer)
empirical base(Integer)
institutional c(Integer)
institutional user(Integer)
rule C strict: c(x) :- base(x)
rule U strict: user(x) :- dom(x), ~c(x)
closure K: c over dom
";

#[test]
fn a_closure_lies_above_its_domain_and_below_its_negatives_users() {
    let (p, s) = stratified(CLOSURE);
    let at = |name: &str| s.rels[rel(&p, name)].stratum;
    assert!(at("dom") < at("c") && at("base") < at("c"));
    assert!(at("c") < at("user"));
    assert!(s.rels[rel(&p, "c")].closed && !s.rels[rel(&p, "user")].closed);
    for (i, st) in s.strata.iter().enumerate() {
        assert_eq!(st.closures, if i == at("c") { vec![0] } else { vec![] });
    }

    // The closure negative used in the closure's own stratum.
    let p = program(&CLOSURE.replace("c(x) :- base(x)", "c(x) :- base(x), user(x)"));
    let errs = stratify(&p).expect_err("~c used in its own stratum").0;
    assert_eq!(shape(&errs), [("strata", Some("closure_stratum"), "U".to_string())]);
}

#[test]
fn layers_collapse_where_no_defeasible_rule_or_contest_reaches() {
    // All strict: every stratum collapses; +S and +d coincide.
    let (p, s) = stratified(&REACH.replace("STRENGTH", "strict"));
    assert!(s.strata.iter().all(|st| st.collapsed));
    for r in 0..p.relations.len() {
        assert!(
            s.rels[r].collapsed && s.rels[r].supported_is_concluded(false) && s.rels[r].supported_is_concluded(true)
        );
    }

    // A defeasible rule: its stratum does not collapse, nor does a strict one above that
    // reads it; inputs always do.
    let (p, s) = stratified(
        "package t.layers 0.1.0
         empirical a(Integer)
         institutional q(Integer)
         institutional s(Integer)
         institutional t(Integer)
         rule Q defeasible: q(x) :- a(x)
         rule S strict: s(x) :- q(x)
         rule T strict: t(x) :- a(x)",
    );
    let layers = |name: &str| &s.rels[rel(&p, name)];
    assert!(layers("a").collapsed && layers("t").collapsed);
    assert!(!layers("q").collapsed && !layers("s").collapsed);
    assert_eq!(layers("a").may_be_definite, [true, true]);
    assert_eq!(layers("q").may_be_definite, [false, false]);
    assert_eq!(layers("s").may_be_definite, [true, false]);
    assert_eq!(layers("q").has_rules, [true, false]);
    // Uncontested and never definite on the other side: +S of each sign is +d.
    assert!(layers("q").supported_is_concluded(false) && layers("q").supported_is_concluded(true));
    // s may be +D positively, so ~s is not simply its +S.
    assert!(layers("s").supported_is_concluded(false) && !layers("s").supported_is_concluded(true));
    let st = |name: &str| &s.strata[layers(name).stratum];
    assert!(!st("q").collapsed && !st("s").collapsed && st("t").collapsed);
}

#[test]
fn negation_as_failure_reads_a_lower_stratum() {
    let (p, s) = stratified(
        "package t.naf 0.1.0
         features negation-as-failure
         empirical a(Integer)
         institutional q(Integer)
         institutional r(Integer)
         rule R strict: r(x) :- a(x), not q(x)
         rule Q strict: q(x) :- a(x)",
    );
    assert!(s.rels[rel(&p, "q")].stratum < s.rels[rel(&p, "r")].stratum);
}

// ----- plan -----

const PLAN: &str = "
package t.plan 0.1.0
type Game
const G1: Game
empirical a(Integer)
empirical b(Integer, Integer)
empirical c(Integer, Game)
empirical m(Integer, Integer)
empirical k(Integer, Integer)
empirical t3(Integer, Integer, Game)
institutional p(Integer)
institutional p2(Integer, Integer)
";

fn planned(rules: &str, id: &str) -> (Program, RulePlan) {
    let p = program(&format!("{PLAN}\n{rules}"));
    let plan = plan_rule(&p, rule_ix(&p, id));
    (p, plan)
}

/// The steps' operands' relations (a negation as `not r`) and accesses, in loop order.
fn loops(p: &Program, plan: &RulePlan) -> Vec<(String, Access)> {
    plan.steps
        .iter()
        .map(|s| {
            let o = &plan.operands[s.operand];
            let name = p.relations[o.literal.rel].name.clone();
            (if s.negated { format!("not {name}") } else { name }, s.access.clone())
        })
        .collect()
}

fn seek(key: &[usize], view: Option<usize>) -> Access {
    Access::Seek { key: key.to_vec(), view }
}

#[test]
fn the_join_starts_from_the_literal_binding_most_head_variables() {
    let (p, plan) = planned("rule R strict: p2(x, y) :- a(x), b(x, y)", "R");
    let r = rule(&p, "R");
    let (x, y) = (var(r, "x"), var(r, "y"));
    // b is scanned; a is then fully bound: a membership test.
    assert_eq!(loops(&p, &plan), [("b".into(), Access::Scan), ("a".into(), Access::Contains)]);
    assert_eq!(plan.steps[0].binds, [x, y]);
    assert!(plan.steps[1].binds.is_empty());
    assert_eq!(plan.binding, [x, y]);
    assert!(!plan.never && !plan.per_case && plan.views.is_empty());
}

#[test]
fn the_join_starts_from_a_literal_with_constants_then_follows_shared_variables() {
    let (p, plan) = planned("rule R strict: p2(x, y) :- a(x), b(x, y), c(x, G1)", "R");
    let r = rule(&p, "R");
    let (x, y) = (var(r, "x"), var(r, "y"));
    // c has a constant; then a shares x and adds nothing, b shares x (its first column) and adds y.
    assert_eq!(
        loops(&p, &plan),
        [("c".into(), Access::Scan), ("a".into(), Access::Contains), ("b".into(), seek(&[0], None))]
    );
    assert_eq!(plan.steps[2].binds, [y]);
    // Every variable a literal binds is handed on (explanations need y).
    assert_eq!(plan.binding, [x, y]);
}

#[test]
fn the_join_order_does_not_follow_the_body_order() {
    let lits = ["m(z, z)", "b(y, z)", "t3(x, y, G1)"];
    for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
        let body: Vec<&str> = order.iter().map(|&i| lits[i]).collect();
        let text = format!("rule R strict: p2(x, z) :- {}", body.join(", "));
        let (p, plan) = planned(&text, "R");
        let r = rule(&p, "R");
        let z = var(r, "z");
        // t3 first (a constant); b by y, its first column; m(z, z) is then fully bound.
        assert_eq!(
            loops(&p, &plan),
            [("t3".into(), Access::Scan), ("b".into(), seek(&[0], None)), ("m".into(), Access::Contains)],
            "{text}"
        );
        assert_eq!(plan.steps[1].binds, [z], "{text}");
    }
}

#[test]
fn a_lookup_by_a_column_that_is_not_a_prefix_goes_through_a_view() {
    let (p, plan) = planned("rule R strict: p2(x, y) :- c(x, G1), b(y, x)", "R");
    let r = rule(&p, "R");
    // b(y, x) is looked up by x, its second column: a view of b with x first.
    assert_eq!(loops(&p, &plan), [("c".into(), Access::Scan), ("b".into(), seek(&[1], Some(0)))]);
    assert_eq!(plan.views.len(), 1);
    assert_eq!(plan.views[0].order, [1, 0]);
    assert_eq!(plan.steps[1].binds, [var(r, "y")]);
}

#[test]
fn a_comparison_filters_as_soon_as_its_variables_are_bound() {
    let (p, plan) = planned("rule R strict: p(x) :- a(x), k(x, n), m(x, j), n < j, n >= 3", "R");
    let r = rule(&p, "R");
    let (n, j) = (var(r, "n"), var(r, "j"));
    // k and m tie on variables (k comes first); then a, which adds nothing, before m.
    assert_eq!(
        loops(&p, &plan),
        [("k".into(), Access::Scan), ("a".into(), Access::Contains), ("m".into(), seek(&[0], None))]
    );
    // `n >= 3` (item 4) needs only k's variables: checked in k's loop.
    assert_eq!(plan.steps[0].checks, [4]);
    assert!(plan.steps[1].checks.is_empty());
    // `n < j` (item 3) needs k and m: checked in m's loop, which binds j.
    assert_eq!(plan.steps[2].checks, [3]);
    assert_eq!(plan.steps[2].binds, [j]);
    assert!(plan.binding.contains(&n));
}

#[test]
fn a_negation_is_tested_once_its_variables_are_bound() {
    let p = program(&format!(
        "{}\nrule R strict: p(x) :- a(x), b(x, y), not m(y, w)",
        PLAN.replace("package t.plan 0.1.0", "package t.plan 0.1.0\nfeatures negation-as-failure")
    ));
    let r = rule(&p, "R");
    let plan = plan_rule(&p, rule_ix(&p, "R"));
    // The negation needs y only (w is local to it): right after b binds it, by m's first column.
    assert_eq!(r.filter_vars(&r.body[2]), [var(r, "y")]);
    assert_eq!(
        loops(&p, &plan),
        [("b".into(), Access::Scan), ("not m".into(), seek(&[0], None)), ("a".into(), Access::Contains)]
    );
    assert_eq!(plan.operands[2].read, Read::Negated);
    // w is never bound: not in a binding.
    assert!(!plan.binding.contains(&var(r, "w")));
}

#[test]
fn a_rule_that_cannot_apply_is_planned_as_never() {
    let (_, plan) = planned("rule R strict: p(x) :- a(x), 1 > 2", "R");
    assert!(plan.never);
    let (_, plan) = planned("rule R strict: p(x) :- a(x), false", "R");
    assert!(plan.never);
    // A true constant comparison is decided at planning time: no step checks it.
    let (_, plan) = planned("rule R strict: p(x) :- a(x), 1 < 2", "R");
    assert!(!plan.never);
    assert!(plan.steps.iter().all(|s| s.checks.is_empty()) && plan.checks.is_empty());
    // So is a term compared with itself.
    let (_, plan) = planned("rule R strict: p(x) :- k(x, n), n < n", "R");
    assert!(plan.never);
    let (_, plan) = planned("rule R strict: p(x) :- k(x, n), n >= n", "R");
    assert!(!plan.never && plan.steps.iter().all(|s| s.checks.is_empty()));
    // A rule without body literals is tried once per case.
    let (_, plan) = planned("rule R strict: p(3)", "R");
    assert!(plan.steps.is_empty() && !plan.never && plan.per_case);
}

#[test]
fn a_recursive_applicable_iteration_starts_from_definite_and_reruns_only_what_may_find_more() {
    let c = clir_codegen::compile(&document(&format!(
        "{PLAN}
institutional ok(Integer)
institutional reach(Integer, Integer)
rule Ok defeasible: ok(x) :- a(x)
rule Base strict: reach(x, y) :- b(x, y)
rule Step strict: reach(x, z) :- reach(x, y), b(y, z)
rule Via strict: reach(x, z) :- reach(x, y), ok(y), m(y, z)
rule Jump defeasible: reach(x, z) :- reach(x, y), reach(y, z)"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let (p, s, plan) = (&c.program, &c.strata, &c.plan);
    let st = &plan.strata[s.rels[p.relations.iter().position(|r| r.name == "reach").unwrap()].stratum];
    let set = st.applicable_set.as_ref().expect("reach is not collapsed: Jump is defeasible");
    assert!(set.iteration && set.seeded, "every variable of +S/+d starts from +D");
    let over_start = |r: &str| set.heads.iter().find(|h| h.rule == rule_ix(p, r)).unwrap().over_start;
    // Step found over +D all it finds; Via reads ok's +d, not its +D; Jump is not in +D at all;
    // Base reads no variable and is called once anyway.
    assert_eq!(
        [over_start("Base"), over_start("Step"), over_start("Via"), over_start("Jump")],
        [false, false, true, true]
    );
    assert!(!st.definite_set.seeded, "+D starts from the input facts, as new tuples");
    let text = clir_codegen::show::plan(&c);
    assert!(
        text.contains("+S/+d (datafrog iteration, starting from +D)") && text.contains("#Via (also once over +D)"),
        "{text}"
    );
}

#[test]
fn the_program_plan_says_which_layers_need_a_fixpoint() {
    let c = clir_codegen::compile(&document(&format!(
        "{PLAN}
institutional reach(Integer, Integer)
rule Base strict: reach(x, y) :- b(x, y)
rule Step strict: reach(x, z) :- reach(x, y), b(y, z)
rule P strict: p(x) :- a(x)"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let (p, s, plan) = (&c.program, &c.strata, &c.plan);
    let si = s.rels[p.relations.iter().position(|r| r.name == "reach").unwrap()].stratum;
    assert!(plan.strata[si].definite_recursive);
    assert_eq!(plan.strata[si].definite.len(), 2);
    // Step reads reach from its own stratum: its leapjoins start from reach (a round's source
    // is its variable's recent tuples), then extend by b looked up by y; Base reads nothing of
    // the stratum.
    let step = rule_ix(p, "Step");
    let rp = &plan.rules[step];
    assert_eq!(plan.own[step].len(), 1);
    assert_eq!(p.relations[rp.operands[plan.own[step][0]].literal.rel].name, "reach");
    assert_eq!(loops(p, rp), [("reach".into(), Access::Scan), ("b".into(), seek(&[0], None))]);
    assert_eq!(rp.joins.len(), 1);
    assert_eq!(rp.joins[0].extend, Some(1));
    assert!(plan.own[rule_ix(p, "Base")].is_empty());
    // The plan's +D layer set: an iteration whose variables Step reads and Base only fills.
    let set = &plan.strata[si].definite_set;
    assert!(set.iteration && set.definite);
    let heads = |r: &str| set.heads.iter().find(|h| h.rule == rule_ix(p, r)).unwrap();
    assert_eq!((heads("Step").own.len(), heads("Base").own.len()), (1, 0));
    // p's stratum: one pass, and ~p's +D, which nothing fills, is never built.
    let set = &plan.strata[s.rels[p.relations.iter().position(|r| r.name == "p").unwrap()].stratum].definite_set;
    assert!(!set.iteration && set.empty.iter().any(|id| id.negative) && set.layers.iter().all(|(id, _)| !id.negative));
    let pi = s.rels[p.relations.iter().position(|r| r.name == "p").unwrap()].stratum;
    assert!(!plan.strata[pi].definite_recursive && !plan.strata[pi].applicable_recursive);
    assert!(plan.strata.iter().any(|st| st.shape == Shape::Inputs));
    // The written plan names every rule and stratum.
    let text = clir_codegen::show::plan(&c);
    assert!(
        text.contains("iteration")
            && text.contains("#Step")
            && text.contains("leapjoin 1 from reach(x, y): ExtendBy b(y, z)"),
        "{text}"
    );
}

// ----- datalog: the one printer -----

#[test]
fn a_rule_reads_the_same_from_the_document_and_from_the_program() {
    let doc = document(
        r#"package t.print 0.1.0
         features negation-as-failure integer-arithmetic string-values
         type Game
         const White: Game
         empirical moves(game: Game, n: Integer)
         empirical started(game: Game)
         empirical named(game: Game, s: String)
         empirical flag
         institutional next(game: Game, n: Integer)
         rule R defeasible: next(g, (n + 1) * 2) :- moves(g, n), n - 1 >= 75, supported ~started(g), not named(g, "a\"b"), flag
         rule F strict: next(White, 1) :- started(White), false
         rule D defeater: ~next(g, n) :- moves(g, n)"#,
    );
    let names = clir_codegen::datalog::Names::new(&doc);
    let p = resolve(&doc).unwrap_or_else(|e| panic!("{e}"));
    for n in doc.nodes.iter() {
        let clir_codegen::ir::NodeKind::Rule(r) = &n.kind else { continue };
        let resolved = p.rules.iter().find(|x| x.id == n.id).unwrap();
        assert_eq!(clir_codegen::datalog::rule(&names, r).text, p.show_rule(resolved), "{}", n.id);
    }
    assert_eq!(
        p.show_rule(rule(&p, "R")),
        r#"next(g, (n + 1) * 2) :- moves(g, n), n - 1 >= 75, supported ~started(g), not named(g, "a\"b"), flag."#
    );
    assert_eq!(p.show_rule(rule(&p, "F")), "next(White, 1) :- started(White), false.");
    // The strength is said beside the rule, not in it.
    assert_eq!(p.show_rule(rule(&p, "D")), "~next(g, n) :- moves(g, n).");
    let [head, _, text] = clir_codegen::datalog::rule_lines(&p, rule(&p, "D"));
    assert_eq!((head.as_str(), text.as_str()), ("urn:t:print#D (defeater), no article", "~next(g, n) :- moves(g, n)."));
}

#[test]
fn a_lone_variable_is_read_through_a_least_view_and_binds_one_witness() {
    // `w` occurs once in the whole rule: b is asked only whether some w exists for x.
    let (p, plan) = planned("rule R strict: p2(x, g) :- a(x), b(x, w), m(x, g)", "R");
    let r = rule(&p, "R");
    let b = plan.operands.iter().position(|o| o.literal.rel == rel(&p, "b")).unwrap();
    let view = plan.views.iter().find(|v| v.operand == b).expect("b is read through a view");
    assert_eq!((view.order.clone(), view.least_by), (vec![0, 1], Some(1)), "keyed by x, the least w of each");
    assert!(plan.binding.contains(&var(r, "w")), "the witness is still recorded for explanations");
    // As the source, too: a lone column of the first literal is cut before anything joins it.
    let (p, plan) = planned("rule S strict: p2(x, y) :- b(x, w), m(x, y)", "S");
    let b = plan.operands.iter().position(|o| o.literal.rel == rel(&p, "b")).unwrap();
    assert_eq!(plan.steps[0].operand, b);
    assert!(plan.views.iter().any(|v| v.operand == b && v.least_by == Some(1)));
    // A variable that occurs twice, in the head, or in a comparison or negation is not lone.
    for rules in [
        "rule T strict: p2(x, w) :- a(x), b(x, w)",
        "rule T strict: p(x) :- a(x), b(x, w), w > 3",
        "rule T strict: p(x) :- a(x), b(x, w), ~m(x, w)",
        "rule T strict: p(x) :- a(x), b(w, w), m(x, w)",
    ] {
        let (_, plan) = planned(rules, "T");
        assert!(plan.views.iter().all(|v| v.least_by.is_none()), "{rules}");
    }
}

#[test]
fn variables_no_later_step_reads_are_cut_to_their_least_witness_before_the_next_join() {
    // y is bound by b and tested by k, then read by nothing: before m multiplies the tuples
    // by its z, each x keeps one y.
    let (p, plan) = planned("rule R strict: p2(x, z) :- b(x, y), k(y, x), m(x, z)", "R");
    let r = rule(&p, "R");
    assert_eq!(plan.joins.len(), 2, "{:?}", plan.joins);
    let first = &plan.joins[0];
    assert_eq!(first.yields, [var(r, "x"), var(r, "y")]);
    assert_eq!(first.least_by, Some(1), "the least y of each x");
    assert_eq!(plan.joins[1].least_by, None);
    // A variable the head or a later step reads is never cut.
    let (_, plan) = planned("rule S strict: p2(y, z) :- b(x, y), k(y, x), m(x, z)", "S");
    assert!(plan.joins.iter().all(|j| j.least_by.is_none()), "{:?}", plan.joins);
}

#[test]
fn a_contested_strict_rule_over_facts_is_called_once_for_definite_and_applicable() {
    // `Fact` reads input facts only: its +D call is also its applicability, and the plan says
    // so. `Derived` reads `q`, which a defeasible rule concludes: its +D (over +D of q) and its
    // applicability (over +d of q) differ, and it is called twice.
    let c = clir_codegen::compile(&document(&format!(
        "{PLAN}
institutional q(Integer)
institutional d(Integer)
rule Q defeasible: q(x) :- a(x)
rule Fact strict: d(x) :- a(x)
rule Derived strict: d(x) :- q(x)
rule Not defeasible: ~d(x) :- b(x, y)
priority FactFirst: Fact > Not"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let (p, s, plan) = (&c.program, &c.strata, &c.plan);
    let si = s.rels[rel(p, "d")].stratum;
    let st = &plan.strata[si];
    assert_eq!(st.shape, Shape::Contested);
    assert_eq!(st.definite_set.shared, [rule_ix(p, "Fact")]);
    let text = clir_codegen::show::plan(&c);
    assert!(text.contains("#Fact (also its applicability)") && text.contains("#Fact (as found for +D)"), "{text}");
    let code = clir_codegen::emit::emit(&c, "sha256:0");
    assert_eq!(code.matches("self::rule_fact(").count(), 1, "Fact is called once");
    assert_eq!(code.matches("self::rule_derived(").count(), 2, "Derived is called for +D and for its applicability");
}

#[test]
fn the_plan_lists_each_semi_naive_call_and_which_call_records_explanations() {
    // `Join` reads its own stratum twice: each round it is called twice, once from each
    // operand's recent tuples, the other read as it stood before the round (stable) or as it
    // stands now (total). A call over final layers records its explanations as it runs; the
    // recursive rules' calls run over partial layers, so `explain` makes theirs.
    let c = clir_codegen::compile(&document(&format!(
        "{PLAN}
institutional reach(Integer, Integer)
rule Base strict: reach(x, y) :- b(x, y)
rule Join strict: reach(x, z) :- reach(x, y), reach(y, z)
rule P strict: p(x) :- a(x)"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    use clir_codegen::plan::calls::{Arg, Modes};
    let (p, s, plan) = (&c.program, &c.strata, &c.plan);
    let st = &plan.strata[s.rels[rel(p, "reach")].stratum];
    let join = rule_ix(p, "Join");
    let calls: Vec<_> = st.definite_set.calls.iter().filter(|c| c.rule == join).collect();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.round && c.record.is_none()));
    let kinds = |c: &clir_codegen::plan::calls::Call| c.args.iter().map(std::mem::discriminant).collect::<Vec<_>>();
    let d = std::mem::discriminant;
    let reach = |a: Arg| a.layer().rel == rel(p, "reach");
    assert!(calls.iter().all(|c| c.args.iter().all(|&a| reach(a))));
    assert_eq!(kinds(calls[0]), [d(&Arg::Recent(calls[0].args[0].layer())), d(&Arg::Total(calls[0].args[1].layer()))]);
    assert_eq!(kinds(calls[1]), [d(&Arg::Stable(calls[1].args[0].layer())), d(&Arg::Recent(calls[1].args[1].layer()))]);
    assert_eq!(st.definite_set.stable.len(), 1);
    assert_eq!(st.definite_set.total.len(), 1);
    // Base reads no variable: once, before the rounds, over final layers, recording both modes
    // (its premises are read from the same layers for +D and applicability).
    let base = st.definite_set.calls.iter().find(|c| c.rule == rule_ix(p, "Base")).unwrap();
    assert!(!base.round && base.record == Some(Modes::Both));
    assert!(plan.explain[rule_ix(p, "Base")].is_empty());
    assert_eq!(plan.explain[join].len(), 1, "Join's explanations are found over the final layers");
    assert!(st.records && st.evaluates);
    // Collapsed, reach has one layer, its +d.
    let text = clir_codegen::show::plan(&c);
    assert!(
        text.contains("round: recent reach +d, total reach +d")
            && text.contains("round: stable reach +d, recent reach +d"),
        "{text}"
    );
}
