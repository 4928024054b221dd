//! `clir run` of a package of more rules than a crate holds (`CLIR_CRATE_RULES`): built as a base
//! crate, one crate a group of strata and the package's crate, it rules, explains, certifies and
//! answers why not as the package compiled in one module does, and a changed rule builds only its group's crate and the package's again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The package `clir rule --package fide.laws.chess` has compiled in.
const PACKAGE: &str = "sources/fide.laws.chess-0.1.0.lawir.json";
const GAMES: &str = "examples/fide/games.jsonl";

/// The cache `clir run` builds in: the one `cli_check` uses, so the runtime is built once for
/// both (builds in one cache take its lock, one at a time).
fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_check-cache")
}

fn clir(args: &[&str], crate_rules: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .env("CLIR_CACHE_DIR", cache())
        .env("CLIR_CRATE_RULES", crate_rules)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_package_built_as_several_crates_rules_explains_and_certifies_as_one_module_does() {
    let dir = tempfile::tempdir().unwrap();
    // The example games and three cases asking why not.
    let input = dir.path().join("cases.jsonl");
    let asks = [
        r#"{"case":"r","facts":{"player_of":[["g","b"]],"player_resigned":[["b"]]},"why_not":["game_lost_by(g,b)","~king_cannot_be_checkmated(b)","resignation_has_ended_the_game(g)"]}"#,
        r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",80]]},"why_not":["game_drawn(g)"]}"#,
        r#"{"case":"s","facts":{"checkmate_delivered":[["g","w"]],"stalemate_arisen":[["g"]]},"why_not":["~game_drawn(g)"]}"#,
    ];
    std::fs::write(&input, std::fs::read_to_string(GAMES).unwrap() + &asks.join("\n") + "\n").unwrap();
    let input = input.to_str().unwrap();
    for mode in [None, Some("--explain"), Some("--certify")] {
        let [split, whole] = ["split.jsonl", "whole.jsonl"].map(|f| dir.path().join(f));
        let mut args = vec!["run", PACKAGE, "--input", input, "--output", split.to_str().unwrap()];
        args.extend(mode);
        let out = clir(&args, "8");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let mut args =
            vec!["rule", "--package", "fide.laws.chess", "--input", input, "--output", whole.to_str().unwrap()];
        args.extend(mode);
        let out = clir(&args, "8");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let (split, whole) = (std::fs::read(&split).unwrap(), std::fs::read(&whole).unwrap());
        assert_eq!(split.iter().filter(|&&b| b == b'\n').count(), 303);
        assert!(split == whole, "`clir run` as several crates and the compiled-in package differ ({mode:?})");
    }
}

/// A package of four strata of one rule each; `senior` is the threshold a changed law raises.
fn pension_law(senior: u64) -> String {
    format!(
        "package demo.crates.pension 0.1.0
namespace urn:demo:crates
type Person
empirical age(p: Person, years: Integer)
empirical resident(p: Person)
institutional adult(p: Person)
institutional voter(p: Person)
institutional senior(p: Person)
institutional pensioner(p: Person)
rule Adult strict \"of age\": adult(p) :- age(p, n), n >= 18
rule Voter strict \"an adult resident votes\": voter(p) :- adult(p), resident(p)
rule Senior strict \"a senior\": senior(p) :- age(p, n), n >= {senior}
rule Pensioner strict \"a resident senior draws a pension\": pensioner(p) :- senior(p), resident(p)"
    )
}

/// The crates `cargo` compiled, as its "Compiling NAME v.." lines name them.
fn compiled(stderr: &str) -> Vec<String> {
    let mut names: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("Compiling "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with("clir_") || n.starts_with("clir-run-"))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn a_changed_rule_rebuilds_its_group_and_the_package_crate_only() {
    let dir = tempfile::tempdir().unwrap();
    // Thresholds no earlier run of this test built, so that the cache holds neither law's group.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let threshold = 100 + u64::from(nanos) % 1_000_000;
    let cases = dir.path().join("cases.jsonl");
    let ann_age = threshold + 1;
    std::fs::write(
        &cases,
        format!(
            "{{\"case\":\"ann\",\"facts\":{{\"age\":[[\"ann\",{ann_age}]],\"resident\":[[\"ann\"]]}}}}\n\
             {{\"case\":\"bob\",\"facts\":{{\"age\":[[\"bob\",40]],\"resident\":[[\"bob\"]]}}}}\n"
        ),
    )
    .unwrap();
    let mut rulings = Vec::new();
    let mut builds = Vec::new();
    for senior in [threshold, threshold + 2] {
        let pkg = clir_testkit::Package::parse(&pension_law(senior)).unwrap();
        let blob = dir.path().join(format!("{senior}-{}", pkg.file_name()));
        std::fs::write(&blob, pkg.bytes()).unwrap();
        let output = dir.path().join("out.jsonl");
        let args =
            ["run", blob.to_str().unwrap(), "--input", cases.to_str().unwrap(), "--output", output.to_str().unwrap()];
        let out = clir(&args, "1");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("(and 6 crates of its own)"), "a base crate, an io crate and four groups: {stderr}");
        builds.push(compiled(&stderr));
        rulings.push(std::fs::read_to_string(&output).unwrap());
    }
    // Ann is a pensioner under the first threshold, not under the second.
    let ann = |r: &str| r.lines().next().unwrap().contains("pensioner");
    assert!(ann(&rulings[0]) && !ann(&rulings[1]), "{rulings:?}");
    // Built first: the base and io crates, four groups, the package's crate (unless an earlier run of
    // this test left them in the cache). Then: the group of `Senior` and the package's crate.
    let package_crate = |names: &[String]| names.iter().filter(|n| n.starts_with("clir-run-")).count();
    assert_eq!(package_crate(&builds[1]), 1, "{builds:?}");
    let groups: Vec<&String> = builds[1].iter().filter(|n| n.starts_with("clir_")).collect();
    assert_eq!(groups.len(), 1, "only the changed rule's group is compiled again: {builds:?}");
    assert!(groups[0].starts_with("clir_demo_crates_pension_g"), "{builds:?}");
}
