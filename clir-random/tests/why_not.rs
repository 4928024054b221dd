//! Why not, for every reason a literal is not concluded, on the hand-made package
//! `fixtures/test.whynot.clir`: through JSON Lines as `clir rule` reads them, and through the
//! typed API.

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_random::test_whynot::{self as pkg, Package};
use serde_json::Value;

/// Rules one case line; its `why_not` object.
fn why_not(line: &str) -> Value {
    let cat = Catalog::new(clir::Package::schema(&Package));
    let (out, errors) = rule_chunk(&Package, &cat, &[(1, line.to_string())], &Options::default());
    assert_eq!(errors, 0, "{}", out[0]);
    let ruling: Value = serde_json::from_str(&out[0]).unwrap();
    assert!(ruling.get("explanations").is_none(), "why_not alone does not explain everything");
    ruling["why_not"].clone()
}

/// `(rule or closure id without its namespace, kind, detail)` of each reason of `literal`.
fn reasons(answers: &Value, literal: &str) -> Vec<(String, String, String)> {
    let entry = &answers[literal];
    assert_eq!(entry["concluded"], false, "{literal}: {entry}");
    let short = |v: &Value| v["id"].as_str().map(|s| s.rsplit('#').next().unwrap().to_string()).unwrap_or_default();
    entry["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let source = r.get("rule").or_else(|| r.get("closure")).map(short).unwrap_or_default();
            let detail = ["premise", "comparison", "by", "complement", "count"]
                .iter()
                .find_map(|k| r.get(*k))
                .map(|v| v.as_str().map(|s| s.rsplit('#').next().unwrap().to_string()).unwrap_or(v.to_string()))
                .unwrap_or_default();
            (source, r["kind"].as_str().unwrap().to_string(), detail)
        })
        .collect()
}

fn r(source: &str, kind: &str, detail: &str) -> (String, String, String) {
    (source.to_string(), kind.to_string(), detail.to_string())
}

#[test]
fn each_rule_says_which_premise_comparison_or_negation_failed() {
    let w = why_not(
        r#"{"case":"1","facts":{"a":[["p"]],"age":[["p",17]],"listed":[["p"]],"banned":[["p"]]},"why_not":["q(p)"]}"#,
    );
    assert_eq!(
        reasons(&w, "q(p)"),
        vec![
            r("BothAB", "premise_not_concluded", "b(p)"),
            r("Adult", "comparison_false", "17 >= 18"),
            r("SupportedS", "premise_not_supported", "s(p)"),
            r("NotBanned", "negation_concluded", "banned(p)"),
        ]
    );
    // A rule's article is cited as explanations cite it.
    let rule = &w["q(p)"]["reasons"][0]["rule"];
    assert_eq!(rule["label"], "Article 1");
    assert_eq!(rule["articles"][0]["locator"], "article/1");
}

