//! `clir rule --coverage FILE`, `clir test --coverage FILE` and `clir coverage FILE`: what the
//! sample games exercise, checked against their explanations, the same at any thread count.

use serde_json::Value;
use std::collections::HashMap;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl");

/// `clir rule` of the sample games with `extra` flags and `--coverage`: the rulings and the coverage.
fn ruled_with_coverage(extra: &[&str]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("coverage.json");
    let mut args = vec!["rule", "--package", "fide.laws.chess", "--input", GAMES, "--coverage", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = clir(&args, "");
    assert_eq!(code, 0, "{err}");
    let doc = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    (out, doc)
}

/// Per rule id: how many concluded literals its top-level explanation names.
fn explained_by(rulings: &str) -> HashMap<String, u64> {
    let mut by = HashMap::new();
    for line in rulings.lines() {
        let ruling: Value = serde_json::from_str(line).unwrap();
        for e in ruling["explanations"].as_object().into_iter().flat_map(|m| m.values()) {
            if let Some(rule) = e["rule"].as_str() {
                *by.entry(rule.to_string()).or_default() += 1;
            }
        }
    }
    by
}

#[test]
fn coverage_agrees_with_the_explanations_and_does_not_depend_on_threads() {
    let (rulings, one) = ruled_with_coverage(&["--threads", "1", "--explain"]);
    let (_, two) = ruled_with_coverage(&["--threads", "2", "--batch", "7"]);
    assert_eq!(one, two, "coverage depends on threads or batches");
    assert_eq!(one["cases"], rulings.lines().count(), "{one}");
    let rules = one["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 47);
    let explained = explained_by(&rulings);
    let never: Vec<&str> = one["never_applied"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for r in rules {
        let id = r["rule"].as_str().unwrap();
        let n = |k: &str| r[k].as_u64().unwrap();
        // Every literal a rule explains was concluded by one of its instances (strict rules'
        // definite derivations count under `definite`).
        let used = explained.get(id).copied().unwrap_or(0);
        assert!(n("concluded") + n("definite") >= used, "{id}: {r} but explains {used}");
        assert!(n("concluded") <= n("applicable") && n("attacked") <= n("applicable"), "{r}");
        assert!(n("beaten") <= n("attacked") && n("beat") <= n("attacked"), "{r}");
        assert_eq!(never.contains(&id), n("applicable") + n("definite") == 0, "{r}");
        if never.contains(&id) {
            assert_eq!(used, 0, "{id} never applied yet explains {used} literals");
        }
    }
    // The sample games apply some rules and not others.
    assert!(!never.is_empty() && never.len() < rules.len(), "{never:?}");
    // Articles: each anchored rule counted under its fragment; the unanchored under null.
    let articles = one["articles"].as_array().unwrap();
    let listed: u64 = articles.iter().map(|a| a["rules"].as_u64().unwrap()).sum();
    let anchors: u64 = rules.iter().map(|r| r["articles"].as_array().unwrap().len().max(1) as u64).sum();
    assert_eq!(listed, anchors, "{articles:?}");
    assert!(articles.iter().any(|a| a["article"].is_null()), "the unanchored rules have their row");
    assert_eq!(one["priorities"].as_array().unwrap().len(), 1);
    // The document FORMAT.md describes, by its schema.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schemas/coverage.schema.json");
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&one).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut wrong = one.clone();
    wrong["rules"][0]["applicable"] = Value::from(-1);
    assert!(!validator.is_valid(&wrong), "the schema refuses a negative count");
}

#[test]
fn the_priority_is_counted_when_it_decides() {
    // Checkmate on the 75th move: the priority ranks CheckmateWins' side above the 75-move draw.
    let case = r#"{"case":"c","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]}}"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    let (code, _, err) =
        clir(&["rule", "--package", "fide.laws.chess", "--coverage", file.to_str().unwrap()], &format!("{case}\n"));
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["cases"], 1);
    assert_eq!(doc["priorities"][0]["decided"], 1, "{doc}");
    let lower = doc["priorities"][0]["lower"].as_str().unwrap();
    let beaten = doc["rules"].as_array().unwrap().iter().find(|r| r["rule"] == lower).unwrap();
    assert_eq!(beaten["beaten"], 1, "{beaten}");
}

#[test]
fn clir_test_writes_coverage_and_clir_coverage_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tests-coverage.json");
    let tests = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fide.laws.chess.tests.jsonl");
    let (code, _, err) = clir(&["test", "fide.laws.chess", tests, "--coverage", file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    // 14 tests, one of a case rejected for its missing grant: 13 cases ruled.
    assert_eq!(doc["cases"], 13, "{doc}");
    let (code, table, err) = clir(&["coverage", file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("fide.laws.chess 0.1.0: 13 cases"), "{table}");
    assert!(table.contains("article/9") && table.contains("never applied ("), "{table}");
    // Not a coverage file, not JSON, not there: exit 2 with a reason, no panic.
    for (content, says) in [("{}", "no coverage file"), ("[1,", "not JSON")] {
        std::fs::write(&file, content).unwrap();
        let (code, _, err) = clir(&["coverage", file.to_str().unwrap()], "");
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says), "{err}");
    }
    let (code, _, err) = clir(&["coverage", dir.path().join("absent").to_str().unwrap()], "");
    assert_eq!((code, err.contains("cannot read")), (2, true), "{err}");
}
