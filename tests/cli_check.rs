//! Certificates (`clir rule --certify`) and their independent checker (`clir check`,
//! `clir-check`): every certificate of real rulings is accepted, and a certificate or ruling
//! changed in any one way is rejected with the step that breaks.

use serde_json::{json, Value};
use std::io::Write;

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

#[path = "support/mutations.rs"]
mod mutations;

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

#[test]
fn the_unchanged_certificate_is_accepted() {
    let (case, ruling) = g5();
    assert_eq!(clir_check::check_line(&package(), &case, &ruling.to_string()), clir_check::Verdict::Certified);
    assert!(ruling["certificate"]["d"].as_array().unwrap().iter().any(|e| e.get(3).is_some()), "an attack: {ruling}");
}

#[test]
fn a_certificate_or_ruling_changed_in_any_one_way_is_rejected_with_the_step_that_breaks() {
    let (case, ruling) = g5();
    let pkg = package();
    let all = mutations::mutations(&case, &ruling);
    assert!(all.len() >= 20, "{}", all.len());
    for m in all {
        let f = match clir_check::check_line(&pkg, &m.case, &m.ruling) {
            clir_check::Verdict::Rejected(f) => f,
            other => panic!("{}: accepted ({other:?})", m.name),
        };
        if let Some(literal) = m.literal {
            assert_eq!(f.literal.as_deref(), literal, "{}: {f:?}", m.name);
        }
        assert!(f.step.starts_with(m.step), "{}: {f:?}", m.name);
        assert!(f.reason.contains(m.reason), "{}: {f:?}", m.name);
    }
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
fn hostile_lines_are_rejected_without_a_panic() {
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
}

#[test]
fn clir_run_certifies_and_counts_coverage_as_clir_rule_does_and_clir_check_accepts_it() {
    // `clir run` compiles the package file into a cache private to this test file.
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_check-cache");
    let dir = tempfile::tempdir().unwrap();
    let (certified, coverage) = (dir.path().join("certified.jsonl"), dir.path().join("coverage.json"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", PACKAGE, "--certify", "--input", GAMES, "--output", certified.to_str().unwrap()])
        .args(["--coverage", coverage.to_str().unwrap()])
        .env("CLIR_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rulings = std::fs::read_to_string(&certified).unwrap();
    let cases = std::fs::read_to_string(GAMES).unwrap();
    assert_eq!(rulings, certify(&cases, &[]).join("\n") + "\n", "the lines `clir rule --certify` writes");
    let (code, reports, err) = check(dir.path(), &cases, &rulings);
    assert_eq!(code, 0, "{err}");
    assert_eq!(reports.len(), 300);
    assert!(reports.iter().all(|r| r["outcome"] == "certified"), "{err}");
    let counted: Value = serde_json::from_slice(&std::fs::read(&coverage).unwrap()).unwrap();
    assert_eq!(counted["cases"], 300, "{counted}");
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