#[test]
fn a_variable_no_value_binds_is_written_as_an_underscore() {
    // The case mentions p (an entity it never mentions is the only reason given about it).
    let w = why_not(r#"{"case":"2","facts":{"~a":[["p"]]},"why_not":["q(p)"]}"#);
    assert!(reasons(&w, "q(p)").contains(&r("Adult", "premise_not_concluded", "age(p,_)")));
}

#[test]
fn an_applicable_rule_fails_by_the_attack_no_rule_beats() {
    // c(p): s(p) is supported (MakeS) though attacked by NotQ; q(p) by SupportedS is applicable
    // and attacked by ListedNotQ, which nothing beats.
    let w =
        why_not(r#"{"case":"3","facts":{"c":[["p"]],"listed":[["p"]],"banned":[["p"]]},"why_not":["q(p)","s(p)"]}"#);
    let q = reasons(&w, "q(p)");
    assert!(q.contains(&r("SupportedS", "attacked", "ListedNotQ")), "{q:?}");
    assert_eq!(reasons(&w, "s(p)"), vec![r("MakeS", "attacked", "NotQ")]);
    // A beaten attack is no reason: h(p) is concluded over ~h(p), whose rule HFromA beats.
    let w = why_not(r#"{"case":"4","facts":{"a":[["p"]],"b":[["p"]]},"why_not":["h(p)","~h(p)"]}"#);
    assert_eq!(w["h(p)"]["concluded"], true);
    assert_eq!(w["h(p)"]["explanation"]["rule"], "urn:test:whynot#HFromA");
    assert_eq!(reasons(&w, "~h(p)"), vec![r("NotHFromB", "attacked", "HFromA")]);
}

#[test]
fn a_defeater_a_definite_complement_and_no_rule_are_reasons() {
    let w = why_not(r#"{"case":"5","facts":{"a":[["p"]],"b":[["p"]]},"why_not":["r(p)","e(p)","c(p)"]}"#);
    assert_eq!(reasons(&w, "r(p)"), vec![r("OnlyDefeater", "defeater", "")]);
    assert_eq!(reasons(&w, "e(p)"), vec![r("EFromA", "attacked", "NotEFromB"), r("", "complement_definite", "~e(p)")]);
    assert_eq!(reasons(&w, "c(p)"), vec![r("", "no_rule", "")]);
}

#[test]
fn a_closure_says_why_it_did_not_close() {
    let w = why_not(
        r#"{"case":"6","facts":{"b":[["p"]],"listed":[["p"]],"~listed":[["z"]]},"why_not":["~f(p)","~f(z)","~f(y)"]}"#,
    );
    assert_eq!(reasons(&w, "~f(p)"), vec![r("ListedF", "premise_supported", "f(p)")]);
    assert_eq!(reasons(&w, "~f(z)"), vec![r("ListedF", "premise_not_concluded", "listed(z)")]);
    // y is in no fact of the case: that is the reason.
    assert_eq!(w["~f(y)"]["reasons"], serde_json::json!([{"kind": "unknown_entity", "entity": "y"}]));
}

#[test]
fn many_values_are_listed_up_to_sixteen_then_counted() {
    let ages: Vec<String> = (0..20).map(|i| format!("[\"p\",{i}]")).collect();
    let line = format!(r#"{{"case":"7","facts":{{"age":[{}]}},"why_not":["g(p)"]}}"#, ages.join(","));
    let g = reasons(&why_not(&line), "g(p)");
    assert_eq!(g.len(), 17);
    assert_eq!(g[0], r("Old", "comparison_false", "0 > 100"));
    assert_eq!(g[16], r("Old", "more", "4"));
}

#[test]
fn a_concluded_literal_gets_its_explanation() {
    let w = why_not(r#"{"case":"8","facts":{"a":[["p"]],"b":[["p"]]},"why_not":["q(p)","a(p)"]}"#);
    assert_eq!(w["q(p)"]["concluded"], true);
    assert_eq!(w["q(p)"]["explanation"]["rule"], "urn:test:whynot#BothAB");
    assert_eq!(w["a(p)"]["concluded"], true);
    assert_eq!(w["a(p)"]["explanation"]["fact"], "input");
}

#[test]
fn a_literal_that_does_not_parse_or_names_no_relation_makes_an_error_line() {
    let cat = Catalog::new(clir::Package::schema(&Package));
    for (asked, message) in [
        ("nope(p)", "unknown relation `nope`"),
        ("q(p", "no closing `)`"),
        ("q(p,z)", "takes 1 argument"),
        ("age(p,old)", "is an Integer"),
    ] {
        let line = format!(r#"{{"case":"x","facts":{{}},"why_not":["{asked}"]}}"#);
        let (out, errors) = rule_chunk(&Package, &cat, &[(1, line)], &Options::default());
        assert_eq!(errors, 1);
        assert!(out[0].contains(message), "{asked}: {}", out[0]);
    }
}

#[test]
fn the_typed_api_answers_the_same() {
    let mut cases = pkg::Cases::new();
    let mut case = cases.case();
    let p = case.p("p");
    case.a(p).age(p, 17);
    let id = case.id();
    let ruling = cases.evaluate().case(id);
    let answer = ruling.why_not_q(&(p,));
    assert!(!answer.concluded);
    assert_eq!(answer.literal, "q(p)");
    let kinds: Vec<&str> = answer.reasons.iter().map(|r| r.kind.name()).collect();
    assert_eq!(kinds, ["premise_not_concluded", "comparison_false", "premise_not_supported", "premise_not_concluded"]);
    // ~q(p): ListedNotQ's premises listed(p) and c(p) are not concluded; each is a reason.
    let not_q: Vec<clir::ReasonKind> = ruling.why_not_not_q(&(p,)).reasons.into_iter().map(|r| r.kind).collect();
    let premise = |p: &str| clir::ReasonKind::PremiseNotConcluded { premise: p.into() };
    assert_eq!(not_q, [premise("listed(p)"), premise("c(p)")]);
    assert_eq!(ruling.why_not(pkg::REL_Q, false, vec![p.0 .0 as i64]), answer);
}
