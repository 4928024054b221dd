//! `clir rule` and `clir run` as users call them: exit statuses, one line per case, error lines.

use std::io::Write;
use std::process::{Command, Stdio};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

#[test]
fn rule_writes_one_line_per_case_in_order_and_exits_1_when_one_is_rejected() {
    let input = concat!(
        "{\"case\":\"a\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
        "\n",
        "not json\n",
        "{\"case\":\"b\",\"facts\":{\"player_of\":[[\"g\",\"w\",\"x\"]]}}\n",
        "{\"case\":\"c\",\"facts\":{\"game_drawn\":[[\"g\"]]}}\n",
        "{\"case\":\"d\",\"facts\":{},\"extra\":1}\n",
        "{\"case\":\"e\",\"facts\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]]}}\n",
        "{\"case\":\"f\",\"facts\":{\"draw_agreed\":[[\"g\"]],\"draw_agreed\":[[\"h\"]]}}\n",
    );
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], input);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(lines[0]["concluded"]["game_drawn"], serde_json::json!([["g"]]));
    assert_eq!(lines[1]["case"], serde_json::Value::Null);
    assert!(lines[1]["error"].as_str().unwrap().starts_with("line 3: "));
    assert_eq!(lines[2]["error"], "line 4: relation `player_of` takes 2 arguments (game: Game, who: Player), got 3");
    assert!(lines[3]["error"].as_str().unwrap().contains("institutional"));
    assert!(lines[4]["error"].as_str().unwrap().contains("unknown key `extra`"));
    assert!(lines[5]["error"].as_str().unwrap().contains("judgment:FIDEArbiter"));
    assert!(lines[6]["error"].as_str().unwrap().contains("duplicate key `draw_agreed`"));
    // With the grant the judgment case is ruled.
    let (code, out, _) = clir(
        &["rule", "--package", "fide.laws.chess", "--grant", "judgment:FIDEArbiter"],
        "{\"case\":\"e\",\"facts\":{\"piece_touched_intentionally\":[[\"w\",\"n\"]]}}\n",
    );
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_unknown_package_or_unreadable_input_cannot_run() {
    let (code, _, err) = clir(&["rule", "--package", "no.such.package"], "");
    assert_eq!(code, 2);
    assert!(err.contains("fide.laws.chess"), "{err}");
    let (code, _, _) = clir(&["rule", "--package", "fide.laws.chess", "--input", "/no/such/file"], "");
    assert_eq!(code, 2);
}

#[test]
fn run_refuses_an_unverifiable_package_before_building_anything() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("bad.lawir.json");
    let mut bytes =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json")).unwrap();
    bytes.push(b'\n');
    std::fs::write(&pkg, bytes).unwrap();
    let cache = dir.path().join("cache");
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", pkg.to_str().unwrap()])
        .env("CLIR_CACHE_DIR", &cache)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL"));
    assert!(!cache.exists(), "nothing may be built for a package that does not verify");
}

const STALEMATE: &str = "{\"case\":\"a\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n";

#[test]
fn output_may_be_the_input_and_a_file_is_replaced_only_when_complete() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cases.jsonl");
    std::fs::write(&f, STALEMATE.repeat(3)).unwrap();
    let f = f.to_str().unwrap();
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--input", f, "--output", f], "");
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let written = std::fs::read_to_string(f).unwrap();
    assert_eq!(written.lines().count(), 3, "{written}");
    assert!(written.lines().all(|l| l.contains("\"game_drawn\":[[\"g\"]]")), "{written}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left behind");
}

#[test]
fn dash_is_stdin_and_stdout() {
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess", "--input", "-", "--output", "-"], STALEMATE);
    assert_eq!(code, 0);
    assert!(out.contains("\"game_drawn\":[[\"g\"]]"), "{out}");
}

#[test]
fn threads_and_batch_are_bounded() {
    for flags in [["--threads", "100000"], ["--threads", "0"], ["--batch", "0"], ["--batch", "1099511627776"]] {
        let mut args = vec!["rule", "--package", "fide.laws.chess"];
        args.extend(flags);
        let (code, _, err) = clir(&args, STALEMATE);
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(err.contains("expected a whole number from"), "{flags:?}: {err}");
    }
}

