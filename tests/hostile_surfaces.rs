//! Issue 45, item 7: every surface holds against hostile input. Impossible `as_of` dates,
//! package text that reaches a terminal through `clir compile --plan`, entity names that read
//! as something else in why-not answers, and a server whose file descriptors run short.

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
