//! `editors/clir-law.tmLanguage.json`, the TextMate grammar of the notation: valid JSON, every
//! include defined, every scope name a standard TextMate scope of `clir-law`, and every
//! statement keyword of the parser coloured as one.

use serde_json::Value;

fn grammar() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/clir-law.tmLanguage.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).expect("the grammar is JSON")
}

/// Every `name` of a pattern or capture in `v`.
fn names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("name", Value::String(s)) => out.push(s.clone()),
                    _ => names(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| names(x, out)),
        _ => {}
    }
}

fn includes(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("include", Value::String(s)) => out.push(s.clone()),
                    _ => includes(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| includes(x, out)),
        _ => {}
    }
}

#[test]
fn the_grammar_is_valid_and_names_its_scopes() {
    let g = grammar();
    assert_eq!(g["scopeName"], "source.clir-law");
    assert_eq!(g["fileTypes"], serde_json::json!(["law"]));
    let repo = g["repository"].as_object().unwrap();
    let mut inc = Vec::new();
    includes(&g, &mut inc);
    assert!(!inc.is_empty());
    for i in &inc {
        let key = i.strip_prefix('#').unwrap_or_else(|| panic!("include {i} is not local"));
        assert!(repo.contains_key(key), "include {i} is not defined");
    }
    for key in repo.keys() {
        assert!(inc.contains(&format!("#{key}")), "repository entry {key} is never used");
    }
    let mut scopes = Vec::new();
    names(&g["repository"], &mut scopes);
    assert!(scopes.len() >= 12, "{scopes:?}");
    let roots = ["comment.", "keyword.", "string.", "entity.", "constant.", "storage.", "variable."];
    for s in &scopes {
        assert!(s.ends_with(".clir-law"), "{s}");
        assert!(roots.iter().any(|r| s.starts_with(r)), "{s} is no standard TextMate scope");
    }
    // Every statement keyword of the parser starts a statement in the grammar.
    let statement = g["repository"]["statement"]["match"].as_str().unwrap();
    let alternatives = &statement[statement.find('(').unwrap() + 1..statement.find(")\\b").unwrap()];
    let mut listed: Vec<&str> = alternatives.split('|').collect();
    let mut keywords = clir_notation::notation::KEYWORDS.to_vec();
    listed.sort();
    keywords.sort();
    assert_eq!(listed, keywords);
    // The strengths and body words the printer writes.
    for word in ["strict", "defeasible", "defeater", "established", "supported", "not", "bare", "set", "unset"] {
        assert!(g.to_string().contains(word), "{word}");
    }
}
