//! Certificates (`clir rule --certify`) and their independent checker (`clir check`,
//! `clir-check`): every certificate of real rulings is accepted, and a certificate or ruling
//! changed in any one way is rejected with the step that breaks.

use serde_json::{json, Value};
use std::io::Write;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

#[path = "../benches/gen.rs"]
mod gen;

const PACKAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl");

fn package() -> clir_check::Package {
    clir_check::Package::parse(&std::fs::read(PACKAGE).unwrap()).unwrap()
}

/// `clir rule --certify` of `cases`: the ruling lines.
fn certify(cases: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["rule", "--package", "fide.laws.chess", "--certify"];
    args.extend_from_slice(extra);
    let (code, out, err) = clir(&args, cases);
    assert!(code == 0 || code == 1, "{err}");
    out.lines().map(str::to_string).collect()
}

/// `clir check` of `cases` and `rulings` (written to files in `dir`): exit status, report
/// lines, stderr.
fn check(dir: &std::path::Path, cases: &str, rulings: &str) -> (i32, Vec<Value>, String) {
    let (c, r) = (dir.join("cases.jsonl"), dir.join("rulings.jsonl"));
    std::fs::write(&c, cases).unwrap();
    std::fs::write(&r, rulings).unwrap();
    let (code, out, err) =
        clir(&["check", PACKAGE, "--input", c.to_str().unwrap(), "--rulings", r.to_str().unwrap()], "");
    (code, out.lines().map(|l| serde_json::from_str(l).unwrap()).collect(), err)
}

#[test]
fn every_certificate_of_the_sample_games_is_accepted() {
    let cases = std::fs::read_to_string(GAMES).unwrap();
    let rulings = certify(&cases, &[]);
    let dir = tempfile::tempdir().unwrap();
    let (code, reports, err) = check(dir.path(), &cases, &(rulings.join("\n") + "\n"));
    assert_eq!(reports.len(), 300, "{err}");
    assert!(reports.iter().all(|r| r["outcome"] == "certified"), "{reports:?}");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("300 cases: 300 certified, 0 rejected, 0 not ruled"), "{err}");
}

#[test]
fn every_certificate_of_ten_thousand_generated_games_is_accepted() {
    let cases: String = gen::lines(10_000, 29).map(|l| l + "\n").collect();
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("games.jsonl"), dir.path().join("rulings.jsonl"));
    std::fs::write(&input, &cases).unwrap();
    let files = ["--input", input.to_str().unwrap(), "--output", output.to_str().unwrap()];
    assert!(certify("", &files).is_empty());
    let rulings: Vec<String> = std::fs::read_to_string(&output).unwrap().lines().map(str::to_string).collect();
    let pkg = package();
    assert_eq!(rulings.len(), 10_000);
    for (case, ruling) in cases.lines().zip(&rulings) {
        assert_eq!(clir_check::check_line(&pkg, case, ruling), clir_check::Verdict::Certified, "{case}\n{ruling}");
    }
}

/// The sample game `g5` (a checkmate after 75 moves: `~game_drawn` concluded against an attack
/// its priority beats) and its certified ruling, as JSON.
fn g5() -> (String, Value) {
    let case = std::fs::read_to_string(GAMES).unwrap().lines().nth(4).unwrap().to_string();
    let ruling = certify(&format!("{case}\n"), &[]).remove(0);
    (case, serde_json::from_str(&ruling).unwrap())
}

/// The verdict on `ruling` changed by `change`: the failure.
fn rejected(case: &str, ruling: &Value, change: impl FnOnce(&mut Value)) -> clir_check::Failure {
    let mut changed = ruling.clone();
    change(&mut changed);
    match clir_check::check_line(&package(), case, &changed.to_string()) {
        clir_check::Verdict::Rejected(f) => f,
        other => panic!("accepted a changed certificate: {other:?}\n{changed}"),
    }
}

fn assert_reason(f: &clir_check::Failure, literal: Option<&str>, step: &str, reason: &str) {
    assert_eq!(f.literal.as_deref(), literal, "{f:?}");
    assert!(f.step.starts_with(step), "{f:?}");
    assert!(f.reason.contains(reason), "{f:?}");
}

/// The index in `list` of the entry for `literal`.
fn entry(list: &Value, literal: Value) -> usize {
    list.as_array().unwrap().iter().position(|e| e[1] == literal).unwrap_or_else(|| panic!("{literal} in {list}"))
}

#[test]
fn the_unchanged_certificate_is_accepted() {
    let (case, ruling) = g5();
    assert_eq!(clir_check::check_line(&package(), &case, &ruling.to_string()), clir_check::Verdict::Certified);
    assert!(ruling["certificate"]["d"].as_array().unwrap().iter().any(|e| e.get(3).is_some()), "an attack: {ruling}");
}

