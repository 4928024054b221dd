//! A rule of more variables than a flat tuple holds (its binding nested, `(case, a, .., (l, ..))`)
//! compiles, rules and explains: `clir run` with and without `--explain`.

use std::path::Path;
use std::process::Command;

/// Thirteen variables in one rule: a person and six numbers from each of two relations.
const LAW: &str = "package demo.wide.rule 0.1.0
namespace urn:demo:wide
type Person
empirical left(p: Person, a1: Integer, a2: Integer, a3: Integer, a4: Integer, a5: Integer, a6: Integer)
empirical right(p: Person, b1: Integer, b2: Integer, b3: Integer, b4: Integer, b5: Integer, b6: Integer)
institutional matched(p: Person)
rule Matched strict \"the right side starts higher\": matched(p) :- left(p, a1, a2, a3, a4, a5, a6), right(p, b1, b2, b3, b4, b5, b6), a1 < b1";

#[test]
fn a_rule_of_thirteen_variables_rules_and_explains() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = clir_testkit::Package::parse(LAW).unwrap();
    let blob = dir.path().join(pkg.file_name());
    std::fs::write(&blob, pkg.bytes()).unwrap();
    let cases = dir.path().join("cases.jsonl");
    std::fs::write(
        &cases,
        "{\"case\":\"higher\",\"facts\":{\"left\":[[\"ann\",1,2,3,4,5,6]],\"right\":[[\"ann\",6,5,4,3,2,1]]}}\n\
         {\"case\":\"lower\",\"facts\":{\"left\":[[\"bob\",1,2,3,4,5,6]],\"right\":[[\"bob\",0,5,4,3,2,2]]}}\n",
    )
    .unwrap();
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_check-cache");
    for explain in [false, true] {
        let output = dir.path().join("out.jsonl");
        let mut args = vec!["run", blob.to_str().unwrap(), "--input", cases.to_str().unwrap()];
        args.extend(["--output", output.to_str().unwrap()]);
        if explain {
            args.push("--explain");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_clir")).args(&args).env("CLIR_CACHE_DIR", &cache).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let rulings = std::fs::read_to_string(&output).unwrap();
        let lines: Vec<&str> = rulings.lines().collect();
        assert_eq!(lines.len(), 2, "{rulings}");
        assert!(lines[0].contains(r#""matched":[["ann"]]"#), "{rulings}");
        assert!(!lines[1].contains("matched"), "{rulings}");
        if explain {
            // The explanation names the rule and both premises, all thirteen values in place.
            for part in ["urn:demo:wide#Matched", "left(ann,1,2,3,4,5,6)", "right(ann,6,5,4,3,2,1)"] {
                assert!(lines[0].contains(part), "{part} missing: {}", lines[0]);
            }
        }
    }
}