#[test]
fn a_line_of_other_white_space_is_a_case_with_its_error_line() {
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], "\u{a0}\n \t\r\n\u{2028}\n");
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 2, "NBSP and U+2028 lines are cases; a line of spaces and tabs is blank: {out}");
}

#[test]
fn a_case_of_many_distinct_names_is_ruled() {
    // Per-case name look-up is a hash map: 10^5 distinct names in one case are ruled, not refused.
    let rows: Vec<String> = (0..100_000).map(|i| format!("[\"g\",\"p{i}\"]")).collect();
    let line = format!("{{\"case\":\"big\",\"facts\":{{\"player_of\":[{}]}}}}\n", rows.join(","));
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess"], &line);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1);
}

#[test]
fn a_case_of_a_million_facts_is_ruled_and_one_beyond_the_limit_is_an_error_line() {
    let facts = |n: usize| format!("[{}[\"g\"]]", "[\"g\"],".repeat(n - 1));
    let input = format!(
        "{{\"case\":1,\"facts\":{{\"stalemate_arisen\":{}}}}}\n{{\"case\":2,\"facts\":{{\"stalemate_arisen\":{}}}}}\n",
        facts(1_000_000),
        facts(clir::jsonl::MAX_FACTS_PER_CASE + 1)
    );
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess"], &input);
    assert_eq!(code, 1, "{err}");
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["concluded"]["game_drawn"], serde_json::json!([["g"]]));
    assert_eq!(lines[1]["error"], "line 2: the case has 10000001 facts; at most 10000000 are accepted");
}

#[test]
fn run_refuses_a_cache_others_can_write_and_has_no_shared_fallback() {
    use std::os::unix::fs::PermissionsExt;
    let blob = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", blob])
        .env("CLIR_CACHE_DIR", &cache)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("can be written by others"), "{out:?}");

    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", blob])
        .env_remove("CLIR_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("set CLIR_CACHE_DIR"), "{out:?}");
}

#[test]
fn a_line_that_is_not_utf8_says_so() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["rule", "--package", "fide.laws.chess"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{\"case\":\"a\",\"facts\":{}}\n\xff\xfe\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1], r#"{"case":null,"error":"line 2: the line is not UTF-8 (invalid byte at 0)"}"#);
}

#[test]
fn a_duplicate_key_inside_the_case_value_is_an_error_line() {
    let (code, out, _) = clir(
        &["rule", "--package", "fide.laws.chess"],
        "{\"case\":{\"id\":1,\"id\":2},\"facts\":{}}\n{\"case\":{\"id\":[{\"a\":1}]},\"facts\":{}}\n",
    );
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("duplicate key `id` in the `case` value"), "{out}");
    assert!(lines[1].starts_with("{\"case\":{\"id\":[{\"a\":1}]},\"concluded\""), "{out}");
}

#[test]
fn minus_zero_is_the_integer_zero_and_a_fraction_is_not_an_integer() {
    let input = concat!(
        "{\"case\":\"a\",\"facts\":{\"position_occurrence_count\":[[\"g\",-0]]}}\n",
        "{\"case\":\"b\",\"facts\":{\"position_occurrence_count\":[[\"g\",0.5]]}}\n",
    );
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], input);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(code, 1, "{out}");
    assert!(lines[0].get("error").is_none(), "{out}");
    assert_eq!(lines[1]["error"], "line 2: relation `position_occurrence_count`: argument `n` is an Integer, got 0.5");
}

#[test]
fn entity_names_that_could_be_misread_are_quoted_in_written_literals() {
    // In game `g,a` player `b` resigns, in game `g` player `a,b`: bare, both losses would be
    // written `game_lost_by(g,a,b)` and their explanations would share one key.
    let input = concat!(
        "{\"case\":1,\"facts\":{\"player_of\":[[\"g,a\",\"b\"],[\"g\",\"a,b\"]],",
        "\"player_resigned\":[[\"b\"],[\"a,b\"]],\"~king_cannot_be_checkmated\":[[\"b\"],[\"a,b\"]]}}\n",
    );
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess", "--explain"], input);
    assert_eq!(code, 0, "{out}");
    let line: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(line["concluded"]["game_lost_by"], serde_json::json!([["g", "a,b"], ["g,a", "b"]]));
    let keys: Vec<&String> =
        line["explanations"].as_object().unwrap().keys().filter(|k| k.starts_with("game_lost_by")).collect();
    assert_eq!(keys, ["game_lost_by(\"g,a\",b)", "game_lost_by(g,\"a,b\")"]);
}