#[test]
fn a_dropped_literal_is_missing_from_the_fixpoint() {
    let (case, ruling) = g5();
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        let last = d.len() - 1;
        d.remove(last);
    });
    assert_reason(&f, Some("entered_state(g5,Ended)"), "fixpoint", "not listed in +D");
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["d"].as_array_mut().unwrap().clear();
    });
    assert_reason(
        &f,
        Some("~game_drawn(g5)"),
        "fixpoint",
        "every attack on it is beaten, but the literal is not listed in +d",
    );
}

#[test]
fn an_added_literal_is_unjustified() {
    let (case, ruling) = g5();
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["D"].as_array_mut().unwrap().push(json!([0, ["checkmate_delivered", "g5", "black"], "fact"]));
    });
    assert_reason(&f, Some("checkmate_delivered(g5,black)"), "+D", "the case line does not state it");
    // The same literal as a rule's conclusion: the rule's premises do not give it.
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        let mut copy = d.iter().find(|e| e[1][0] == "game_won_by").unwrap().clone();
        copy[1][2] = json!("black");
        d.push(copy);
    });
    assert_reason(
        &f,
        Some("game_won_by(g5,black)"),
        "+D",
        "#CheckmateWins: its premises are not an instance of its body",
    );
}

#[test]
fn a_swapped_rank_breaks_the_order_of_a_derivation() {
    let (case, ruling) = g5();
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        let won = d.iter().position(|e| e[1][0] == "game_won_by").unwrap();
        d[won][0] = json!(0);
    });
    assert_reason(&f, Some("game_won_by(g5,white)"), "+D", "not below this entry's rank 0");
}

#[test]
fn a_beaten_attack_without_its_priority_is_refused() {
    let (case, ruling) = g5();
    let i = entry(&ruling["certificate"]["d"], json!(["~game_drawn", "g5"]));
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["d"][i].as_array_mut().unwrap().truncate(3);
    });
    assert_reason(&f, Some("~game_drawn(g5)"), "+d", "#SeventyFiveAutomaticDraw applies and is not shown beaten");
    // The priority named as a rule instead.
    let f = rejected(&case, &ruling, |r| {
        let a = r["certificate"]["d"][i][3][0].clone();
        r["certificate"]["d"][i][3][0][2] = a[1].clone();
    });
    assert_reason(&f, Some("~game_drawn(g5)"), "+d", "[attacking rule, beating rule, priority]");
}

#[test]
fn a_changed_rule_id_seal_or_case_hash_is_refused() {
    let (case, ruling) = g5();
    let won = ruling["certificate"]["D"].as_array().unwrap().iter().find(|e| e[1][0] == "game_won_by").unwrap().clone();
    let node = won[2][0].as_u64().unwrap() as usize;
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["nodes"][node] = json!("urn:fide:laws:clir:chess#StalemateDraws");
    });
    assert_reason(&f, Some("game_won_by(g5,white)"), "+D", "its head is of another relation or sign");
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["nodes"][node] = json!("urn:fide:laws:clir:chess#NoSuchRule");
    });
    assert_reason(&f, None, "nodes", "#NoSuchRule is no rule, closure or priority");
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["seal"] = json!(format!("sha256:{}", "0".repeat(64)));
    });
    assert_reason(&f, None, "seal", "not sha256:");
    let f = rejected(&format!("{case} "), &ruling, |_| {});
    assert_reason(&f, None, "case", "hashed");
}

#[test]
fn a_changed_binding_is_no_instance_of_the_rule() {
    let (case, ruling) = g5();
    let d = ruling["certificate"]["D"].as_array().unwrap();
    let won = d.iter().position(|e| e[1][0] == "game_won_by").unwrap();
    // The premise checkmate_delivered(g5,white) swapped for another input fact of the case.
    let other = d.iter().position(|e| e[1][0] == "play_started").unwrap();
    let f = rejected(&case, &ruling, |r| {
        r["certificate"]["D"][won][2][1] = json!([format!("D{other}")]);
    });
    assert_reason(&f, Some("game_won_by(g5,white)"), "+D", "not an instance of its body");
    // A premise of another layer than its status asks for.
    let s = ruling["certificate"]["S"].as_array().unwrap();
    assert!(!s.is_empty(), "{ruling}");
    let f = rejected(&case, &ruling, |r| {
        let refs = r["certificate"]["D"][won][2][1].as_array_mut().unwrap();
        let premise = refs[0].as_str().unwrap().to_string();
        refs[0] = json!(premise.replace('D', "S"));
    });
    assert_eq!(f.literal.as_deref(), Some("game_won_by(g5,white)"), "{f:?}");
}

