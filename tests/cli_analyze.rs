//! `clir analyze`: a package file with a planted defeasible conflict, a strict contradiction,
//! dead rules (by comparisons, by an underivable premise, by `false`), a rule beyond the depth
//! bound and an idle priority,
//! each found, and every witness, ruled again with `clir rule`, shows what its finding says;
//! `--deny`, `--format table`, and fide.laws.chess compiled in.

#[path = "support/cli.rs"]
mod cli;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cache `clir run` builds in, shared with the other tests that build package files.
fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_check-cache")
}

/// Runs `clir ARGS` with the shared cache: exit status, stdout, stderr.
fn clir(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .env("CLIR_CACHE_DIR", cache())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Every defect of this package is planted; the rules not named below are sound.
const PLANTED: &str = r#"
package test.analyze 0.1.0
type Person
type Claim
empirical claimant(c: Claim, p: Person)
empirical late(c: Claim)
empirical amount(c: Claim, n: Integer)
empirical minor(p: Person)
judgment fraud(c: Claim) by judgment:Auditor authority Auditor
institutional eligible(c: Claim)
institutional paid(c: Claim)
institutional flagged(c: Claim)
institutional entitled(c: Claim)
rule Eligible defeasible "Art. 1 eligible": eligible(c) :- claimant(c, p), amount(c, n), n >= 100
rule LateExcluded defeasible "Art. 2 late claims": ~eligible(c) :- late(c)
rule Paid strict "Art. 3 paid": paid(c) :- claimant(c, p), amount(c, n), n > 1000
rule FraudNotPaid strict "Art. 4 fraud": ~paid(c) :- fraud(c)
rule DeadCmp defeasible: entitled(c) :- amount(c, n), n > 10, n < 5
rule DeadPremise defeasible: entitled(c) :- flagged(c)
rule DeadFalse defeasible: entitled(c) :- claimant(c, p), false
institutional covered(c: Claim, n: Integer)
rule MinorCovered defeasible: covered(c, n) :- claimant(c, p), minor(p), amount(c, n), n < 50
rule NotCovered defeasible: ~covered(c, n) :- amount(c, n), n > 500
priority MinorFirst: MinorCovered > NotCovered
institutional l0(c: Claim)
institutional l1(c: Claim)
institutional l2(c: Claim)
institutional l3(c: Claim)
institutional l4(c: Claim)
institutional l5(c: Claim)
institutional l6(c: Claim)
institutional deep(c: Claim)
rule L0 strict: l0(c) :- late(c)
rule L1 strict: l1(c) :- l0(c)
rule L2 strict: l2(c) :- l1(c)
rule L3 strict: l3(c) :- l2(c)
rule L4 strict: l4(c) :- l3(c)
rule L5 strict: l5(c) :- l4(c)
rule L6 strict: l6(c) :- l5(c)
rule Deep defeasible: deep(c) :- l6(c), claimant(c, p), minor(p)
"#;

fn package_file(dir: &Path) -> PathBuf {
    let pkg = clir_testkit::Package::parse(PLANTED).unwrap();
    let path = dir.join(pkg.file_name());
    std::fs::write(&path, pkg.bytes()).unwrap();
    path
}

fn findings(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn local(id: &str) -> &str {
    id.rsplit_once('#').map_or(id, |(_, l)| l)
}

/// The local ids of a finding's rules.
fn rules(f: &Value) -> Vec<String> {
    f["rules"].as_array().unwrap().iter().map(|r| local(r["id"].as_str().unwrap()).to_string()).collect()
}

#[test]
fn planted_defects_are_found_and_every_witness_rules_as_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = package_file(dir.path());
    let file = file.to_str().unwrap();
    let (code, out, err) = clir(&["analyze", file], "");
    assert_eq!(code, 0, "{err}");
    let all = findings(&out);
    let of = |kind: &str| all.iter().filter(|f| f["kind"] == kind).collect::<Vec<_>>();
    // The two conflicts, each with its witness; ruled again, it shows what the finding says.
    let conflicts = of("conflict");
    assert_eq!(conflicts.len(), 2, "{out}");
    for f in &conflicts {
        let witness = f["witness"].to_string();
        let literal = f["literal"].as_str().unwrap();
        let mut args = vec!["rule", "--package", file];
        let grants: Vec<String> = f["grants"].as_array().unwrap().iter().map(|g| g.as_str().unwrap().into()).collect();
        for g in &grants {
            args.extend(["--grant", g.as_str()]);
        }
        let (code, ruling, err) = clir(&args, &format!("{witness}\n"));
        assert_eq!(code, 0, "{err}");
        let ruling: Value = serde_json::from_str(ruling.trim()).unwrap();
        let (name, tuple) = literal.split_once('(').unwrap();
        let tuple: Vec<Value> = tuple.trim_end_matches(')').split(',').map(|a| Value::String(a.to_string())).collect();
        let holds = |layer: &str, key: &str| {
            ruling[layer][key].as_array().is_some_and(|ts| ts.contains(&Value::Array(tuple.clone())))
        };
        match f["conflict"].as_str().unwrap() {
            "defeasible" => {
                assert_eq!(rules(f), ["Eligible", "LateExcluded"]);
                assert!(!holds("concluded", name) && !holds("concluded", &format!("~{name}")), "{ruling}");
                assert_eq!(f["ruling"][literal], "undecided");
            }
            "strict" => {
                assert_eq!(rules(f), ["Paid", "FraudNotPaid"]);
                assert_eq!(grants, ["judgment:Auditor"]);
                assert!(holds("definite", name) && holds("definite", &format!("~{name}")), "{ruling}");
                assert_eq!(ruling["contradictions"], serde_json::json!([literal]), "{ruling}");
            }
            other => panic!("conflict kind {other}"),
        }
    }
    // The dead rules, each with its proof; no other rule is reported unreachable.
    let dead: Vec<(String, String)> =
        of("dead").iter().map(|f| (rules(f)[0].clone(), f["proof"].as_str().unwrap().to_string())).collect();
    assert_eq!(
        dead,
        [
            ("DeadCmp".to_string(), "comparisons_exclude_each_other".to_string()),
            ("DeadPremise".to_string(), "underivable_premise".to_string()),
            ("DeadFalse".to_string(), "false_item".to_string()),
        ]
    );
    // `Deep` needs seven rule applications (and no other witness happens to apply it): beyond
    // the default depth, found at depth 8.
    let unreached: Vec<Vec<String>> = of("not_found_applicable").iter().map(|f| rules(f)).collect();
    assert_eq!(unreached, [["Deep"]]);
    assert_eq!(of("not_found_applicable")[0]["bound"], serde_json::json!({"candidates":3,"depth":6,"steps":2000}));
    let (code, deeper, _) = clir(&["analyze", file, "--depth", "8"], "");
    assert_eq!(code, 0);
    assert!(!deeper.contains("not_found_applicable"), "{deeper}");
    // Every line is an analysis line by its schema.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas/analysis.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for f in &all {
        let errors: Vec<String> = validator.iter_errors(f).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:?}\n{f}");
    }
    // The idle priority, proven: its two rules need n < 50 and n > 500 of one `covered(c, n)`.
    let idle = of("idle_priority");
    assert_eq!(idle.len(), 1, "{out}");
    assert_eq!(local(idle[0]["priority"]["id"].as_str().unwrap()), "MinorFirst");
    assert_eq!(idle[0]["proof"], "never_applicable_together");
    // `--deny` fails on the kinds named, and only on those.
    assert_eq!(clir(&["analyze", file, "--deny", "conflicts,dead"], "").0, 1);
    assert_eq!(clir(&["analyze", file, "--deny", "unreached"], "").0, 1);
    assert_eq!(clir(&["analyze", file, "--deny", "unreached", "--depth", "8"], "").0, 0);
    // The table names each finding.
    let (code, table, _) = clir(&["analyze", file, "--format", "table"], "");
    assert_eq!(code, 0);
    for word in ["conflict", "Eligible, LateExcluded", "dead", "DeadFalse", "idle_priority", "MinorFirst"] {
        assert!(table.contains(word), "{word} missing from\n{table}");
    }
}

