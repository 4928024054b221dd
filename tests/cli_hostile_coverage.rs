//! Issue 45, item 7: `clir coverage` of a count that is not a count (-1, 1.5, 1e30, a string)
//! is an error naming its line; it used to show it as 0.

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

/// A coverage document as `clir rule --coverage` writes it (pretty, one count a line), with
/// `count` as the `applicable` count of its one rule, on line 8.
fn coverage_with(count: &str) -> String {
    format!(
        "{{\n  \"package\": \"demo.reach\",\n  \"version\": \"1.0.0\",\n  \"cases\": 1,\n  \"rules\": [\n    {{\n      \
         \"rule\": \"urn:x#Step\",\n      \"applicable\": {count},\n      \"definite\": 0\n    }}\n  ],\n  \
         \"articles\": [],\n  \"priorities\": [],\n  \"closures\": [],\n  \"never_applied\": []\n}}\n"
    )
}

#[test]
fn a_coverage_count_that_is_no_count_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("coverage.json");
    for bad in ["-1", "1.5", "1e30", "18446744073709551616", "\"3\"", "null", "true"] {
        std::fs::write(&file, coverage_with(bad)).unwrap();
        let out = clir(dir.path(), &["coverage", file.to_str().unwrap()], &[]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}{err}", text(&out.stdout));
        assert!(err.contains("line 8") && err.contains("count"), "{bad}: {err}");
        assert!(out.stdout.is_empty(), "{bad}: a table was shown");
    }
    // Elsewhere too: an article's count, a priority's.
    let doc = coverage_with("2").replace(
        "\"articles\": []",
        "\"articles\": [\n    {\n      \"article\": \"1\",\n      \"rules\": -3\n    }\n  ]",
    );
    std::fs::write(&file, doc).unwrap();
    let out = clir(dir.path(), &["coverage", file.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("line 15"), "{}", text(&out.stderr));
    // The largest count is shown as it is.
    std::fs::write(&file, coverage_with("18446744073709551615")).unwrap();
    let out = clir(dir.path(), &["coverage", file.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("18446744073709551615"), "{}", text(&out.stdout));
}