#[test]
fn a_ruling_that_differs_from_its_certificate_is_refused() {
    let (case, ruling) = g5();
    let f = rejected(&case, &ruling, |r| {
        r["concluded"].as_object_mut().unwrap().remove("~game_drawn");
    });
    assert_reason(&f, Some("~game_drawn(g5)"), "ruling", "the ruling does not list it as concluded");
    let f = rejected(&case, &ruling, |r| {
        r["definite"]["game_drawn"] = json!([["g5"]]);
    });
    assert_reason(&f, Some("game_drawn(g5)"), "ruling", "not +D");
    let f = rejected(&case, &ruling, |r| {
        r.as_object_mut().unwrap().remove("certificate");
    });
    assert_reason(&f, None, "certificate", "--certify");
}

#[test]
fn a_failure_is_reported_with_its_case_literal_and_step_and_exits_1() {
    let (case, ruling) = g5();
    let mut broken = ruling.clone();
    broken["certificate"]["d"].as_array_mut().unwrap().clear();
    let error = certify("{\"case\":\"bad\",\"facts\":{\"game_drawn\":[[\"g\"]]}}\n", &[]).remove(0);
    let dir = tempfile::tempdir().unwrap();
    let cases = format!("{case}\n\n{case}\n{{\"case\":\"bad\",\"facts\":{{\"game_drawn\":[[\"g\"]]}}}}\n{case}\n");
    let rulings = format!("{ruling}\n{broken}\n{error}\n");
    let (code, reports, err) = check(dir.path(), &cases, &rulings);
    assert_eq!(code, 1, "{err}");
    assert_eq!(reports.len(), 4, "{reports:?}");
    assert_eq!(reports[0], json!({"line": 1, "case": "g5", "outcome": "certified"}));
    assert_eq!(reports[1]["line"], 3);
    assert_eq!(reports[1]["outcome"], "rejected");
    assert_eq!(reports[1]["literal"], "~game_drawn(g5)");
    assert_eq!(reports[1]["step"], "fixpoint");
    assert_eq!(reports[2]["outcome"], "not_ruled");
    assert_eq!(reports[3]["reason"], "no ruling line answers this case line");
    assert!(err.contains("4 cases: 1 certified, 2 rejected, 1 not ruled"), "{err}");
}

#[test]
fn hostile_lines_and_ranks_are_rejected_without_a_panic() {
    let (case, ruling) = g5();
    let dir = tempfile::tempdir().unwrap();
    // A 16 MB line that is no JSON, among the cases and among the rulings.
    let garbage = "{\"case\":[".repeat(16 << 20 >> 9) + &"x".repeat(16 << 20);
    let (code, reports, err) = check(dir.path(), &format!("{garbage}\n{case}\n"), &format!("{garbage}\n{ruling}\n"));
    assert_eq!(code, 1, "{err}");
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["outcome"], "rejected");
    assert!(reports[0]["reason"].as_str().unwrap().contains("not JSON"), "{:?}", reports[0]);
    assert_eq!(reports[1]["outcome"], "certified");
    // Ranks far beyond any derivation: the largest whole number, and one beyond 2^64.
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        for e in d.iter_mut() {
            e[0] = json!(u64::MAX);
        }
    });
    assert!(f.reason.contains("not below this entry's rank 18446744073709551615"), "{f:?}");
    let huge: Value = serde_json::from_str("1e300").unwrap();
    let f = rejected(&case, &ruling, |r| r["certificate"]["D"][0][0] = huge);
    assert_reason(&f, None, "+D[0]", "a rank is a whole number below 2^64");
    // A premise index beyond every list, a node index beyond the table.
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        let last = d.len() - 1;
        d[last][2][1] = json!([format!("D{}", usize::MAX)]);
    });
    assert!(f.reason.contains("is not listed"), "{f:?}");
    let f = rejected(&case, &ruling, |r| {
        let d = r["certificate"]["D"].as_array_mut().unwrap();
        let last = d.len() - 1;
        d[last][2][0] = json!(u64::MAX);
    });
    assert!(f.reason.contains("node index"), "{f:?}");
}

#[test]
fn a_check_writes_its_report_to_a_file_and_refuses_two_stdins() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = clir(&["check", PACKAGE, "--rulings", "-"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("both be read from stdin"), "{err}");
    let (case, ruling) = g5();
    let rulings = dir.path().join("r.jsonl");
    std::fs::File::create(&rulings).unwrap().write_all(format!("{ruling}\n").as_bytes()).unwrap();
    let report = dir.path().join("report.jsonl");
    let (code, out, err) = clir(
        &["check", PACKAGE, "--rulings", rulings.to_str().unwrap(), "--output", report.to_str().unwrap()],
        &format!("{case}\n"),
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "{\"case\":\"g5\",\"line\":1,\"outcome\":\"certified\"}\n");
    let (code, _, err) = clir(&["check", "/no/such/package.lawir.json", "--rulings", rulings.to_str().unwrap()], "");
    assert_eq!(code, 2, "{err}");
}
