//! Issue 45, item 5: `clir serve` under an address-space limit, sent the case that took 10 GB
//! with `certify=true` (en passant, 4,000 players having the move and 4,000 capturing pawns),
//! while other clients send ordinary games. Before, the process aborted and every client lost
//! the service; now the case costs memory linear in its size, a case past `--max-case-tuples`
//! gets its error line, and every client gets its answer. Loopback only; nothing here asserts
//! how long something takes.

// Shared with the other serve tests; this one starts its server itself, under a limit.
#[allow(dead_code)]
#[path = "support/serve.rs"]
mod support;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use support::{request, CLIR};

/// 1.5 GB of address space for the server process.
const LIMIT_KB: u64 = 1_500_000;

/// `clir serve --package fide.laws.chess` under `ulimit -v`, with `extra` flags: the child and
/// the address it listens on.
fn serve_limited(extra: &[&str]) -> (Child, String) {
    let script = format!("ulimit -v {LIMIT_KB} && exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(CLIR)
        .args(["serve", "--package", "fide.laws.chess", "--addr", "127.0.0.1:0", "--concurrency", "2"])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.contains("listening on"), "{first}");
    std::thread::spawn(move || for _ in err.lines() {});
    (child, first.trim().rsplit("http://").next().unwrap().to_string())
}

fn en_passant(n: usize) -> String {
    let tuples = |f: &dyn Fn(usize) -> Value| Value::Array((0..n).map(f).collect());
    let facts = json!({
        "en_passant_right_open": [["g"]],
        "player_has_the_move": tuples(&|i| json!(["g", format!("w{i}")])),
        "capturing_pawn_on_adjacent_file": tuples(&|i| json!(["g", format!("p{i}")])),
    });
    format!("{}\n", json!({"case": "ep", "facts": facts}))
}

fn games() -> String {
    let all = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    all.lines().take(20).map(|l| format!("{l}\n")).collect()
}

/// The hostile request and four ordinary ones at once: every answer 200, one line a case.
fn hostile_beside_others(addr: &str) -> Vec<Value> {
    let path = "/v1/packages/fide.laws.chess/rulings?certify=true";
    let hostile = {
        let addr = addr.to_string();
        std::thread::spawn(move || request(&addr, "POST", path, &[], en_passant(4000).as_bytes()))
    };
    let others: Vec<_> = (0..4)
        .map(|_| {
            let addr = addr.to_string();
            std::thread::spawn(move || request(&addr, "POST", path, &[], games().as_bytes()))
        })
        .collect();
    for o in others {
        let (status, _, body) = o.join().unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        assert_eq!(body.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(), 20);
    }
    let (status, _, body) = hostile.join().unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    body.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

#[test]
fn the_service_answers_the_case_that_sank_it_and_every_other_client() {
    let (mut child, addr) = serve_limited(&[]);
    let lines = hostile_beside_others(&addr);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["concluded"]["en_passant_capture_legal"].as_array().map(Vec::len), Some(4000));
    assert!(lines[0]["certificate"].is_object());
    assert!(child.try_wait().unwrap().is_none(), "the server still runs");
    let (status, _, _) = request(&addr, "GET", "/v1/packages", &[], b"");
    assert_eq!(status, 200);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_case_past_the_services_tuple_budget_gets_its_error_line_and_the_others_their_rulings() {
    let (mut child, addr) = serve_limited(&["--max-case-tuples", "1000"]);
    let lines = hostile_beside_others(&addr);
    assert!(lines[0]["error"].as_str().is_some_and(|e| e.contains("--max-case-tuples")), "{}", lines[0]);
    assert!(child.try_wait().unwrap().is_none(), "the server still runs");
    let _ = child.kill();
    let _ = child.wait();
}
