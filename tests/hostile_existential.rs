//! Issue 45, item 5: a case whose rules have body variables that no head needs. Before, a rule
//! such as `EnPassantCaptureLegal` enumerated every combination of `player_has_the_move` and
//! `capturing_pawn_on_adjacent_file` (4,000 tuples each: 16 million bindings, 10 GB with
//! `--certify`); `CastlingLegal` every rook with every king. The plan now reads a lone variable
//! through a least view and cuts a variable no later step reads to its least witness, so each
//! case costs memory linear in its size. The commands run under an address-space limit that the
//! old plan overran by a factor of ten; a linear one stays far below it.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// 1.5 GB of address space: the whole process, its allocator's reservations included.
const LIMIT_KB: u64 = 1_500_000;

/// `clir ARGS` under `ulimit -v LIMIT_KB`, the case lines on standard input.
fn clir_limited(args: &[&str], stdin: &str) -> Output {
    let script = format!("ulimit -v {LIMIT_KB} && exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn tuples(n: usize, f: impl Fn(usize) -> Value) -> Value {
    Value::Array((0..n).map(f).collect())
}

/// En passant: one game, `n` players having the move, `n` capturing pawns.
fn en_passant(n: usize) -> String {
    let facts = json!({
        "en_passant_right_open": [["g"]],
        "player_has_the_move": tuples(n, |i| json!(["g", format!("w{i}")])),
        "capturing_pawn_on_adjacent_file": tuples(n, |i| json!(["g", format!("p{i}")])),
    });
    format!("{}\n", json!({"case": "ep", "facts": facts}))
}

/// Castling: one player with `n` rooks on the side and `n` kings, none of which has moved.
fn castling(n: usize) -> String {
    let pieces: Vec<Value> = (0..n).flat_map(|i| [json!([format!("r{i}")]), json!([format!("K{i}")])]).collect();
    let facts = json!({
        "castling_side_of": tuples(n, |i| json!(["g", "w", "k", format!("r{i}")])),
        "rook_of": tuples(n, |i| json!(["w", format!("r{i}")])),
        "king_of": tuples(n, |i| json!(["w", format!("K{i}")])),
        "player_has_the_move": [["g", "w"]],
        "checked_castling_side": [["k"]],
        "checked_piece": pieces,
    });
    format!("{}\n", json!({"case": "castle", "facts": facts}))
}

fn ruling(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one ruling line a case");
    serde_json::from_str(text.trim_end()).unwrap()
}

#[test]
fn a_case_with_lone_variables_is_ruled_explained_and_certified_in_linear_memory() {
    let n = 4000;
    let case = en_passant(n);
    for flag in ["--explain", "--certify"] {
        let out = clir_limited(&["rule", "--package", "fide.laws.chess", flag], &case);
        let r = ruling(&out);
        let legal = r["concluded"]["en_passant_capture_legal"].as_array().unwrap();
        assert_eq!(legal.len(), n, "{flag}: every pawn may capture");
    }
    // One witness a derivation: the least player having the move.
    let out = clir_limited(&["rule", "--package", "fide.laws.chess", "--explain"], &case);
    let r = ruling(&out);
    let text = r["explanations"].to_string();
    assert!(text.contains("player_has_the_move(g,w0)"), "the least witness is cited");
    assert!(!text.contains("player_has_the_move(g,w1)"), "and no other");
}

#[test]
fn a_case_whose_rule_joins_two_independent_witnesses_is_ruled_in_linear_memory() {
    let case = castling(4000);
    for flag in ["--explain", "--certify"] {
        let out = clir_limited(&["rule", "--package", "fide.laws.chess", flag], &case);
        let r = ruling(&out);
        assert_eq!(r["definite"]["castling_legal"], json!([["g", "w", "k"]]), "{flag}");
    }
}

/// `--max-case-tuples`: a case whose joins derive more than the limit gets an error line naming
/// the flag, and every other case of its batch the ruling it gets without it.
#[test]
fn a_case_past_its_tuple_budget_gets_an_error_line_and_nothing_else_is_lost() {
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let games: Vec<&str> = games.lines().take(6).collect();
    let plain = clir_limited(&["rule", "--package", "fide.laws.chess"], &format!("{}\n", games.join("\n")));
    assert!(plain.status.success());
    let mixed = format!("{}\n{}{}\n", games[..3].join("\n"), en_passant(500), games[3..].join("\n"));
    let out = clir_limited(&["rule", "--package", "fide.laws.chess", "--max-case-tuples", "200"], &mixed);
    assert_eq!(out.status.code(), Some(1), "a case was refused");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "one line a case");
    let refused: Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(refused["case"], "ep");
    assert!(refused["error"].as_str().unwrap().contains("--max-case-tuples"), "{refused}");
    let others: Vec<&str> = lines.iter().enumerate().filter(|&(i, _)| i != 3).map(|(_, l)| *l).collect();
    assert_eq!(others.join("\n") + "\n", String::from_utf8(plain.stdout).unwrap());
    // Under the default limit the same case is ruled.
    let out = clir_limited(&["rule", "--package", "fide.laws.chess"], &en_passant(500));
    assert!(ruling(&out)["concluded"]["en_passant_capture_legal"].is_array());
}

/// `clir check` joins as the plan does: a variable no later literal, item or head reads is
/// walked once for each value of what is still live, and tests come before extensions. The
/// certificates of both cases are checked under the same limit.
#[test]
fn the_checker_checks_both_cases_in_linear_memory() {
    let dir = tempfile::tempdir().unwrap();
    for (name, case) in [("ep", en_passant(4000)), ("castle", castling(4000))] {
        let out = clir_limited(&["rule", "--package", "fide.laws.chess", "--certify"], &case);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let (input, rulings) = (dir.path().join(format!("{name}.jsonl")), dir.path().join(format!("{name}.cert")));
        std::fs::write(&input, &case).unwrap();
        std::fs::write(&rulings, &out.stdout).unwrap();
        let pkg = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
        let args = ["check", pkg, "--input", input.to_str().unwrap(), "--rulings", rulings.to_str().unwrap()];
        let out = clir_limited(&args, "");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && report.contains("\"certified\""),
            "{name}: {report} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
