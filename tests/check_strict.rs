//! `clir check` certifies nothing clir would not rule, and nothing its certificate does not
//! prove (issue 45): a case line `clir rule` refuses is refused by the checker with clir's own
//! message; duplicate keys at any depth and keys the checker does not check are rejections; the
//! package's hashes are verified before any line; case ids are echoed as written and the case
//! line is hashed as `clir rule` hashes it; a body's lone variable costs no join.

use serde_json::{json, Value};
use std::path::Path;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const PACKAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl");
const ARBITER: &str = "judgment:FIDEArbiter";

fn package() -> clir_check::Package {
    clir_check::Package::parse(&std::fs::read(PACKAGE).unwrap()).unwrap()
}

/// `clir rule --certify` of the file `input` (bytes as given): its ruling lines.
fn certify(dir: &Path, input: &[u8], extra: &[&str]) -> Vec<String> {
    let file = dir.join("cases-to-rule.jsonl");
    std::fs::write(&file, input).unwrap();
    let mut args = vec!["rule", "--package", "fide.laws.chess", "--certify", "--input", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = clir(&args, "");
    assert!(code == 0 || code == 1, "{err}");
    out.lines().map(str::to_string).collect()
}

/// `clir check` of the case bytes and ruling lines: exit status, report lines, stderr.
fn check(dir: &Path, cases: &[u8], rulings: &[String], extra: &[&str]) -> (i32, Vec<Value>, String) {
    let (c, r) = (dir.join("cases.jsonl"), dir.join("rulings.jsonl"));
    std::fs::write(&c, cases).unwrap();
    std::fs::write(&r, rulings.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let mut args = vec!["check", PACKAGE, "--input", c.to_str().unwrap(), "--rulings", r.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out, err) = clir(&args, "");
    (code, out.lines().map(parse).collect(), err)
}

/// A line as JSON; a case id serde_json cannot hold (`1e400`) is read as a string of its text.
fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|_| serde_json::from_str(&line.replace("1e400", "\"1e400\"")).unwrap())
}

/// The sample game `g5` and its certified ruling.
fn g5(dir: &Path) -> (String, String) {
    let case = std::fs::read_to_string(GAMES).unwrap().lines().nth(4).unwrap().to_string();
    let ruling = certify(dir, format!("{case}\n").as_bytes(), &[]).remove(0);
    (case, ruling)
}

