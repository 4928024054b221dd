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

/// Rules `input` with the FIDE package; its one ruling line.
fn rule_one(input: &str) -> serde_json::Value {
    let (_, out, err) = clir(&["rule", "--package", FIDE], input);
    serde_json::from_str(out.lines().next().unwrap_or_else(|| panic!("{err}"))).unwrap()
}

/// A bare `_` in a why-not answer is an argument no value binds; the entity named `_` is `"_"`
/// there and must be asked about as `"_"`.
#[test]
fn an_entity_named_underscore_is_not_the_unbound_argument() {
    let facts = r#""facts":{"player_of":[["_","w"],["_","b"]],"player_resigned":[["b"]]}"#;
    let line = rule_one(&format!("{{\"case\":1,{facts},\"why_not\":[\"game_drawn(_)\"]}}\n"));
    let e = line["error"].as_str().unwrap_or_else(|| panic!("{line}"));
    assert!(e.contains("`_`, which stands for no value; the entity named `_` is written \"_\""), "{e}");
    let asked = r#"["game_drawn(\"_\")","resignation_has_ended_the_game(\"_\")"]"#;
    let line = rule_one(&format!("{{\"case\":1,{facts},\"why_not\":{asked}}}\n"));
    // The data keeps the name as it is.
    assert_eq!(line["concluded"]["resignation_has_ended_the_game"], serde_json::json!([["_"]]), "{line}");
    let drawn = &line["why_not"]["game_drawn(\"_\")"];
    assert_eq!(drawn["concluded"], false, "{line}");
    let premises: Vec<&str> =
        drawn["reasons"].as_array().unwrap().iter().filter_map(|r| r["premise"].as_str()).collect();
    assert!(!premises.is_empty(), "{line}");
    assert!(premises.iter().any(|p| p.contains("(\"_\"")), "{line}");
    for p in premises {
        assert!(!p.contains("(_,") && !p.contains("(_)"), "the entity `_` reads as unbound: {p}");
    }
    // A concluded literal keeps its explanation.
    let ended = &line["why_not"]["resignation_has_ended_the_game(\"_\")"];
    assert_eq!(ended["concluded"], true, "{line}");
    assert!(ended["explanation"]["rule"].is_string(), "{line}");
}

/// A name holding a bidi override or a zero-width character is shown in why-not text with the
/// character escaped; the ruling's data keeps it.
#[test]
fn why_not_text_shows_bidi_and_zero_width_characters_escaped() {
    let (g, b) = ("g\u{202e}1", "b\u{200b}");
    let input = serde_json::json!({
        "case": 1,
        "facts": {"player_of": [[g, "w"], [g, b]], "player_resigned": [[b]]},
        "why_not": [format!("game_drawn({g})"), format!("game_lost_by({g},{b})")],
    });
    let line = rule_one(&format!("{input}\n"));
    assert_eq!(line["concluded"]["resignation_has_ended_the_game"], serde_json::json!([[g]]), "{line}");
    let answers = line["why_not"].as_object().unwrap_or_else(|| panic!("{line}"));
    assert!(answers.contains_key("game_drawn(\"g\\u202e1\")"), "{line}");
    let text = serde_json::to_string(&line["why_not"]).unwrap();
    assert!(!text.contains(['\u{202e}', '\u{200b}']), "{text}");
    assert!(text.contains("\\\\u202e"), "{text}");
}

/// The review page shows text as a terminal is shown it: its `UNSEEN` class is the set of
/// characters `terminal_text` escapes, and its `shown` writes them as `terminal_text` does
/// (run under `node` where there is one).
#[test]
fn the_review_page_shows_unseen_characters_escaped() {
    let page = include_str!("../src/cli/serve/page.html");
    let start = page.find("const UNSEEN = /[").expect("the page defines UNSEEN") + 17;
    let class = &page[start..start + page[start..].find("]/g").unwrap()];
    let mut ranges = Vec::new();
    let mut rest = class;
    let escape = |s: &str| u32::from_str_radix(s.strip_prefix("\\u").unwrap().get(..4).unwrap(), 16).unwrap();
    while !rest.is_empty() {
        let lo = escape(rest);
        rest = &rest[6..];
        let hi = match rest.strip_prefix('-') {
            Some(r) => {
                rest = &r[6..];
                escape(r)
            }
            None => lo,
        };
        ranges.push((lo, hi));
    }
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let s = c.to_string();
        let terminal = clir_codegen::text::terminal_text(&s) != s;
        let page = ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&(c as u32)));
        assert_eq!(page, terminal, "U+{:04X}", c as u32);
    }
    // Every string the page shows goes through `shown`.
    assert!(page.contains("document.createTextNode(shown(k))"));
    if Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let from = page.find("const UNSEEN").unwrap();
        let to = from + page[from..].find("\n}\n").unwrap() + 3;
        let sample = "Dvořák g\u{202e}1 b\u{200b} \u{1b}[2J\u{9b} a\\u{202e} \u{2066}x\u{2069}\u{feff}\u{ad}";
        let script =
            format!("{}\nprocess.stdout.write(shown({}));", &page[from..to], serde_json::to_string(sample).unwrap());
        let out = Command::new("node").arg("-e").arg(script).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8(out.stdout).unwrap(), clir_codegen::text::terminal_text(sample));
    } else {
        eprintln!("\n*** node is missing: the page's `shown` was not run ***\n");
    }
}
