//! `--explain=refs` (docs/EXPLAIN.md, DECISIONS 80): on the sample games, the rulings with their
//! `derivations` are at most five times the plain rulings; every derivation `--explain` writes
//! (concluded literal or premise, at any depth) has its entry, with the same rule or closure,
//! `definite` flag, premises, `unanchored` and attacks; every premise an entry names is an input
//! fact of the case or has an entry of its own; nothing else has one; and the lines validate
//! against docs/schemas/ruling.schema.json.

use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PACKAGE: &str = "fide.laws.chess";

fn games() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("examples/fide/games.jsonl")).unwrap()
}

/// `clir rule --package fide.laws.chess FLAGS` on `input`: its stdout (exit 0 asserted).
fn rule(flags: &[&str], input: &str) -> String {
    let mut args = vec!["rule", "--package", PACKAGE];
    args.extend_from_slice(flags);
    let (code, out, err) = clir(&args, input);
    assert_eq!(code, 0, "clir {args:?}: {err}");
    out
}

fn lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The input facts of a case line, written as explanations write literals.
fn input_facts(case: &Value) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for (key, tuples) in case["facts"].as_object().unwrap() {
        for t in tuples.as_array().unwrap() {
            let args: Vec<String> = t
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
                .collect();
            set.insert(format!("{key}({})", args.join(",")));
        }
    }
    set
}

/// Checks the full derivation `e` (at any depth; `top` for a concluded literal) against its
/// entry in `refs`, recording the literals that must have one.
fn agrees(e: &Value, refs: &Map<String, Value>, top: bool, wanted: &mut BTreeSet<String>) {
    let lit = e["literal"].as_str().unwrap();
    if e.get("truncated").is_some() {
        return;
    }
    if e.get("fact").is_some() && !top {
        assert!(refs.get(lit).is_none_or(|r| r["fact"] == "input"), "{lit}: an input premise has no derivation");
        return;
    }
    wanted.insert(lit.to_string());
    let r = refs.get(lit).unwrap_or_else(|| panic!("{lit} has no entry in derivations"));
    for key in
        ["definite", "fact", "rule", "closure", "snapshot", "complete_as_of", "because", "unanchored", "unexplained"]
    {
        assert_eq!(r.get(key), e.get(key), "{lit}: `{key}` differs\nfull: {e}\nrefs: {r}");
    }
    for key in ["label", "strength", "articles", "literal", "truncated", "asked"] {
        assert!(r.get(key).is_none(), "{lit}: the refs form has `{key}`: {r}");
    }
    let Some(premises) = e["premises"].as_array() else {
        assert!(r.get("premises").is_none());
        return;
    };
    let texts: Vec<&Value> = premises.iter().map(|p| &p["literal"]).collect();
    let r_texts: Vec<&Value> = r["premises"].as_array().unwrap().iter().collect();
    assert_eq!(r_texts, texts, "{lit}: premises");
    let supported: Vec<&Value> =
        premises.iter().filter(|p| p.get("asked") == Some(&json!("supported"))).map(|p| &p["literal"]).collect();
    let r_supported: Vec<&Value> = r.get("asked_supported").map_or(vec![], |s| s.as_array().unwrap().iter().collect());
    assert_eq!(r_supported, supported, "{lit}: premises asked as supported");
    // A concluded literal's attacks; a premise asked as supported lists none in the full form.
    if top || e.get("overcame").is_some() {
        let ids = |v: Option<&Value>| -> Vec<Value> {
            v.and_then(Value::as_array).map_or(vec![], |a| {
                a.iter().map(|x| json!([x["attack"], x.get("beaten_by"), x.get("priority")])).collect()
            })
        };
        assert_eq!(ids(r.get("overcame")), ids(e.get("overcame")), "{lit}: overcame");
    }
    for p in premises {
        agrees(p, refs, false, wanted);
    }
}

