//! The JSON Schemas of `docs/schemas/` (docs/FORMAT.md) hold for what clir really reads and
//! writes: every schema is itself a valid draft 2020-12 schema; the law test file and every
//! example line of FORMAT.md validate; and every line that `clir rule` (with and without
//! `--explain`, with `why_not`, rejected lines, a contradiction), `clir test` (passing and
//! failing tests), `clir stream` and the diff lines of `clir diff` (`clir::diff::diff_lines`, the
//! function `clir diff` writes its lines with, fed real ruling lines) write validates against its
//! format's schema. A few lines each schema must refuse keep them from accepting anything.

use jsonschema::Validator;
use serde_json::{json, Value};
use std::path::Path;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PACKAGE: &str = "fide.laws.chess";
const TESTS: &str = "tests/fide.laws.chess.tests.jsonl";
const ARBITER: &str = "judgment:FIDEArbiter";

/// Every schema file, by the name FORMAT.md's example blocks use (` ```json NAME `).
const SCHEMAS: [&str; 10] =
    ["case", "ruling", "update", "stream-ruling", "diff", "test", "test-report", "coverage", "certificate", "analysis"];

/// The schema `docs/schemas/NAME.schema.json`, checked against its meta-schema, compiled.
fn schema(name: &str) -> Validator {
    let path = Path::new(ROOT).join("docs/schemas").join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(doc["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
    if let Err(e) = jsonschema::meta::validate(&doc) {
        panic!("{name}.schema.json is not a valid schema: {e} at {}", e.instance_path());
    }
    jsonschema::draft202012::new(&doc).unwrap_or_else(|e| panic!("{name}.schema.json: {e}"))
}

/// Asserts that every non-blank line of `lines` is JSON valid against schema `name`; returns
/// the lines read.
fn check(name: &str, lines: &str, what: &str) -> Vec<Value> {
    let v = schema(name);
    let mut read = Vec::new();
    for (i, line) in lines.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{what} line {}: {e}: {line}", i + 1));
        let errors: Vec<String> = v.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{what} line {} is not a valid {name} line: {errors:#?}\n{line}", i + 1);
        read.push(value);
    }
    assert!(!read.is_empty(), "{what}: no line to check");
    read
}

/// Asserts that schema `name` refuses `value`.
fn refuses(name: &str, value: Value) {
    assert!(!schema(name).is_valid(&value), "{name} accepts {value}");
}

fn test_file() -> String {
    std::fs::read_to_string(Path::new(ROOT).join(TESTS)).unwrap()
}

/// The case lines of the law test file (without `expect` and `grants`), each asking why not
/// about a few literals, then lines a ruler rejects, and a contradiction.
fn case_lines() -> String {
    let mut out = String::new();
    for line in test_file().lines().filter(|l| !l.trim().is_empty()) {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let obj = v.as_object_mut().unwrap();
        obj.remove("expect");
        obj.remove("grants");
        obj.insert(
            "why_not".into(),
            json!(["game_drawn(g)", "~game_drawn(g)", "illegal_move(g)", "legal_move(g)", "castling_legal(g,w,k)"]),
        );
        out.push_str(&format!("{v}\n"));
    }
    out.push_str("{\"case\":\"both\",\"facts\":{\"stalemate_arisen\":[[\"g\"]],\"~stalemate_arisen\":[[\"g\"]]}}\n");
    out.push_str("{\"case\":[1, 2],\"facts\":{\"player_of\":[[\"g\",\"b\",\"c\"]]}}\n");
    out.push_str("{\"case\":3,\"facts\":{},\"why_not\":[\"no_such_relation(g)\"]}\n");
    out.push_str("{\"case\":\"dated\",\"as_of\":\"2023-03-01\",\"facts\":{\"attempted_transition\":[[\"g\",\"startPlay\"]]},\"why_not\":[\"game_drawn(g)\"]}\n");
    out.push_str("{\"case\":\"early\",\"as_of\":\"2022-03-01\",\"facts\":{}}\n");
    out.push_str("not json\n\n");
    out
}

#[test]
fn every_schema_is_a_valid_schema() {
    let mut files: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs/schemas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut named: Vec<String> = SCHEMAS.iter().map(|n| format!("{n}.schema.json")).collect();
    named.sort();
    assert_eq!(files, named, "docs/schemas/ holds exactly the schemas this test checks");
    for name in SCHEMAS {
        schema(name);
    }
}

#[test]
fn format_md_examples_validate() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/FORMAT.md")).unwrap();
    let mut seen = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("```json ") else { continue };
        assert!(SCHEMAS.contains(&name), "FORMAT.md: a block names `{name}`, which is no schema");
        let block: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        check(name, &block.join("\n"), &format!("FORMAT.md `{name}` example"));
        seen.push(name);
    }
    for name in SCHEMAS {
        assert!(seen.contains(&name), "FORMAT.md has no ```json {name} example");
    }
}