#[test]
fn a_misspelt_grant_relation_or_package_gets_the_name_it_was_meant_to_be() {
    // An unknown capability is refused before any case is ruled (it would make every judgment
    // line an error line), naming the closest and every capability of the package.
    let (code, out, err) = clir(
        &["rule", "--package", "fide.laws.chess", "--grant", "judgment:FideArbiter"],
        "{\"case\":1,\"facts\":{}}\n",
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "");
    assert!(err.contains("unknown capability `judgment:FideArbiter` (did you mean `judgment:FIDEArbiter`?)"), "{err}");
    assert!(err.contains("reserves its judgments to judgment:FIDEArbiter"), "{err}");
    let (code, _, err) = clir(&["rule", "--package", "fide.laws.chess", "--grant", "root"], "");
    assert_eq!(code, 2);
    assert!(err.contains("unknown capability `root`:"), "no suggestion for a name far from any: {err}");
    // A relation of a case line, and of a why_not.
    let input = concat!(
        "{\"case\":\"a\",\"facts\":{\"stalemate_arisn\":[[\"g\"]]}}\n",
        "{\"case\":\"b\",\"facts\":{},\"why_not\":[\"game_drawnn(g)\"]}\n",
        "{\"case\":\"c\",\"facts\":{\"zzz\":[[\"g\"]]}}\n",
    );
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], input);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["error"], "line 1: unknown relation `stalemate_arisn` (did you mean `stalemate_arisen`?)");
    assert!(lines[1]["error"].as_str().unwrap().contains("(did you mean `game_drawn`?)"), "{out}");
    assert_eq!(lines[2]["error"], "line 3: unknown relation `zzz`");
    // A package.
    let (code, _, err) = clir(&["rule", "--package", "fide.law.chess"], "");
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "no package compiled into this clir is named `fide.law.chess` either (did you mean `fide.laws.chess`?)"
        ),
        "{err}"
    );
}

#[test]
fn an_error_line_names_one_line_and_places_the_json_error_by_column() {
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], "\n{\"case\":\"x\"}\n");
    assert_eq!(code, 1);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["error"], "line 2: missing key `facts` (column 12)");
}

#[test]
fn schema_lists_what_a_case_may_say_and_rule_help_shows_a_case_line() {
    let (code, out, err) = clir(&["schema", "fide.laws.chess"], "");
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("player_of ")).unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains("empirical") && row.ends_with("game: Game, who: Player"), "{row}");
    let judgment = out.lines().find(|l| l.starts_with("piece_touched_intentionally ")).unwrap();
    assert!(judgment.contains("judgment") && judgment.contains("--grant judgment:FIDEArbiter"), "{judgment}");
    assert!(out.contains("  GamePlayTransition: ") && out.contains("StartPlay"), "{out}");
    // The example case line is one the package rules.
    let example = out.lines().find_map(|l| l.split_once("explicit negative): ")).unwrap().1;
    let (code, ruled, _) = clir(&["rule", "--package", "fide.laws.chess"], &format!("{example}\n"));
    assert_eq!(code, 0, "{ruled}");
    // --json: the service's schema, every relation with its kind and typed parameters.
    let (code, out, _) = clir(&["schema", "fide.laws.chess", "--json"], "");
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["name"], "fide.laws.chess");
    let player_of = json["relations"].as_array().unwrap().iter().find(|r| r["name"] == "player_of").unwrap();
    assert_eq!(player_of["params"][1], serde_json::json!({"name": "who", "type": "Player", "integer": false}));
    let (code, _, err) = clir(&["schema", "fide.law.chess"], "");
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `fide.laws.chess`"), "{err}");
    let (code, help, _) = clir(&["rule", "--help"], "");
    assert_eq!(code, 0);
    assert!(help.contains("A case is one JSON object a line") && help.contains("clir schema PACKAGE"), "{help}");
}