/// Case lines clir refuses, each for its own reason, and some it rules that a lax reader gets
/// wrong (case ids, escapes, `-0`, a name close to a constant).
fn hostile_lines() -> Vec<Vec<u8>> {
    let why_not_1025 = serde_json::to_string(&vec!["game_drawn(g)"; 1025]).unwrap();
    let mut lines: Vec<Vec<u8>> = [
        // Institutional facts, a judgment without its grant.
        r#"{"case":"k","facts":{"game_lost_by":[["g","w"]]}}"#,
        r#"{"case":"k2","facts":{"~game_drawn":[["g"]]}}"#,
        r#"{"case":"j","facts":{"piece_touched_intentionally":[["w","n"]]}}"#,
        // `as_of`.
        r#"{"case":"a1","as_of":"2022-12-31","facts":{}}"#,
        r#"{"case":"a2","as_of":20230101,"facts":{}}"#,
        r#"{"case":"a3","as_of":"2023-02-29","facts":{}}"#,
        r#"{"case":"a4","as_of":"2023-01-01","facts":{"stalemate_arisen":[["g"]]}}"#,
        r#"{"case":"a5","as_of":"2023-01-01","as_of":"2023-01-02","facts":{}}"#,
        // Duplicate and unknown keys.
        r#"{"case":"d1","facts":{},"facts":{"game_lost_by":[["g","w"]]}}"#,
        r#"{"case":"d2","facts":{"draw_agreed":[["g"]],"draw_agreed":[["h"]]}}"#,
        r#"{"case":"d3","case":"d4","facts":{}}"#,
        r#"{"case":{"id":1,"id":2},"facts":{}}"#,
        r#"{"case":[{"a":{"b":1,"b":1}}],"facts":{}}"#,
        r#"{"case":"u","facts":{},"extra":1}"#,
        r#"{"case":"u2","facts":{},"why_not":[],"why_not":[]}"#,
        r#"{"case":"m1"}"#,
        r#"{"facts":{}}"#,
        // `why_not` that does not parse.
        r#"{"case":"w1","facts":{},"why_not":["game_drawn(g"]}"#,
        r#"{"case":"w2","facts":{},"why_not":["no_such(g)"]}"#,
        r#"{"case":"w3","facts":{},"why_not":["game_drawnn(g)"]}"#,
        r#"{"case":"w4","facts":{},"why_not":["game_drawn(g,h)"]}"#,
        r#"{"case":"w5","facts":{},"why_not":["game_drawn()"]}"#,
        r#"{"case":"w6","facts":{},"why_not":["moves_by_each_without_pawn_or_capture(g,x)"]}"#,
        r#"{"case":"w7","facts":{},"why_not":["game_drawn(\"g)"]}"#,
        r#"{"case":"w8","facts":{},"why_not":["game_drawn(g) x"]}"#,
        r#"{"case":"w9","facts":{},"why_not":"game_drawn(g)"}"#,
        r#"{"case":"w10","facts":{},"why_not":[1]}"#,
        r#"{"case":"w11","facts":{},"why_not":["game_drawn(,)"]}"#,
        r#"{"case":"w12","facts":{},"why_not":["game_drawn(_)"]}"#,
        r#"{"case":"w13","facts":{},"why_not":[],"as_of":null}"#,
        r#"{"case":"w14","facts":{},"why_not":[]}"#,
        // Facts of the wrong shape or type.
        r#"{"case":"f1","facts":[]}"#,
        r#"{"case":"f2","facts":{"draw_agreed":5}}"#,
        r#"{"case":"f3","facts":{"draw_agreed":["g"]}}"#,
        r#"{"case":"f4","facts":{"draw_agreed":[{"a":1,"a":2}]}}"#,
        r#"{"case":"f5","facts":{"draw_agreed":[[{"a":1,"a":2}]]}}"#,
        r#"{"case":"f6","facts":{"draw_agreed":[["g","h"]]}}"#,
        r#"{"case":"f7","facts":{"moves_by_each_without_pawn_or_capture":[["g","80"]]}}"#,
        r#"{"case":"f8","facts":{"moves_by_each_without_pawn_or_capture":[["g",1.0]]}}"#,
        r#"{"case":"f9","facts":{"moves_by_each_without_pawn_or_capture":[["g",1e2]]}}"#,
        r#"{"case":"f10","facts":{"moves_by_each_without_pawn_or_capture":[["g",18446744073709551615]]}}"#,
        r#"{"case":"f11","facts":{"moves_by_each_without_pawn_or_capture":[["g",-0]]}}"#,
        r#"{"case":"f12","facts":{"draw_agreed":[[1]]}}"#,
        r#"{"case":"f13","facts":{"game_drawnn":[["g"]]}}"#,
        r#"{"case":"f14","facts":{"no_such_relation":[["g"]]}}"#,
        r#"{"case":"f15","facts":{"draw\u005fagreed":[["g"]],"~draw_agreed":[["h"]]}}"#,
        r#"{"case":"f16","facts":{"attempted_transition":[["g","startPlay"],["g","StartPlay"]]}}"#,
        r#"{"case":"f17","facts":{"draw_agreed":[null]}}"#,
        r#"{"case":"f18","facts":{"moves_by_each_without_pawn_or_capture":[["g",9223372036854775808]]}}"#,
        r#"{"case":"f19","facts":{"moves_by_each_without_pawn_or_capture":[["g",-9223372036854775808]]}}"#,
        r#"{"case":"f20","facts":{"moves_by_each_without_pawn_or_capture":[["g",-9223372036854775809]]}}"#,
        r#"{"case":"f21","facts":{"moves_by_each_without_pawn_or_capture":[["g",12345678901234567890123]]}}"#,
        r#"{"case":"f22","facts":{"draw_agreed":[],"stalemate_arisen":[["g\u0000"],["g"]]}}"#,
        r#"{"c\u0061se":"f23","facts":{"stalemate_arisen":[["g"]]}}"#,
        " { \"case\" : \"f24\" , \"facts\" : { \"stalemate_arisen\" : [ [ \"g\" ] ] } } \t",
        // Not JSON, or not an object.
        "not json",
        r#"{"case":1"#,
        r#"{"case":1,"facts":{}} x"#,
        "[1]",
        "null",
        "\u{a0}",
        // Case ids that a lax reader rounds or cannot read.
        r#"{"case":18446744073709551616,"facts":{}}"#,
        r#"{"case":1E2,"facts":{"stalemate_arisen":[["g"]]}}"#,
        r#"{"case":-0,"facts":{}}"#,
        r#"{"case":1e400,"facts":{}}"#,
        r#"{"case":[1e400],"facts":{}}"#,
        "{\"case\": [1, \"a b\",\t{\"x\" : 1.50}],\"facts\":{}}",
    ]
    .iter()
    .map(|l| l.as_bytes().to_vec())
    .collect();
    lines.push(format!(r#"{{"case":"w1025","facts":{{}},"why_not":{why_not_1025}}}"#).into_bytes());
    lines.push(b"{\"case\":\"bytes\",\"facts\":{\"draw_agreed\":[[\"\xff\"]]}}".to_vec());
    lines
}

#[test]
fn check_refuses_a_case_line_exactly_when_clir_rule_does_and_with_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let (_, forged) = g5(dir.path());
    for grant in [None, Some(ARBITER)] {
        let extra: Vec<&str> = grant.map(|g| vec!["--grant", g]).unwrap_or_default();
        let mut input = Vec::new();
        for l in hostile_lines() {
            input.extend_from_slice(&l);
            input.push(b'\n');
        }
        // A line ending `\r\r\n` keeps one `\r` (its line break is `\r\n`).
        input.extend_from_slice(b"{\"case\":\"cr\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\r\r\n");
        let ruled = certify(dir.path(), &input, &extra);
        assert_eq!(ruled.len(), hostile_lines().len() + 1);
        // Where clir refused the line, a certified ruling of another case stands in its place: a
        // forger's. Where it ruled it, its own certified ruling.
        let rulings: Vec<String> =
            ruled.iter().map(|r| if r.contains("\"error\":") { forged.clone() } else { r.clone() }).collect();
        let (code, reports, err) = check(dir.path(), &input, &rulings, &extra);
        assert_eq!(code, 1, "{err}");
        assert_eq!(reports.len(), ruled.len(), "{err}");
        let mut refused = 0;
        for (i, (ruling, report)) in ruled.iter().zip(&reports).enumerate() {
            let ruling = parse(ruling);
            assert_eq!(report["line"], i + 1);
            match ruling.get("error") {
                Some(error) => {
                    refused += 1;
                    assert_eq!(report["outcome"], "rejected", "{ruling}: {report}");
                    let step = report["step"].as_str().unwrap();
                    let reason = report["reason"].as_str().unwrap();
                    let want = error.as_str().unwrap();
                    if step == "line" {
                        // A line that is not text at all: no case to read.
                        assert!(want.ends_with(reason), "{ruling}: {report}");
                    } else {
                        assert_eq!(step, "case_line", "{ruling}: {report}");
                        assert_eq!(format!("line {}: {reason}", i + 1), want, "{report}");
                        assert_eq!(report["case"], ruling["case"], "{report}");
                    }
                }
                None => {
                    assert_eq!(report["outcome"], "certified", "{ruling}: {report}");
                    assert_eq!(report["case"], ruling["case"], "{report}");
                }
            }
        }
        assert!(refused >= 45, "{refused}");
    }
}

/// A certificate a forger writes for a case line `{"case":"k","facts":{REL:[ARGS]}}` that
/// states an institutional literal: the literal listed as an input fact, and concluded.
fn forged_fact(pkg: &clir_check::Package, case: &str, rel: &str, args: Value) -> String {
    let mut lit = vec![json!(rel)];
    lit.extend(args.as_array().unwrap().iter().cloned());
    let mut concluded = serde_json::Map::new();
    concluded.insert(rel.to_string(), json!([args]));
    json!({
        "case": "k", "concluded": concluded, "definite": concluded, "contradictions": [],
        "certificate": {"format": "clir.certificate/1", "seal": pkg.seal, "case": clir_check::sha256(case.as_bytes()),
            "nodes": [], "D": [[0, lit, "fact"]], "S": [], "d": []}
    })
    .to_string()
}

#[test]
fn an_institutional_literal_stated_as_a_fact_is_never_certified() {
    let pkg = package();
    let case = r#"{"case":"k","facts":{"game_lost_by":[["g","w"]]}}"#;
    let ruling = forged_fact(&pkg, case, "game_lost_by", json!(["g", "w"]));
    match clir_check::check_line(&pkg, case, &ruling) {
        clir_check::Verdict::Rejected(f) => {
            assert_eq!(f.step, "case_line");
            assert_eq!(
                f.reason,
                "relation `game_lost_by` is institutional: it is derived by rules and cannot be given as input"
            );
        }
        other => panic!("accepted: {other:?}"),
    }
}

#[test]
fn a_judgment_fact_is_certified_only_under_its_grant() {
    let dir = tempfile::tempdir().unwrap();
    let case = r#"{"case":"touch","facts":{"piece_touched_intentionally":[["w","n"]],"own_piece_of":[["w","n"]],"piece_can_be_moved":[["n"]],"player_has_the_move":[["g","w"]]}}"#;
    let input = format!("{case}\n");
    let rulings = certify(dir.path(), input.as_bytes(), &["--grant", ARBITER]);
    assert!(rulings[0].contains("must_move_first_touched_piece"), "{rulings:?}");
    let (code, reports, err) = check(dir.path(), input.as_bytes(), &rulings, &["--grant", ARBITER]);
    assert_eq!((code, &reports[0]["outcome"]), (0, &json!("certified")), "{err}");
    let (code, reports, err) = check(dir.path(), input.as_bytes(), &rulings, &[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(reports[0]["step"], "case_line");
    assert_eq!(
        reports[0]["reason"],
        "relation `piece_touched_intentionally` is a judgment reserved to capability `judgment:FIDEArbiter`; it is accepted only with --grant judgment:FIDEArbiter"
    );
    // A misspelt grant is refused before anything is read, as `clir rule` refuses it.
    let (code, _, err) = check(dir.path(), input.as_bytes(), &rulings, &["--grant", "judgment:FideArbiter"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown capability `judgment:FideArbiter` (did you mean `judgment:FIDEArbiter`?)"), "{err}");
}

#[test]
fn a_relation_without_parameters_takes_a_list_as_its_tuple() {
    let kit = clir_testkit::Package::parse(
        "package test.nullary 0.1.0
         type Game
         empirical started
         institutional done
         rule Done strict: done :- started",
    )
    .unwrap();
    let pkg = clir_check::Package::parse(&kit.bytes()).unwrap();
    let ruling = |case: &str| {
        json!({
            "case": "z", "concluded": {"done": [[]]}, "definite": {"done": [[]]}, "contradictions": [],
            "certificate": {"format": "clir.certificate/1", "seal": pkg.seal, "case": clir_check::sha256(case.as_bytes()),
                "nodes": [kit.id("Done")], "D": [[0, ["started"], "fact"], [1, ["done"], [0, ["D0"]]]], "S": [], "d": []}
        })
        .to_string()
    };
    let good = r#"{"case":"z","facts":{"started":[[]]}}"#;
    assert_eq!(clir_check::check_line(&pkg, good, &ruling(good)), clir_check::Verdict::Certified);
    for (bad, why) in [
        (
            r#"{"case":"z","facts":{"started":[5]}}"#,
            "relation `started`: each tuple must be a list of arguments, got 5",
        ),
        (
            r#"{"case":"z","facts":{"started":[{}]}}"#,
            "relation `started`: each tuple must be a list of arguments, got {}",
        ),
        (
            r#"{"case":"z","facts":{"started":["x"]}}"#,
            "relation `started`: each tuple must be a list of arguments, got \"x\"",
        ),
    ] {
        match clir_check::check_line(&pkg, bad, &ruling(bad)) {
            clir_check::Verdict::Rejected(f) => assert_eq!((f.step.as_str(), f.reason.as_str()), ("case_line", why)),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

/// The g5 ruling line with `edit` applied to its JSON text.
fn edited(ruling: &str, edit: impl Fn(&str) -> String) -> String {
    let out = edit(ruling);
    assert_ne!(out, ruling, "the edit changes the line");
    out
}

#[test]
fn duplicate_keys_and_keys_the_checker_does_not_check_are_rejections() {
    let dir = tempfile::tempdir().unwrap();
    let (case, ruling) = g5(dir.path());
    let pkg = package();
    assert_eq!(clir_check::check_line(&pkg, &case, &ruling), clir_check::Verdict::Certified);
    let value: Value = serde_json::from_str(&ruling).unwrap();
    let with = |k: &str, v: Value| {
        let mut r = value.clone();
        r[k] = v;
        r.to_string()
    };
    let with_cert = |k: &str, v: Value| {
        let mut r = value.clone();
        r["certificate"][k] = v;
        r.to_string()
    };
    let nodes = value["certificate"]["nodes"].as_array().unwrap().clone();
    let mut twice = nodes.clone();
    twice.push(nodes[0].clone());
    let mut extra = nodes.clone();
    extra.push(json!("urn:fide:laws:clir:chess#AgreedDraw"));
    let cases: Vec<(&str, String, &str, &str)> = vec![
        // A duplicate key: the first one is what the checker would read, the last what serde_json's
        // Value keeps.
        (
            "a duplicate top-level key",
            edited(&ruling, |r| r.replacen("{\"case\":\"g5\",", "{\"case\":\"g5\",\"concluded\":{},", 1)),
            "line",
            "duplicate key `concluded`",
        ),
        (
            "a duplicate key in the certificate",
            edited(&ruling, |r| r.replacen("\"certificate\":{", "\"certificate\":{\"d\":[],", 1)),
            "line",
            "duplicate key `d`",
        ),
        (
            "a duplicate relation in `concluded`",
            edited(&ruling, |r| r.replacen("\"concluded\":{", "\"concluded\":{\"game_won_by\":[[\"g5\",\"w\"]],", 1)),
            "line",
            "duplicate key",
        ),
        (
            "a duplicate case key",
            edited(&ruling, |r| r.replacen("{\"case\":\"g5\",", "{\"case\":\"g5\",\"case\":\"g5\",", 1)),
            "line",
            "duplicate key `case`",
        ),
        (
            "a forged why_not answer",
            with("why_not", json!({"game_drawn(g5)": {"concluded": true}})),
            "ruling",
            "`why_not`",
        ),
        ("forged explanations", with("explanations", json!({})), "ruling", "`explanations`"),
        ("an extra key", with("note", json!("trust me")), "ruling", "`note`"),
        ("a forged warning", with("warnings", json!(["all is well"])), "ruling", "warnings"),
        ("an empty warnings list", with("warnings", json!([])), "ruling", "warnings"),
        ("an extra certificate key", with_cert("proof", json!(1)), "certificate", "`proof`"),
        ("a node listed twice", with_cert("nodes", Value::Array(twice)), "nodes", "listed twice"),
        ("a node no entry names", with_cert("nodes", Value::Array(extra)), "nodes", "named by no entry"),
        (
            "a relation listed with no tuples",
            {
                let mut r = value.clone();
                r["concluded"]["game_drawn"] = json!([]);
                r.to_string()
            },
            "line",
            "non-empty list",
        ),
        (
            "a tuple listed twice",
            {
                let mut r = value.clone();
                let t = r["concluded"]["game_won_by"][0].clone();
                r["concluded"]["game_won_by"].as_array_mut().unwrap().push(t);
                r.to_string()
            },
            "line",
            "listed twice",
        ),
        (
            "a relation whose tuples are no list",
            {
                let mut r = value.clone();
                r["concluded"]["game_drawn"] = json!("g5");
                r.to_string()
            },
            "line",
            "non-empty list",
        ),
    ];
    for (name, line, step, reason) in cases {
        match clir_check::check_line(&pkg, &case, &line) {
            clir_check::Verdict::Rejected(f) => {
                assert_eq!(f.step, step, "{name}: {f:?}");
                assert!(f.reason.contains(reason), "{name}: {f:?}");
            }
            other => panic!("{name}: {other:?}\n{line}"),
        }
    }
    // A duplicate key inside the case line is clir's error, whatever the ruling.
    let dup = case.replacen("\"facts\":{", "\"facts\":{\"draw_agreed\":[[\"x\"]],\"draw_agreed\":[[\"x\"]],", 1);
    match clir_check::check_line(&pkg, &dup, &ruling) {
        clir_check::Verdict::Rejected(f) => {
            assert!(f.reason.contains("duplicate key `draw_agreed` in `facts`"), "{f:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_tampered_package_is_refused_before_any_line_and_the_summary_names_the_package() {
    let dir = tempfile::tempdir().unwrap();
    let (case, ruling) = g5(dir.path());
    let input = format!("{case}\n");
    let (code, _, err) = check(dir.path(), input.as_bytes(), std::slice::from_ref(&ruling), &[]);
    assert_eq!(code, 0, "{err}");
    let seal = package().seal;
    assert!(err.contains(&format!("fide.laws.chess 0.1.0 ({seal}): 1 case: 1 certified")), "{err}");
    // A rule's label changed, its contentHash kept: still canonical, but no longer what was hashed.
    let text = std::fs::read_to_string(PACKAGE).unwrap();
    let tampered = text.replacen("The game is drawn upon agreement", "The game is drawn upon disagreement", 1);
    assert_ne!(tampered, text);
    let bad = dir.path().join("tampered.lawir.json");
    std::fs::write(&bad, &tampered).unwrap();
    let (c, r) = (dir.path().join("c.jsonl"), dir.path().join("r.jsonl"));
    std::fs::write(&c, &input).unwrap();
    std::fs::write(&r, format!("{ruling}\n")).unwrap();
    let args = ["check", bad.to_str().unwrap(), "--input", c.to_str().unwrap(), "--rulings", r.to_str().unwrap()];
    let (code, out, err) = clir(&args, "");
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("urn:fide:laws:clir:chess#AgreedDraw"), "{err}");
    assert!(err.contains("contentHash"), "{err}");
    // A file that is not canonical JSON (a final newline) is refused too.
    std::fs::write(&bad, text.clone() + "\n").unwrap();
    let (code, _, err) = clir(&args, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not canonical"), "{err}");
    // A duplicate key in the package is no package.
    std::fs::write(&bad, text.replacen("{\"features\":", "{\"features\":[],\"features\":", 1)).unwrap();
    let (code, _, err) = clir(&args, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("duplicate key `features`"), "{err}");
}

#[test]
fn case_ids_are_echoed_as_written_and_the_case_line_is_hashed_as_clir_rule_hashes_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"{\"case\":18446744073709551616,\"facts\":{}}\n{\"case\":18446744073709551617,\"facts\":{}}\n\
{\"case\":1E2,\"facts\":{}}\n{\"case\":-0,\"facts\":{}}\n{\"case\": [1, \"a b\",\t{\"x\" : 1.50}],\"facts\":{}}\n\
{\"case\":1e400,\"facts\":{}}\n{\"case\":\"cr\",\"facts\":{\"stalemate_arisen\":[[\"g\"]]}}\r\r\n\
{\"case\":\"crlf\",\"facts\":{}}\r\n";
    let rulings = certify(dir.path(), input, &[]);
    assert_eq!(rulings.len(), 8, "{rulings:?}");
    let (code, reports, err) = check(dir.path(), input, &rulings, &[]);
    assert_eq!(code, 0, "{err}\n{reports:?}");
    let (_, out, _) = {
        let c = dir.path().join("cases.jsonl");
        let r = dir.path().join("rulings.jsonl");
        clir(&["check", PACKAGE, "--input", c.to_str().unwrap(), "--rulings", r.to_str().unwrap()], "")
    };
    let ids: Vec<&str> =
        out.lines().map(|l| &l[l.find("\"case\":").unwrap() + 7..l.find(",\"line\"").unwrap()]).collect();
    assert_eq!(
        ids,
        [
            "18446744073709551616",
            "18446744073709551617",
            "1E2",
            "-0",
            "[1,\"a b\",{\"x\":1.50}]",
            "1e400",
            "\"cr\"",
            "\"crlf\""
        ]
    );
    // Two cases whose ids a lax reader rounds to one are two cases: a ruling of the one is not
    // the other's.
    let swapped = [rulings[1].clone(), rulings[0].clone()];
    let two = b"{\"case\":18446744073709551616,\"facts\":{}}\n{\"case\":18446744073709551617,\"facts\":{}}\n";
    let (code, reports, _) = check(dir.path(), two, &swapped, &[]);
    assert_eq!(code, 1);
    assert!(reports.iter().all(|r| r["outcome"] == "rejected"), "{reports:?}");
}

/// The case of issue 45: one game, the en passant right open, `n` players to move and `n`
/// capturing pawns.
fn en_passant(n: usize) -> String {
    let players: Vec<Value> = (0..n).map(|i| json!(["g", format!("p{i}")])).collect();
    let pawns: Vec<Value> = (0..n).map(|i| json!(["g", format!("q{i}")])).collect();
    json!({"case": "ep", "facts": {"en_passant_right_open": [["g"]], "player_has_the_move": players,
        "capturing_pawn_on_adjacent_file": pawns}})
    .to_string()
}

/// The certificate clir writes for [`en_passant`]`(n)`: the facts, then each capture legal by
/// rule EnPassantCaptureLegal over the open right, `witness(i)`'s player and pawn `i`.
fn en_passant_ruling(pkg: &clir_check::Package, case: &str, n: usize, witness: impl Fn(usize) -> usize) -> String {
    let mut d = vec![json!([0, ["en_passant_right_open", "g"], "fact"])];
    d.extend((0..n).map(|i| json!([0, ["player_has_the_move", "g", format!("p{i}")], "fact"])));
    d.extend((0..n).map(|i| json!([0, ["capturing_pawn_on_adjacent_file", "g", format!("q{i}")], "fact"])));
    d.extend((0..n).map(|i| {
        let premises = [format!("D{}", 1 + witness(i)), "D0".to_string(), format!("D{}", 1 + n + i)];
        json!([1, ["en_passant_capture_legal", "g", format!("q{i}")], [0, premises]])
    }));
    let legal: Vec<Value> = (0..n).map(|i| json!(["g", format!("q{i}")])).collect();
    json!({"case": "ep", "concluded": {"en_passant_capture_legal": legal}, "definite": {"en_passant_capture_legal": legal},
        "contradictions": [], "certificate": {"format": "clir.certificate/1", "seal": pkg.seal,
        "case": clir_check::sha256(case.as_bytes()), "nodes": ["urn:fide:laws:clir:chess#EnPassantCaptureLegal"],
        "D": d, "S": [], "d": []}})
    .to_string()
}

#[test]
fn a_lone_variable_costs_no_join() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package();
    // clir's own certificate of a small such case is the one this test writes.
    let small = en_passant(3);
    let ruled: Value =
        serde_json::from_str(&certify(dir.path(), format!("{small}\n").as_bytes(), &[]).remove(0)).unwrap();
    let mine: Value = serde_json::from_str(&en_passant_ruling(&pkg, &small, 3, |_| 0)).unwrap();
    let entries = |v: &Value| {
        let mut e: Vec<String> = v["certificate"]["D"].as_array().unwrap().iter().map(|e| e[1].to_string()).collect();
        e.sort();
        e
    };
    assert_eq!(entries(&ruled), entries(&mine));
    assert_eq!(clir_check::check_line(&pkg, &small, &mine.to_string()), clir_check::Verdict::Certified);
    // 4,000 players and 4,000 pawns: 16 million bindings of (who, pawn) took minutes.
    let n = 4000;
    let case = en_passant(n);
    let ruling = en_passant_ruling(&pkg, &case, n, |_| 0);
    let start = std::time::Instant::now();
    assert_eq!(clir_check::check_line(&pkg, &case, &ruling), clir_check::Verdict::Certified);
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
    let value: Value = serde_json::from_str(&ruling).unwrap();
    // Any listed witness of the lone variable will do, not only the least one.
    let other = en_passant_ruling(&pkg, &case, n, |i| (i * 7) % n);
    assert_eq!(clir_check::check_line(&pkg, &case, &other), clir_check::Verdict::Certified);
    let d = value["certificate"]["D"].as_array().unwrap();
    // And the step that derives nothing unlisted still sees every pawn: one left out is missed.
    let mut dropped = value.clone();
    let at = d.iter().position(|e| e[1][0] == "en_passant_capture_legal").unwrap();
    let lit = d[at][1].clone();
    dropped["certificate"]["D"].as_array_mut().unwrap().remove(at);
    for layer in ["D", "S", "d"] {
        for e in dropped["certificate"][layer].as_array_mut().unwrap() {
            let Some(premises) = e.get_mut(2).and_then(|h| h.get_mut(1)).and_then(Value::as_array_mut) else {
                continue;
            };
            for p in premises {
                let r = p.as_str().unwrap().to_string();
                if let Some(k) = r.strip_prefix('D').and_then(|k| k.parse::<usize>().ok()) {
                    assert_ne!(k, at, "nothing rests on the entry dropped");
                    if k > at {
                        *p = json!(format!("D{}", k - 1));
                    }
                }
            }
        }
    }
    for key in ["concluded", "definite"] {
        let tuples = dropped[key]["en_passant_capture_legal"].as_array_mut().unwrap();
        tuples.retain(|t| t[1] != lit[2]);
    }
    match clir_check::check_line(&pkg, &case, &dropped.to_string()) {
        clir_check::Verdict::Rejected(f) => {
            assert_eq!(f.step, "fixpoint", "{f:?}");
            assert_eq!(f.literal, Some(format!("en_passant_capture_legal(g,{})", lit[2].as_str().unwrap())), "{f:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_genuine_why_not_answer_is_not_certified_but_the_same_case_without_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let asked = r#"{"case":"q","facts":{"stalemate_arisen":[["g"]]},"why_not":["game_won_by(g,w)","game_drawn(g)"]}"#;
    let plain = r#"{"case":"q","facts":{"stalemate_arisen":[["g"]]}}"#;
    let input = format!("{asked}\n{plain}\n");
    let rulings = certify(dir.path(), input.as_bytes(), &[]);
    assert!(rulings[0].contains("\"why_not\":"), "{}", rulings[0]);
    let (code, reports, err) = check(dir.path(), input.as_bytes(), &rulings, &[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(reports[0]["outcome"], "rejected");
    assert_eq!(reports[0]["step"], "ruling");
    assert_eq!(
        reports[0]["reason"],
        "the ruling line carries `why_not`, which no certificate proves: a certified ruling has only case, concluded, definite, contradictions, warnings, certificate"
    );
    assert_eq!(reports[1]["outcome"], "certified");
}