#[test]
fn the_law_test_file_validates() {
    let tests = check("test", &test_file(), TESTS);
    assert!(tests.len() >= 13);
    let cases: Vec<String> = tests
        .into_iter()
        .map(|mut t| {
            let obj = t.as_object_mut().unwrap();
            obj.remove("expect");
            obj.remove("grants");
            t.to_string()
        })
        .collect();
    check("case", &cases.join("\n"), "the test file's case lines");
    // Every JSON line this test rules is a case line by the schema (the ruler rejects some of
    // them for what only the package can tell: an arity, a relation's name).
    let lines = case_lines();
    let json_lines: Vec<&str> = lines.lines().filter(|l| l.starts_with('{')).collect();
    check("case", &json_lines.join("\n"), "this test's case lines");
}

#[test]
fn rulings_validate() {
    let input = case_lines();
    for explain in [false, true] {
        let mut args = vec!["rule", "--package", PACKAGE, "--grant", ARBITER];
        if explain {
            args.push("--explain");
        }
        let (status, out, err) = clir(&args, &input);
        assert_eq!(status, 1, "some lines are rejected: {err}");
        let lines = check("ruling", &out, &format!("clir rule (explain: {explain})"));
        assert_eq!(lines.len(), input.lines().filter(|l| !l.trim().is_empty()).count());
        let has = |f: &dyn Fn(&Value) -> bool| lines.iter().any(f);
        assert!(has(&|l| l["error"].is_string() && l["case"].is_null()), "an unreadable line");
        assert!(has(&|l| l["error"].is_string() && l["case"] == json!([1, 2])), "a rejected case");
        assert!(has(&|l| l["contradictions"] == json!(["stalemate_arisen(g)"])), "a contradiction");
        assert!(has(&|l| l["why_not"]["legal_move(g)"]["concluded"] == false), "a why-not answer");
        assert!(has(&|l| l["why_not"]["game_drawn(g)"]["concluded"] == true), "a concluded why-not");
        assert!(has(&|l| l["warnings"].is_array() && l["why_not"].is_object()), "a warning beside a why-not");
        assert!(has(&|l| l["case"] == "early" && l["error"].is_string()), "a case dated before the law");
        assert_eq!(has(&|l| l["explanations"].is_object()), explain);
        if explain {
            let text = out.as_str();
            for part in ["\"closure\":", "\"overcame\":", "\"fact\":\"input\"", "\"kind\":\"attacked\""] {
                assert!(text.contains(part), "the explained rulings hold {part}");
            }
        }
    }
}

#[test]
fn certified_rulings_validate() {
    let input = case_lines();
    let (status, out, err) = clir(&["rule", "--package", PACKAGE, "--grant", ARBITER, "--certify"], &input);
    assert_eq!(status, 1, "some lines are rejected: {err}");
    let lines = check("ruling", &out, "clir rule --certify");
    let certificates: Vec<String> =
        lines.iter().filter(|l| l["error"].is_null()).map(|l| l["certificate"].to_string()).collect();
    let checked = check("certificate", &certificates.join("\n"), "the certificates of clir rule --certify");
    let has = |key: &str| checked.iter().any(|c| c[key].as_array().is_some_and(|l| !l.is_empty()));
    assert!(has("D") && has("S") && has("d"), "every layer holds an entry somewhere");
    refuses("certificate", json!({"format": "clir.certificate/1"}));
    let mut bad = checked[0].clone();
    bad["D"] = json!([[-1, ["game_drawn", "g"], "fact"]]);
    refuses("certificate", bad);
}

#[test]
fn law_test_reports_validate() {
    let (status, out, err) = clir(&["test", PACKAGE, TESTS], "");
    assert_eq!(status, 0, "{err}");
    let reports = check("test-report", &out, "clir test");
    assert!(reports.iter().all(|r| r["outcome"] == "passed"));
    // Failing tests of every kind, and a line that is no test.
    let failing = [
        json!({"case":"a","facts":{},"expect":{"concluded":["game_drawn(x)"],"decided_by":{"game_drawn(x)":"r"}}}),
        json!({"case":"b","facts":{},"expect":{"error":"zz"}}),
        json!({"case":"c","facts":{"no_such_relation":[["g"]]},"expect":{}}),
        json!({"case":"d","facts":{"stalemate_arisen":[["g"]]},"expect":{"not_concluded":["game_drawn(g)"],"not_definite":["game_drawn(g)"]}}),
        json!({"case":"e","facts":{},"expect":{"maybe":[]}}),
    ];
    let input: String = failing.iter().map(|t| format!("{t}\n")).chain(["not json\n".to_string()]).collect();
    let (status, out, err) = clir(&["test", PACKAGE, "-"], &input);
    assert_eq!(status, 1, "{err}");
    let reports = check("test-report", &out, "clir test (failing)");
    assert_eq!(reports.len(), 6);
    assert!(reports.iter().all(|r| r["outcome"] == "failed"));
}