#[test]
fn fide_laws_chess_compiled_in_has_no_finding() {
    let (code, out, err) = cli::clir(&["analyze", "fide.laws.chess", "--deny", "conflicts,dead,unreached,idle"], "");
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("47 rules"), "{err}");
}

/// A random package named from an adversarial alphabet (bidi controls, keywords, punctuation):
/// `clir analyze` on its file finds conflicts, and each witness, ruled by the reference
/// evaluator (which shares no code with the compiled package), shows both signs of the literal
/// undecided or definite, as its line says.
#[test]
fn conflicts_of_an_adversarially_named_package_hold_under_the_reference() {
    use clir_reference::random::{self, Config, GRANT};
    let dir = tempfile::tempdir().unwrap();
    let bytes = random::package_bytes(3, &Config { adversarial: true, ..Config::default() });
    let file = dir.path().join("adversarial.lawir.json");
    std::fs::write(&file, &bytes).unwrap();
    let (code, out, err) = clir(&["analyze", file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let doc = clir_codegen::ir::Document::parse(&bytes).unwrap();
    let reference = clir_reference::Reference::new(&doc).unwrap();
    let conflicts: Vec<Value> = findings(&out).into_iter().filter(|f| f["kind"] == "conflict").collect();
    assert!(!conflicts.is_empty(), "{out}");
    for f in &conflicts {
        let witness = &f["witness"];
        let st = reference.standing(witness, &[GRANT.to_string()]).unwrap();
        // The literal's relation and arguments, from the witness's own values: the rules' head
        // relation is the key of `ruling` without its sign.
        let keys: Vec<&String> = f["ruling"].as_object().unwrap().keys().collect();
        let literal = f["literal"].as_str().unwrap();
        assert!(keys.contains(&&literal.to_string()) && keys.contains(&&format!("~{literal}")), "{f}");
        let name = &f["rules"][0]["id"];
        let rel = doc
            .nodes
            .iter()
            .find_map(|n| match &n.kind {
                clir_codegen::ir::NodeKind::Rule(r) if n.id == name.as_str().unwrap() => Some(r.head.predicate.clone()),
                _ => None,
            })
            .unwrap();
        let rel = doc
            .nodes
            .iter()
            .find(|n| n.id == rel)
            .and_then(|n| match &n.kind {
                clir_codegen::ir::NodeKind::Relation(s) => Some(s.name.clone()),
                _ => None,
            })
            .unwrap();
        let tuple: Vec<clir_reference::Val> = f["tuple"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| match v {
                Value::Number(n) => clir_reference::Val::Int(n.as_i64().unwrap()),
                v => clir_reference::Val::Str(v.as_str().unwrap().to_string()),
            })
            .collect();
        let holds = |l: &clir_reference::Layer, negative: bool| {
            l.get(&(rel.clone(), negative)).is_some_and(|ts| ts.contains(&tuple))
        };
        match f["conflict"].as_str().unwrap() {
            "strict" => assert!(holds(&st.definite, false) && holds(&st.definite, true), "{f}"),
            _ => assert!(
                holds(&st.supported, false)
                    && holds(&st.supported, true)
                    && !holds(&st.concluded, false)
                    && !holds(&st.concluded, true),
                "{f}"
            ),
        }
    }
}

/// What a careless user gives `clir analyze`: a missing file, a file that is no package, a
/// misspelt package name, bounds out of range: exit 2 with the reason, and no finding (a file
/// that does not verify has its failed checks on stdout, as `clir rule` shows them).
#[test]
fn careless_input_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.lawir.json");
    std::fs::write(&junk, "{\"not\": \"a package\"}").unwrap();
    let missing = dir.path().join("missing.lawir.json");
    for (args, says) in [
        (vec!["analyze", missing.to_str().unwrap()], "cannot read"),
        (vec!["analyze", junk.to_str().unwrap()], "does not verify"),
        (vec!["analyze", "fide.laws.chesss"], "fide.laws.chess"),
        (vec!["analyze", "fide.laws.chess", "--steps", "0"], "steps"),
        (vec!["analyze", "fide.laws.chess", "--depth", "65"], "depth"),
        (vec!["analyze", "fide.laws.chess", "--deny", "everything"], "deny"),
    ] {
        let (code, out, err) = cli::clir(&args, "");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says) && !out.contains("\"kind\""), "{args:?}: {err}\n{out}");
    }
}
