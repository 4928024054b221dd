//! `clir rule` and `clir run` as users call them: exit statuses, one line per case, error lines.

use std::io::Write;
use std::process::{Command, Stdio};

fn clir(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clir runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

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
