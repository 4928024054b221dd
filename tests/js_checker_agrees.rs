//! The review page's certificate checker (src/cli/serve/check.js, plain JavaScript, run here
//! under `node`) and `clir-check` (Rust) judge the same certificates alike: every certificate of
//! the sample games and of generated games accepted by both, and every mutation of
//! tests/support/mutations.rs rejected by both, at the same step and literal, for the same reason.
//!
//! Without `node` the test is skipped loudly, except under `CI=true`, where it fails:
//! `.ci/browser` installs Debian's `nodejs` when `node` is missing.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

#[path = "support/mutations.rs"]
mod mutations;

#[path = "../benches/gen.rs"]
mod gen;

const PACKAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl");
const CHECK_JS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cli/serve/check.js");

/// Reads `{"case":LINE,"ruling":LINE}` lines from stdin and writes one verdict line each, as
/// check.js's `checkLine` gives it.
const DRIVER: &str = r#"
const ClirCheck = require(process.argv[1]);
const fs = require("fs");
(async () => {
  const pkg = await ClirCheck.readPackage(fs.readFileSync(process.argv[2]));
  const pairs = fs.readFileSync(0, "utf8").split("\n").filter((l) => l);
  const out = [];
  for (const p of pairs) {
    const { case: c, ruling } = JSON.parse(p);
    out.push(JSON.stringify(await ClirCheck.checkLine(pkg, c, ruling)));
  }
  process.stdout.write(out.join("\n") + "\n");
})().catch((e) => { console.error(e && e.stack || e); process.exit(2); });
"#;

/// Whether `node` runs; without it, a skip said on stderr, or a failure under `CI=true`.
fn node_runs() -> bool {
    let runs = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "node is missing under CI=true (.ci/browser installs it)"
        );
        eprintln!("\n\n*** SKIPPED: the JavaScript checker needs node (`bash .ci/browser` installs Debian's nodejs and runs it) ***\n");
    }
    runs
}

/// check.js's verdict on each `(case line, ruling line)`.
fn js_verdicts(pairs: &[(String, String)]) -> Vec<Value> {
    let mut child = Command::new("node")
        .args(["-e", DRIVER, CHECK_JS, PACKAGE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let input: String = pairs.iter().map(|(c, r)| json!({"case": c, "ruling": r}).to_string() + "\n").collect();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// clir-check's verdict on each pair, written as check.js writes its own.
fn rust_verdicts(pairs: &[(String, String)]) -> Vec<Value> {
    let pkg = clir_check::Package::parse(&std::fs::read(PACKAGE).unwrap()).unwrap();
    pairs
        .iter()
        .map(|(c, r)| match clir_check::check_line(&pkg, c, r) {
            clir_check::Verdict::Certified => json!({"outcome": "certified"}),
            clir_check::Verdict::NotRuled(e) => json!({"outcome": "not_ruled", "error": e}),
            clir_check::Verdict::Rejected(f) => {
                json!({"outcome": "rejected", "literal": f.literal, "step": f.step, "reason": f.reason})
            }
        })
        .collect()
}

/// The same outcome, and for a rejection the same step, literal and reason, word for word and
/// number for number, from both checkers (check.js reads Integers and ranks exactly, as BigInt,
/// and words JSON errors as serde_json does).
fn assert_agree(pairs: &[(String, String)], names: &[&str]) -> (Vec<Value>, Vec<Value>) {
    let (js, rust) = (js_verdicts(pairs), rust_verdicts(pairs));
    assert_eq!(js.len(), pairs.len());
    for ((j, r), name) in js.iter().zip(&rust).zip(names) {
        for k in ["outcome", "step", "literal", "error", "reason"] {
            assert_eq!(j.get(k), r.get(k), "{name}: `{k}` differs\nnode: {j}\nrust: {r}");
        }
    }
    (js, rust)
}

/// `clir rule --certify` of `cases`: the ruling lines.
fn certify(cases: &str) -> Vec<String> {
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--certify"], cases);
    assert!(code == 0 || code == 1, "{err}");
    out.lines().map(str::to_string).collect()
}

#[test]
fn both_checkers_accept_every_certificate_of_sample_and_generated_games() {
    if !node_runs() {
        return;
    }
    let mut cases: Vec<String> = std::fs::read_to_string(GAMES).unwrap().lines().map(str::to_string).collect();
    cases.extend(gen::lines(2_000, 53));
    // A case clir refuses: an error line, not ruled by either checker.
    cases.push("{\"case\":\"bad\",\"facts\":{\"game_drawn\":[[\"g\"]]}}".into());
    let rulings = certify(&(cases.join("\n") + "\n"));
    assert_eq!(rulings.len(), cases.len());
    let pairs: Vec<(String, String)> = cases.into_iter().zip(rulings).collect();
    let names: Vec<&str> = pairs.iter().map(|(c, _)| c.as_str()).collect();
    let (js, _) = assert_agree(&pairs, &names);
    let (last, ruled) = js.split_last().unwrap();
    assert!(
        ruled.iter().all(|v| v["outcome"] == "certified"),
        "{:?}",
        ruled.iter().find(|v| v["outcome"] != "certified")
    );
    assert_eq!(last["outcome"], "not_ruled", "{last}");
}

#[test]
fn both_checkers_reject_every_mutation_at_the_same_step_and_literal_for_the_same_reason() {
    if !node_runs() {
        return;
    }
    let case = std::fs::read_to_string(GAMES).unwrap().lines().nth(4).unwrap().to_string();
    let ruling: Value = serde_json::from_str(&certify(&format!("{case}\n")).remove(0)).unwrap();
    let all = mutations::mutations(&case, &ruling);
    let mut pairs = vec![(case.clone(), ruling.to_string())];
    pairs.extend(all.iter().map(|m| (m.case.clone(), m.ruling.clone())));
    let mut names = vec!["the unchanged certificate"];
    names.extend(all.iter().map(|m| m.name));
    let (js, _) = assert_agree(&pairs, &names);
    assert_eq!(js[0]["outcome"], "certified", "{}", js[0]);
    for (m, v) in all.iter().zip(&js[1..]) {
        assert_eq!(v["outcome"], "rejected", "{}: {v}", m.name);
        if let Some(literal) = m.literal {
            assert_eq!(v["literal"].as_str(), literal, "{}: {v}", m.name);
        }
        assert!(v["step"].as_str().unwrap().starts_with(m.step), "{}: {v}", m.name);
        assert!(v["reason"].as_str().unwrap().contains(m.reason), "{}: {v}", m.name);
    }
}