#[test]
fn a_misspelt_constant_is_a_warning_and_under_strict_constants_an_error() {
    let case = "{\"case\":\"x\",\"facts\":{\"attempted_transition\":[[\"g\",\"startPlay\"],[\"h\",\"Foo\"],[\"i\",\"StartPlay\"]]}}\n";
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], case);
    assert_eq!(code, 0, "a warning rejects nothing");
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let warnings = line["warnings"].as_array().unwrap_or_else(|| panic!("{out}"));
    // `Foo` is too far from every GamePlayTransition to be one misspelt: an entity of the type.
    assert_eq!(warnings.len(), 1, "{out}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.contains("`startPlay` is not a declared GamePlayTransition (did you mean `StartPlay`?)"), "{w}");
    assert!(w.ends_with("it was read as a new GamePlayTransition"), "{w}");
    // A line without one has no `warnings` key.
    let (_, out, _) = clir(&["rule", "--package", "fide.laws.chess"], "{\"case\":\"y\",\"facts\":{}}\n");
    assert!(!out.contains("warnings"), "{out}");
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess", "--strict-constants"], case);
    assert_eq!(code, 1);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let err = line["error"].as_str().unwrap_or_else(|| panic!("{out}"));
    assert!(err.starts_with("line 1: relation `attempted_transition`: argument `transition`: `startPlay`"), "{err}");
}

#[test]
fn a_case_dated_before_the_law_is_in_force_is_refused_naming_both_dates() {
    let input = concat!(
        "{\"case\":\"2022\",\"as_of\":\"2022-12-31\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
        "{\"case\":\"2023\",\"as_of\":\"2023-01-01\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
        "{\"case\":\"undated\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\n",
        "{\"case\":\"bad\",\"as_of\":\"1 January 2023\",\"facts\":{}}\n",
        "{\"case\":\"twice\",\"as_of\":\"2023-01-01\",\"as_of\":\"2023-01-02\",\"facts\":{}}\n",
    );
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], input);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        lines[0]["error"],
        "line 1: the case is dated 2022-12-31 (as_of), before fide.laws.chess 0.1.0 is in force (2023-01-01)"
    );
    assert_eq!(lines[1]["concluded"]["game_drawn"], serde_json::json!([["g"]]), "{out}");
    assert_eq!(lines[2]["concluded"], lines[1]["concluded"], "{out}");
    assert!(lines[3]["error"].as_str().unwrap().contains("`as_of` is a date written YYYY-MM-DD"), "{out}");
    assert!(lines[4]["error"].as_str().unwrap().contains("duplicate key `as_of`"), "{out}");
    // `clir schema` and `clir show` say when the law is in force.
    let (_, schema, _) = clir(&["schema", "fide.laws.chess"], "");
    assert!(schema.lines().nth(1).unwrap().starts_with("in force from 2023-01-01"), "{schema}");
}

#[test]
fn why_not_of_an_entity_the_case_never_mentions_says_so() {
    let case = "{\"case\":\"x\",\"facts\":{\"player_of\":[[\"g\",\"b\"]]},\"why_not\":[\"game_drawn(zzz)\",\"game_lost_by(g,zzz)\",\"game_drawn(g)\"]}\n";
    let (code, out, _) = clir(&["rule", "--package", "fide.laws.chess"], case);
    assert_eq!(code, 0);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let unknown = serde_json::json!({"concluded": false, "reasons": [{"kind": "unknown_entity", "entity": "zzz"}]});
    assert_eq!(line["why_not"]["game_drawn(zzz)"], unknown, "{out}");
    assert_eq!(line["why_not"]["game_lost_by(g,zzz)"], unknown, "{out}");
    // An entity the case has gets the rules' reasons.
    let reasons = line["why_not"]["game_drawn(g)"]["reasons"].as_array().unwrap();
    assert!(reasons.len() > 1 && reasons.iter().all(|r| r["kind"] != "unknown_entity"), "{out}");
}