fn validator() -> jsonschema::Validator {
    let path = Path::new(ROOT).join("docs/schemas/ruling.schema.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::meta::validate(&doc).unwrap();
    jsonschema::draft202012::new(&doc).unwrap()
}

#[test]
fn refs_are_at_most_five_times_the_rulings_and_say_what_the_full_form_says() {
    let input = games();
    let plain = rule(&[], &input);
    let full = rule(&["--explain"], &input);
    let refs = rule(&["--explain=refs"], &input);
    assert_eq!(rule(&["--explain=full"], &input), full, "--explain=full is --explain");
    let ratio = refs.len() as f64 / plain.len() as f64;
    eprintln!("plain {} bytes, --explain {}, --explain=refs {} ({ratio:.2}x)", plain.len(), full.len(), refs.len());
    assert!(refs.len() <= 5 * plain.len(), "refs are {ratio:.2} times the plain rulings");
    let v = validator();
    let cases = lines(&input);
    let (plain, full, refs) = (lines(&plain), lines(&full), lines(&refs));
    assert_eq!((plain.len(), full.len(), refs.len()), (cases.len(), cases.len(), cases.len()));
    let mut overcame = 0;
    for (((case, plain), full), refs) in cases.iter().zip(&plain).zip(&full).zip(&refs) {
        let errors: Vec<String> = v.iter_errors(refs).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "not a valid ruling line: {errors:#?}\n{refs}");
        let mut bare = refs.clone();
        let table = bare.as_object_mut().unwrap().remove("derivations").expect("a derivations table");
        assert_eq!(&bare, plain, "the ruling is the plain one");
        assert!(refs.get("explanations").is_none());
        let table = table.as_object().unwrap();
        let mut wanted = BTreeSet::new();
        for (lit, e) in full["explanations"].as_object().unwrap() {
            assert_eq!(e["literal"], json!(lit));
            agrees(e, table, true, &mut wanted);
        }
        let keys: BTreeSet<String> = table.keys().cloned().collect();
        assert_eq!(keys, wanted, "derivations has an entry for every derivation, and only those");
        let facts = input_facts(case);
        for (lit, r) in table {
            overcame += usize::from(r.get("overcame").is_some());
            for p in r.get("premises").and_then(Value::as_array).into_iter().flatten() {
                let p = p.as_str().unwrap();
                assert!(
                    facts.contains(p) || table.contains_key(p),
                    "{lit}: premise {p} is no input fact and has no entry"
                );
            }
        }
    }
    assert!(overcame > 0, "some derivation overcomes an attack");
}

#[test]
fn an_attack_is_overcome_by_ids_and_why_not_keeps_the_full_form() {
    let case = r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]},"why_not":["~game_drawn(g)"]}"#;
    let r: Value = serde_json::from_str(&rule(&["--explain=refs"], case)).unwrap();
    let e = &r["derivations"]["~game_drawn(g)"];
    assert_eq!(
        e,
        &json!({
            "definite": false,
            "rule": "urn:fide:laws:clir:chess#CheckmateTakesPrecedenceOverSeventyFive",
            "premises": ["checkmate_delivered(g,w)"],
            "overcame": [{
                "attack": "urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw",
                "beaten_by": "urn:fide:laws:clir:chess#CheckmateTakesPrecedenceOverSeventyFive",
                "priority": "urn:fide:laws:clir:chess#CheckmateOverSeventyFiveMoves"
            }]
        })
    );
    assert!(r["derivations"].get("checkmate_delivered(g,w)").is_none(), "an input premise has no entry");
    let answer = &r["why_not"]["~game_drawn(g)"];
    assert_eq!(answer["explanation"]["label"].as_str().map(|l| l.starts_with("Article 9.6.2")), Some(true));
    assert!(validator().is_valid(&r));
}

#[test]
fn the_explain_flag_takes_only_full_or_refs_and_only_after_an_equals_sign() {
    let (code, _, err) = clir(&["rule", "--package", PACKAGE, "--explain=short"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("refs"), "{err}");
    // A bare `--explain` before another flag is the full form, as before.
    let case = r#"{"case":"g","facts":{"draw_agreed":[["g"]],"both_players_have_moved":[["g"]]}}"#;
    let out = rule(&["--explain", "--threads", "1"], case);
    assert!(out.contains("\"explanations\":"), "{out}");
}

#[test]
fn the_schema_refuses_a_derivation_with_the_packages_text_or_two_sources() {
    let v = validator();
    let line = |d: Value| json!({"case": "g", "concluded": {}, "definite": {}, "contradictions": [], "derivations": {"a(g)": d}});
    assert!(v.is_valid(&line(json!({"definite": true, "rule": "r", "premises": ["b(g)"]}))));
    for bad in [
        json!({"definite": true, "rule": "r", "premises": [], "label": "Article 1"}),
        json!({"definite": true, "rule": "r", "closure": "c", "because": "x", "premises": []}),
        json!({"definite": false, "closure": "c", "because": "a(g) is not supported", "premises": []}),
        json!({"definite": true, "fact": "input", "premises": []}),
        json!({"definite": true, "rule": "r", "premises": [{"literal": "b(g)"}]}),
        json!({"definite": true, "rule": "r", "premises": [], "overcame": [{"attack": "s"}]}),
    ] {
        assert!(!v.is_valid(&line(bad.clone())), "accepted {bad}");
    }
    let mut both = line(json!({"unexplained": true}));
    both["explanations"] = json!({});
    assert!(!v.is_valid(&both), "a line has explanations or derivations, not both");
}
