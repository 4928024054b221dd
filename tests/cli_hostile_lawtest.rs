//! Issue 45, item 7: a `clir test` line that writes a key twice (`expect`, an expectation,
//! `facts`) is an error for that test: serde_json keeps the last of two, so such a line passed
//! whatever the ruling held.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn clir(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `clir test fide.laws.chess` of `lines`: exit status and the report lines.
fn law_test(lines: &str) -> (i32, Vec<serde_json::Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tests.jsonl");
    std::fs::write(&file, lines).unwrap();
    let out = clir(dir.path(), &["test", "fide.laws.chess", file.to_str().unwrap()], &[]);
    let reports = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out.status.code().unwrap_or(-1), reports, text(&out.stderr))
}

#[test]
fn a_law_test_line_with_a_key_twice_is_an_error() {
    // A checkmate concludes game_won_by(g,w); each line below would pass vacuously if the last
    // of two keys were taken.
    let facts = r#""facts":{"checkmate_delivered":[["g","w"]]}"#;
    let lines = [
        format!(r#"{{"case":"a",{facts},"expect":{{"concluded":["game_drawn(g)"]}},"expect":{{}}}}"#),
        format!(r#"{{"case":"b",{facts},"expect":{{"concluded":["game_drawn(g)"],"concluded":[]}}}}"#),
        format!(r#"{{"case":"c",{facts},"expect":{{"decided_by":{{"game_won_by(g,w)":"x","game_won_by(g,w)":"urn:fide:laws:clir:chess#CheckmateWins"}}}}}}"#),
        r#"{"case":"d","facts":{"checkmate_delivered":[["g","w"]],"checkmate_delivered":[]},"expect":{"not_concluded":["game_won_by(g,w)"]}}"#.to_string(),
    ];
    for line in &lines {
        let (code, reports, err) = law_test(&format!("{line}\n"));
        assert_eq!(code, 1, "{line}: {reports:?} {err}");
        assert_eq!(reports.len(), 1, "{reports:?}");
        let r = &reports[0];
        assert_eq!(r["outcome"], "failed", "{line}: {r}");
        assert_eq!(r["line"], 1, "{r}");
        let why = r["failures"][0]["error"].as_str().unwrap_or_default();
        assert!(why.contains("written twice"), "{line}: {r}");
    }
    // The same lines with each key once pass or fail on what they say.
    let honest = format!(r#"{{"case":"e",{facts},"expect":{{"concluded":["game_won_by(g,w)"]}}}}"#);
    let (code, reports, err) = law_test(&format!("{honest}\n"));
    assert_eq!((code, &reports[0]["outcome"]), (0, &serde_json::json!("passed")), "{reports:?} {err}");
}
