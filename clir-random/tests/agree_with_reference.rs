//! The generated code and the reference evaluator (SEMANTICS §4 followed literally) agree on
//! every random package and every random fact set.

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_codegen::ir::Document;
use serde_json::Value;

#[test]
fn generated_code_agrees_with_the_reference_evaluator() {
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let cat = Catalog::new(pkg.schema());
        let grants: Vec<String> =
            pkg.schema().relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect();
        let opts = Options { grants: grants.clone(), explain: false, ..Default::default() };
        let cases = clir_reference::random::facts(seed, &doc);
        let lines: Vec<(usize, String)> = cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
        // All fact sets of a package as one batch: cases must not leak into each other.
        let (out, _) = rule_chunk(pkg, &cat, &lines, &opts);
        for (case, got) in cases.iter().zip(&out) {
            let want = clir_reference::evaluate(&doc, case, &grants);
            compared += 1;
            if let Some(why) = clir_reference::agree::disagreement(&want, got).filter(|_| failures.len() < 5) {
                failures.push(format!("package seed {seed}, case {case}\n  {why}"));
            }
        }
    }
    eprintln!("compared {compared} rulings over {} random packages", clir_random::PACKAGES.len());
    assert!(failures.is_empty(), "disagreements:\n{}", failures.join("\n"));
    assert!(compared >= clir_random::PACKAGES.len());
}

/// The comparison is not vacuous: the random rulings conclude things, attack and contradict.
#[test]
fn random_rulings_are_not_trivial() {
    let (mut concluded, mut negative, mut contradictions, mut errors) = (0, 0, 0, 0);
    for &(seed, bytes, _) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let grants: Vec<String> = Vec::new();
        for case in clir_reference::random::facts(seed, &doc) {
            let r = clir_reference::evaluate(&doc, &case, &grants);
            if r.get("error").is_some() {
                errors += 1;
                continue;
            }
            for (k, v) in r["concluded"].as_object().unwrap() {
                concluded += v.as_array().unwrap().len();
                if k.starts_with('~') {
                    negative += 1;
                }
            }
            contradictions += r["contradictions"].as_array().unwrap().len();
        }
    }
    eprintln!("concluded {concluded}, negative relations {negative}, contradictions {contradictions}, error lines without grant {errors}");
    assert!(concluded > 100 && negative > 10, "random facts conclude too little");
}

/// With explanations on, the rulings are the same and every concluded literal has a derivation
/// that reaches input facts or closure policies.
#[test]
fn every_concluded_literal_is_explained() {
    fn grounded(v: &Value) -> bool {
        if v.get("unexplained").is_some() {
            return false;
        }
        match v.get("premises").and_then(Value::as_array) {
            Some(ps) => ps.iter().all(grounded),
            None => v["fact"] == "input",
        }
    }
    let mut explained = 0;
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let cat = Catalog::new(pkg.schema());
        let grants: Vec<String> =
            pkg.schema().relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect();
        let cases = clir_reference::random::facts(seed, &doc);
        let lines: Vec<(usize, String)> = cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
        let (plain, _) =
            rule_chunk(pkg, &cat, &lines, &Options { grants: grants.clone(), explain: false, ..Default::default() });
        let (with, _) = rule_chunk(pkg, &cat, &lines, &Options { grants, explain: true, ..Default::default() });
        for (p, w) in plain.iter().zip(&with) {
            let p: Value = serde_json::from_str(p).unwrap();
            let mut w: Value = serde_json::from_str(w).unwrap();
            let Some(ex) = w.as_object_mut().and_then(|o| o.remove("explanations")) else { continue };
            assert_eq!(p, w, "explanations changed the ruling of package {seed}");
            for (k, tree) in ex.as_object().unwrap() {
                assert!(grounded(tree), "package {seed}: {k} is not explained down to facts: {tree}");
                explained += 1;
            }
        }
    }
    eprintln!("explained {explained} concluded literals");
    assert!(explained > 100);
}

/// Why not agrees with the reference: asked about both signs of every tuple concluded in either
/// sign, a literal is concluded exactly when the reference concludes it, and one that is not
/// has at least one reason, each naming a rule for it, a closure of it, or none.
#[test]
fn why_not_agrees_with_the_reference_evaluator() {
    let (mut asked, mut unconcluded) = (0usize, 0usize);
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        let schema = pkg.schema();
        let cat = Catalog::new(schema);
        let grants: Vec<String> = schema.relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect();
        let opts = Options { grants: grants.clone(), explain: false, ..Default::default() };
        for case in clir_reference::random::facts(seed, &doc) {
            let want = clir_reference::evaluate(&doc, &case, &grants);
            let Some(concluded) = want.get("concluded").and_then(Value::as_object) else { continue };
            let mut literals: Vec<(String, bool, usize)> = Vec::new();
            for (key, tuples) in concluded {
                let name = key.trim_start_matches('~');
                for t in tuples.as_array().unwrap() {
                    let args: Vec<String> = t
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| match a.as_str() {
                            Some(s) => clir::why_not::shown_entity(s).into_owned(),
                            None => a.to_string(),
                        })
                        .collect();
                    let lit = format!("{name}({})", args.join(","));
                    for negative in [false, true] {
                        let text = if negative { format!("~{lit}") } else { lit.clone() };
                        let key = if negative { format!("~{name}") } else { name.to_string() };
                        let is = concluded.get(&key).and_then(Value::as_array).is_some_and(|ts| ts.contains(t));
                        if !literals.iter().any(|(l, ..)| *l == text) {
                            literals.push((text, is, schema.relation(name).unwrap()));
                        }
                    }
                }
            }
            if literals.is_empty() {
                continue;
            }
            let mut line = case.clone();
            line["why_not"] = Value::Array(literals.iter().map(|(l, ..)| Value::String(l.clone())).collect());
            let (out, _) = rule_chunk(pkg, &cat, &[(1, line.to_string())], &opts);
            let got: Value = serde_json::from_str(&out[0]).unwrap();
            for (lit, is, rel) in &literals {
                let answer = &got["why_not"][lit];
                asked += 1;
                assert_eq!(answer["concluded"], *is, "package {seed}, {lit}: {answer}\ncase {case}\nruling {got}");
                if *is {
                    continue;
                }
                unconcluded += 1;
                let reasons = answer["reasons"].as_array().unwrap();
                assert!(!reasons.is_empty(), "package {seed}: {lit} has no reason\ncase {case}");
                for r in reasons {
                    if let Some(id) = r["rule"]["id"].as_str() {
                        let rule = schema.rules.iter().find(|x| x.id == id).unwrap();
                        assert_eq!((rule.head as usize, rule.negative), (*rel, lit.starts_with('~')), "{lit}: {r}");
                    }
                }
            }
        }
    }
    eprintln!("asked why not of {asked} literals, {unconcluded} of them not concluded");
    assert!(unconcluded > 100);
}