#[test]
fn stream_lines_validate() {
    let updates = [
        r#"{"case":"g1","time":1,"add":{"player_of":[["g1","w"],["g1","b"]],"player_resigned":[["b"]]}}"#,
        r#"{"case":"g1","time":2,"add":{"~king_cannot_be_checkmated":[["b"]],"stalemate_arisen":[["g1"]],"~stalemate_arisen":[["g1"]]}}"#,
        r#"{"case":"g1","time":3,"remove":{"player_resigned":[["b"]]}}"#,
        r#"{"case":"g2","time":4}"#,
        r#"{"case":"h","add":{"player_of":[["g","b","x"]]}}"#,
    ]
    .join("\n");
    check("update", &updates, "the update lines");
    let (status, out, err) = clir(&["stream", "--package", PACKAGE], &format!("{updates}\nnot an update\n"));
    assert_eq!(status, 1, "two lines are rejected: {err}");
    let lines = check("stream-ruling", &out, "clir stream");
    assert!(lines.iter().any(|l| l["contradictions"] == json!(["stalemate_arisen(g1)"])));
    assert_eq!(lines.iter().filter(|l| l["error"].is_string()).count(), 2);
    // A stream line is not a ruling line (it has `time`), nor the other way round.
    assert!(!schema("ruling").is_valid(&lines[0]));
    refuses("stream-ruling", json!({"case":"g","concluded":{},"definite":{},"contradictions":[]}));
}

#[test]
fn diff_lines_validate() {
    // Real ruling lines for one case under two sets of facts stand for its rulings under two
    // versions of a law: `clir diff` compares its two rulers' lines with `diff_lines`.
    let facts = [
        json!({"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",80]]}),
        json!({"moves_by_each_without_pawn_or_capture":[["g",75]]}),
        json!({"player_of":[["g","b","extra"]]}),
    ];
    let mut diffs = Vec::new();
    for explain in [false, true] {
        let mut args = vec!["rule", "--package", PACKAGE];
        if explain {
            args.push("--explain");
        }
        let input: String = facts.iter().map(|f| format!("{}\n", json!({"case":"g","facts":f}))).collect();
        let (_, out, err) = clir(&args, &input);
        let rulings: Vec<&str> = out.lines().collect();
        assert_eq!(rulings.len(), 3, "{err}");
        for (old, new) in [(0, 1), (1, 0), (0, 2), (2, 1)] {
            let compared = clir::diff::diff_lines(rulings[old], rulings[new]).unwrap();
            diffs.push(compared.line.expect("the rulings differ"));
        }
    }
    let lines = check("diff", &diffs.join("\n"), "diff lines");
    assert!(lines.iter().any(|l| l["old"]["error"].is_string()));
    assert!(lines.iter().any(|l| l["new"]["explanations"].is_object()));
}

#[test]
fn schemas_refuse_what_clir_refuses() {
    let ruled = json!({"case":"g","concluded":{"game_drawn":[["g"]]},"definite":{},"contradictions":[]});
    assert!(schema("ruling").is_valid(&ruled));
    let mut extra = ruled.clone();
    extra["extra"] = json!(1);
    refuses("ruling", extra);
    refuses("ruling", json!({"case":"g","concluded":{"game_drawn":[["g"]]},"definite":{}}));
    refuses("ruling", json!({"case":"g","concluded":{"game_drawn":[[1.5]]},"definite":{},"contradictions":[]}));
    refuses("ruling", json!({"case":"g","concluded":{"game_drawn":[]},"definite":{},"contradictions":[]}));
    refuses("case", json!({"case":"g"}));
    refuses("case", json!({"case":"g","facts":{},"other":1}));
    refuses("case", json!({"case":"g","facts":{"p":[[true]]}}));
    refuses("case", json!({"case":"g","facts":{"p":[["a"]]},"why_not":["p"]}));
    refuses("update", json!({"case":"g","time":-1}));
    refuses("update", json!({"case":"g","facts":{}}));
    refuses("test", json!({"case":"g","facts":{}}));
    refuses("test", json!({"case":"g","facts":{},"expect":{"maybe":[]}}));
    refuses("test-report", json!({"case":"g","line":1,"outcome":"failed"}));
    refuses("test-report", json!({"case":"g","line":1,"outcome":"passed","failures":[{"error":"x"}]}));
    refuses("diff", json!({"case":"g","old":{},"new":{},"added":{},"removed":{}}));
}
