//! `clir test PACKAGE TESTS.jsonl`: the worked rulings of SEMANTICS §5 as a law test file
//! (`tests/fide.laws.chess.tests.jsonl`), and what a failing, malformed or hostile test file gets.

use serde_json::{json, Value};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

fn reports(out: &str) -> Vec<Value> {
    out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

#[test]
fn the_worked_rulings_of_fide_laws_chess_pass() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fide.laws.chess.tests.jsonl");
    let (code, out, err) = clir(&["test", "fide.laws.chess", path], "");
    let lines = reports(&out);
    assert_eq!(lines.len(), 14, "one report a test: {out}");
    assert!(lines.iter().all(|l| l["outcome"] == "passed"), "{out}");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("14 tests, 14 passed, 0 failed"), "{err}");
}

#[test]
fn a_failed_expectation_names_the_literal_and_what_the_ruling_held_and_exits_1() {
    let tests = [
        json!({"case": "drawn", "facts": {"stalemate_arisen": [["g"]]}, "expect": {
            "concluded": ["game_won_by(g,w)", "game_drawn(g)"],
            "not_concluded": ["game_drawn( g )"],
            "not_definite": ["game_drawn(g)"],
            "decided_by": {"game_drawn(g)": "urn:fide:laws:clir:chess#CheckmateWins"},
        }}),
        json!({"case": "ruled", "facts": {}, "expect": {"error": "anything"}}),
        json!({"case": "rejected", "facts": {"game_drawn": [["g"]]}, "expect": {"concluded": []}}),
    ];
    let input: String = tests.iter().map(|t| format!("{t}\n")).collect();
    let (code, out, err) = clir(&["test", "fide.laws.chess", "-"], &input);
    assert_eq!(code, 1, "{err}");
    let lines = reports(&out);
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0]["outcome"], "failed");
    // Each failure about a literal carries its why-not answer: why it is not concluded, or
    // the explanation of what was held.
    let mut failures = lines[0]["failures"].clone();
    let why: Vec<serde_json::Value> = failures
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .map(|f| f.as_object_mut().unwrap().remove("why_not").unwrap())
        .collect();
    assert_eq!(why[0]["concluded"], false);
    assert_eq!(why[0]["reasons"][0]["kind"], "unknown_entity", "{}", why[0]);
    for w in &why[1..] {
        assert_eq!(w["concluded"], true);
        assert_eq!(w["explanation"]["rule"], "urn:fide:laws:clir:chess#StalemateDraws");
    }
    assert_eq!(
        failures,
        json!([
            {"expected": "concluded", "literal": "game_won_by(g,w)", "got": "not concluded"},
            {"expected": "not_concluded", "literal": "game_drawn(g)", "got": "concluded"},
            {"expected": "not_definite", "literal": "game_drawn(g)", "got": "definite"},
            {"expected": "decided_by", "literal": "game_drawn(g)", "rule": "urn:fide:laws:clir:chess#CheckmateWins",
             "got": "decided by urn:fide:laws:clir:chess#StalemateDraws"},
        ]),
        "{out}"
    );
    assert_eq!(lines[1]["failures"][0]["expected"], "error", "{out}");
    assert_eq!(lines[1]["failures"][0]["got"], "the case was ruled", "{out}");
    assert_eq!(lines[2]["failures"][0]["expected"], "a ruling", "{out}");
    assert!(lines[2]["failures"][0]["got"].as_str().unwrap().contains("institutional"), "{out}");
    assert!(err.contains("3 tests, 0 passed, 3 failed"), "{err}");
}

#[test]
fn every_test_line_gets_one_report_even_when_it_is_no_test() {
    let input = concat!(
        "not json\n",
        "\n",
        "[1,2]\n",
        "{\"case\":\"no expect\",\"facts\":{}}\n",
        "{\"case\":\"typo\",\"facts\":{},\"expect\":{\"concludd\":[]}}\n",
        "{\"case\":\"unknown\",\"facts\":{},\"expect\":{\"concluded\":[\"game_drawnn(g)\"]}}\n",
        "{\"case\":\"arity\",\"facts\":{},\"expect\":{\"concluded\":[\"game_drawn(g,h)\"]}}\n",
        "{\"case\":\"unclosed\",\"facts\":{},\"expect\":{\"concluded\":[\"game_drawn(\\\"g)\"]}}\n",
        "{\"case\":\"grants\",\"facts\":{},\"grants\":\"judgment:FIDEArbiter\",\"expect\":{}}\n",
    );
    let (code, out, _) = clir(&["test", "fide.laws.chess", "-"], input);
    assert_eq!(code, 1);
    let lines = reports(&out);
    let lines_of: Vec<u64> = lines.iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(lines_of, [1, 3, 4, 5, 6, 7, 8, 9], "blank lines are no tests: {out}");
    let errors: Vec<&str> = lines.iter().map(|l| l["failures"][0]["error"].as_str().unwrap_or("")).collect();
    assert!(errors[0].starts_with("not JSON"), "{out}");
    assert!(errors[1].contains("JSON object"), "{out}");
    assert!(errors[2].contains("`expect`"), "{out}");
    assert!(errors[3].contains("unknown expectation `concludd`"), "{out}");
    assert!(errors[4].contains("unknown relation `game_drawnn`"), "{out}");
    assert!(errors[5].contains("takes 1 arguments"), "{out}");
    assert!(errors[6].contains("does not end"), "{out}");
    assert!(errors[7].contains("`grants`"), "{out}");
    assert_eq!(lines[3]["case"], "typo");
}

#[test]
fn a_package_not_compiled_in_or_a_missing_file_cannot_run() {
    let (code, _, err) = clir(&["test", "no.such.package", "-"], "");
    assert_eq!(code, 2);
    assert!(err.contains("no package compiled into this clir is named `no.such.package`"), "{err}");
    let (code, _, err) = clir(&["test", "fide.laws.chess", "/nonexistent/tests.jsonl"], "");
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn a_package_file_is_verified_and_compiled_as_run_compiles_it() {
    let tmp = tempfile::tempdir().unwrap();
    let package = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
    let tests = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fide.laws.chess.tests.jsonl");
    // `false` stands in for cargo: the package verifies, its crate is written, the build fails.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["test", package, tests])
        .env("CLIR_CACHE_DIR", tmp.path().join("cache"))
        .env("CARGO", "false")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("clir test:") && err.contains("cargo build failed"), "{err}");
    // A name that is neither compiled in nor a file.
    let (code, _, err) = clir(&["test", "no/such/package.lawir.json", tests], "");
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
}
