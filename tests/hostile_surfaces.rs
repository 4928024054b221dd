//! Issue 45, item 7: every surface holds against hostile input. Impossible `as_of` dates,
//! package text that reaches a terminal through `clir compile --plan`, entity names that read
//! as something else in why-not answers, and a server whose file descriptors run short.

use clir_testkit::Package;
use std::process::{Command, Stdio};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const FIDE: &str = "fide.laws.chess";

/// A date that names a day the calendar does not have is refused, naming the date; a leap day
/// is a date in a leap year only.
#[test]
fn impossible_as_of_dates_are_refused_naming_the_date() {
    let dates = [
        ("2023-02-30", false),
        ("2024-02-30", false),
        ("2023-04-31", false),
        ("2023-02-29", false),
        ("2100-02-29", false),
        ("2024-02-29", true),
        ("2000-02-29", true),
        ("1900-02-29", false),
        ("2023-04-30", true),
    ];
    let input: String = dates
        .iter()
        .map(|(d, _)| format!("{{\"case\":\"{d}\",\"as_of\":\"{d}\",\"facts\":{{\"stalemate_arisen\":[[\"g\"]]}}}}\n"))
        .collect();
    let (_, out, err) = clir(&["rule", "--package", FIDE], &input);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), dates.len(), "{out}{err}");
    for ((date, real), line) in dates.iter().zip(&lines) {
        assert_eq!(line["case"], *date, "{out}");
        if *real && *date >= "2023" {
            assert_eq!(line["concluded"]["game_drawn"], serde_json::json!([["g"]]), "{date}: {line}");
        } else if *real {
            // Read as a date, and before the law is in force: refused for that, not its form.
            let e = line["error"].as_str().unwrap_or_else(|| panic!("{line}"));
            assert!(e.contains(&format!("the case is dated {date} (as_of), before")), "{e}");
        } else {
            let e = line["error"].as_str().unwrap_or_else(|| panic!("{date} is not a date: {line}"));
            assert!(e.contains("`as_of` is a date written YYYY-MM-DD") && e.contains(date), "{e}");
        }
    }
    // 1900 was not a leap year, 2000 was.
    let (_, out, _) = clir(
        &["rule", "--package", FIDE],
        "{\"case\":1,\"as_of\":\"1900-02-29\",\"facts\":{}}\n{\"case\":2,\"as_of\":\"1900-02-28\",\"facts\":{}}\n",
    );
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines[0]["error"].as_str().unwrap().contains("got `1900-02-29`"), "{out}");
    assert!(lines[1]["error"].as_str().unwrap().contains("dated 1900-02-28 (as_of), before"), "{out}");
}

/// The plan names the package, its rules and relations: none of their control, bidi or
/// zero-width characters reaches the terminal raw.
#[test]
fn the_plan_shows_package_text_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let rel = "reach\u{1b}[2J\u{202e}\u{200b}\u{9b}31m";
    let mut pkg = Package::parse(&format!(
        "package demo.reach 1.0.0
         type Node
         empirical edge(from: Node, to: Node)
         institutional `{rel}`(from: Node, to: Node)
         rule Step strict: `{rel}`(x, y) :- edge(x, y)
         rule Trans strict: `{rel}`(x, z) :- `{rel}`(x, y), edge(y, z)"
    ))
    .unwrap();
    pkg.name = "demo.\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}evil\u{2066}\u{feff}\u{ad}".into();
    pkg.version = "1.0.0\u{1b}[31m".into();
    let file = dir.path().join("evil.lawir.json");
    std::fs::write(&file, pkg.bytes()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["compile", "--plan", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let raw = ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{200b}', '\u{2066}', '\u{feff}', '\u{ad}'];
    assert!(!shown.contains(raw), "raw control characters in the plan: {shown:?}");
    assert!(shown.starts_with("plan of demo.\\u{001b}]0;owned\\u{0007}\\u{001b}[2J\\u{202e}evil"), "{shown}");
    assert!(shown.contains("reach\\u{001b}[2J\\u{202e}\\u{200b}\\u{009b}31m"), "{shown}");
}
