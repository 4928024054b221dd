//! `clir diff OLD NEW` as users call it, on the published fide.laws.chess and an amended copy
//! (`tests/data/fide.laws.chess-0.2.0.lawir.json`, made by [`amended`]: the fifty-move claim of
//! Article 9.3 at 40 moves instead of 50, version 0.2.0, every hash recomputed). The cases whose
//! rulings change must be exactly those the reference evaluator (`clir_reference::evaluate`,
//! run on both documents) says change.
//!
//! Both packages are compiled through the `clir run` cache in `target/tmp/cli_diff-cache`,
//! shared by the tests of this file (and kept between runs: a package is compiled once per clir
//! build). `UPDATE_CLI_DIFF=1 cargo test -p clir-cli --test cli_diff` rewrites the amended package.

#[path = "../benches/gen.rs"]
mod gen;

clir::include_clir!("fide.laws.chess");

use clir_codegen::ir::Document;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PUBLISHED: &str = "sources/fide.laws.chess-0.1.0.lawir.json";
const AMENDED: &str = "tests/data/fide.laws.chess-0.2.0.lawir.json";
const ARBITER: &str = "judgment:FIDEArbiter";

/// The cache of compiled packages, private to this test file.
fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_diff-cache")
}

/// Runs `clir ARGS` in the repository root with `stdin`: (exit status, stdout, stderr).
fn clir(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(ROOT)
        .env("CLIR_CACHE_DIR", cache())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("clir runs");
    let input = stdin.to_string();
    let mut pipe = child.stdin.take().unwrap();
    // Written beside the wait: a command that refuses its flags never reads it.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The published package as version `version`, each node passed through `change` (dropped when
/// it says `false`): the test kit recomputes every node's contentHash, the semanticHash, and so
/// the seal.
fn published_with(version: &str, mut change: impl FnMut(&mut Value) -> bool) -> clir_testkit::Package {
    let doc: Value = serde_json::from_slice(&std::fs::read(Path::new(ROOT).join(PUBLISHED)).unwrap()).unwrap();
    let mut pkg = clir_testkit::Package::new(doc["package"]["name"].as_str().unwrap(), version);
    pkg.namespace = doc["package"]["namespace"].as_str().unwrap().to_string();
    pkg.features = serde_json::from_value(doc["features"].clone()).unwrap();
    pkg.metadata = doc["metadata"].clone();
    for mut node in doc["nodes"].as_array().unwrap().iter().cloned() {
        if change(&mut node) {
            pkg.nodes.push(clir_testkit::Node::Raw(node));
        }
    }
    pkg
}

/// The published package with Article 9.3's fifty moves made forty, as version 0.2.0.
fn amended() -> clir_testkit::Package {
    let mut changed = 0;
    let pkg = published_with("0.2.0", |node| {
        if node["id"] == "urn:fide:laws:clir:chess#FiftyMoveClaimCorrect" {
            let threshold = &mut node["body"]["items"][0]["right"]["value"];
            assert_eq!(*threshold, json!(50));
            *threshold = json!(40);
            let label = &mut node["labels"][0]["text"];
            *label = json!(label.as_str().unwrap().replace("the last 50 moves", "the last 40 moves"));
            changed += 1;
        }
        true
    });
    assert_eq!(changed, 1);
    pkg
}

#[test]
fn the_amended_package_is_committed_and_verifies_with_new_hashes() {
    let pkg = amended();
    let path = Path::new(ROOT).join(AMENDED);
    if std::env::var_os("UPDATE_CLI_DIFF").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, pkg.bytes()).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap_or_default();
    assert!(bytes == pkg.bytes(), "{AMENDED} is stale: UPDATE_CLI_DIFF=1 cargo test -p clir-cli --test cli_diff");
    let opts = clir_codegen::verify::VerifyOptions { root: Some(ROOT.into()), ..Default::default() };
    let report = clir_codegen::verify::verify_bytes(&bytes, &opts);
    assert!(report.ok(), "{:?}", report.checks);
    let published = std::fs::read(Path::new(ROOT).join(PUBLISHED)).unwrap();
    let (old, new) = (Document::parse(&published).unwrap(), Document::parse(&bytes).unwrap());
    assert_eq!((old.package.version.as_str(), new.package.version.as_str()), ("0.1.0", "0.2.0"));
    assert_ne!(old.semantic_hash, new.semantic_hash);
    assert_ne!(clir_codegen::canonical::seal(&published), pkg.seal());
    // Only the amended rule's node changed.
    let hashes = |d: &Document| d.nodes.iter().map(|n| n.content_hash.clone()).collect::<Vec<_>>();
    let differing = hashes(&old).iter().zip(hashes(&new)).filter(|(a, b)| *a != b).count();
    assert_eq!(differing, 1);
}

/// The `causes` of every change the amendment makes: its one rule, changed, with its article.
fn amended_rule() -> Value {
    json!([{
        "node": "urn:fide:laws:clir:chess#FiftyMoveClaimCorrect",
        "kind": "rule",
        "change": "changed",
        "label": "Article 9.3. The game is drawn upon a correct claim by a player having the move if the last 40 \
                  moves by each player have been completed without a pawn move or capture",
        "articles": ["article/9"],
    }])
}

/// The generated games, and more fifty-move claims around both thresholds, as case lines.
fn cases(count: u64) -> Vec<Value> {
    let mut rng = gen::Rng(77);
    let mut out: Vec<Value> = gen::games(count, 2026).collect();
    for i in 0..count / 4 {
        let g = format!("claim{i}");
        let mover = if rng.below(2) == 0 { "white" } else { "black" };
        let mut facts = json!({
            "player_of": [[g, "white"], [g, "black"]],
            "procedure_instance": [[g]], "play_started": [[g]], "both_players_have_moved": [[g]],
            "attempted_transition": [[g, "StartPlay"], [g, "PlayMove"], [g, "ConcludeByDrawnClaim"]],
            "player_has_the_move": [[g, mover]],
            "draw_claimed": [[mover]],
            "moves_by_each_without_pawn_or_capture": [[g, 30 + rng.below(50) as i64]],
        });
        if rng.below(5) == 0 {
            facts["checkmate_delivered"] = json!([[g, if mover == "white" { "black" } else { "white" }]]);
        }
        out.push(json!({"case": g, "facts": facts}));
    }
    out
}

/// The part of a ruling a diff compares.
fn compared(ruling: &Value) -> Value {
    if ruling.get("error").is_some() {
        return json!({"error": true});
    }
    json!([ruling["concluded"], ruling["definite"], ruling["contradictions"]])
}

/// The concluded literals of `a` that `b` lacks, as `concluded` writes them.
fn minus(a: &Value, b: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (k, tuples) in a.as_object().unwrap() {
        let rest: Vec<Value> = tuples
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| !b[k].as_array().is_some_and(|v| v.contains(t)))
            .cloned()
            .collect();
        if !rest.is_empty() {
            out.insert(k.clone(), Value::Array(rest));
        }
    }
    Value::Object(out)
}

fn without_case(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("case");
    v
}

fn write_cases(dir: &Path, lines: &[String]) -> String {
    let path = dir.join("cases.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn diff_lists_exactly_the_cases_whose_rulings_the_reference_says_change() {
    let old_doc = Document::parse(&std::fs::read(Path::new(ROOT).join(PUBLISHED)).unwrap()).unwrap();
    let new_doc = Document::parse(&std::fs::read(Path::new(ROOT).join(AMENDED)).unwrap()).unwrap();
    let cases = cases(400);
    let grants = vec![ARBITER.to_string()];
    let mut want = Vec::new();
    for case in &cases {
        let (o, n) =
            (clir_reference::evaluate(&old_doc, case, &grants), clir_reference::evaluate(&new_doc, case, &grants));
        if compared(&o) != compared(&n) {
            want.push((case["case"].clone(), o, n));
        }
    }
    eprintln!("{} of {} cases change under the amendment", want.len(), cases.len());
    assert!(want.len() >= 20, "the amendment changes enough cases to test: {}", want.len());
    assert!(want.len() < cases.len() / 2);
    let mut lines: Vec<String> = cases.iter().map(Value::to_string).collect();
    // A blank line is no case; an unreadable one is the same error line on both sides.
    lines.insert(3, String::new());
    lines.insert(7, "not json".into());
    let dir = tempfile::tempdir().unwrap();
    let input = write_cases(dir.path(), &lines);
    let (code, out, err) = clir(&["diff", PUBLISHED, AMENDED, "--input", &input, "--grant", ARBITER], "");
    assert_eq!(code, 1, "the unreadable line is rejected by both: {err}");
    let got: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Real diff lines, `causes` included, are what docs/schemas/diff.schema.json describes.
    let schema: Value =
        serde_json::from_slice(&std::fs::read(Path::new(ROOT).join("docs/schemas/diff.schema.json")).unwrap()).unwrap();
    let schema = jsonschema::draft202012::new(&schema).unwrap();
    for d in &got {
        let errors: Vec<String> = schema.iter_errors(d).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:?}\n{d}");
    }
    let got_cases: Vec<&Value> = got.iter().map(|d| &d["case"]).collect();
    let want_cases: Vec<&Value> = want.iter().map(|(c, _, _)| c).collect();
    assert_eq!(got_cases, want_cases, "the changed cases, in input order");
    for (d, (_, o, n)) in got.iter().zip(&want) {
        assert_eq!(d["old"], without_case(o), "{d}");
        assert_eq!(d["new"], without_case(n), "{d}");
        assert_eq!(d["added"], minus(&n["concluded"], &o["concluded"]), "{d}");
        assert_eq!(d["removed"], minus(&o["concluded"], &n["concluded"]), "{d}");
        assert_eq!(
            d.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["added", "case", "causes", "new", "old", "removed"]
        );
        // The one amended node, named with its label and article, is the cause of every change.
        assert_eq!(d["causes"], amended_rule(), "{d}");
    }
    // Forty quiet moves now make a correct claim.
    assert!(got
        .iter()
        .any(|d| d["added"]["game_drawn"].is_array() && d["added"]["fifty_move_claim_correct"].is_array()));
    let summary = format!("{} cases read, {} changed; rejected: 1 by OLD, 1 by NEW", cases.len() + 1, want.len());
    assert!(err.contains(&summary), "{err}");
    assert!(err.contains("OLD is fide.laws.chess 0.1.0, NEW is fide.laws.chess 0.2.0"), "{err}");
    assert!(err.contains("relations only in OLD: none; only in NEW: none"), "{err}");
    // The same through stdin and stdout, and into a file; with one ruler thread each.
    let stdin: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (code2, out2, _) =
        clir(&["diff", PUBLISHED, AMENDED, "--grant", ARBITER, "--threads", "1", "--batch", "7"], &stdin);
    assert_eq!((code2, &out2), (1, &out));
    let file = dir.path().join("diff.jsonl");
    let (code3, out3, _) = clir(
        &["diff", PUBLISHED, AMENDED, "--input", &input, "--grant", ARBITER, "--output", file.to_str().unwrap()],
        "",
    );
    assert_eq!((code3, out3.as_str()), (1, ""));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), out);
}

#[test]
fn identical_packages_change_nothing() {
    let lines: Vec<String> = gen::lines(200, 5).collect();
    let stdin: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (code, out, err) = clir(&["diff", PUBLISHED, PUBLISHED], &stdin);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("200 cases read, 0 changed; rejected: 0 by OLD, 0 by NEW"), "{err}");
    // No input, no case.
    let (code, out, err) = clir(&["diff", PUBLISHED, PUBLISHED], "");
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("0 cases read, 0 changed"), "{err}");
    // The library's diff of two compiled-in packages agrees.
    let numbered: Vec<(usize, String)> = lines.into_iter().enumerate().map(|(i, l)| (i + 1, l)).collect();
    let pkg = fide_laws_chess::Package;
    let diffs = clir::diff::rulings(&pkg, &pkg, &numbered, &Default::default()).unwrap();
    assert_eq!(diffs.len(), 200);
    assert!(diffs.iter().all(Option::is_none));
}

#[test]
fn with_explain_both_rulings_carry_their_explanations_and_the_same_cases_change() {
    let lines: Vec<String> = cases(80).iter().map(Value::to_string).collect();
    let stdin: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (code, plain, err) = clir(&["diff", PUBLISHED, AMENDED], &stdin);
    assert_eq!(code, 0, "{err}");
    let (code, explained, err) = clir(&["diff", PUBLISHED, AMENDED, "--explain"], &stdin);
    assert_eq!(code, 0, "{err}");
    let plain: Vec<Value> = plain.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let explained: Vec<Value> = explained.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!plain.is_empty());
    assert_eq!(plain.len(), explained.len());
    for (p, e) in plain.iter().zip(&explained) {
        let mut stripped = e.clone();
        for side in ["old", "new"] {
            let ex = stripped[side].as_object_mut().unwrap().remove("explanations");
            assert!(ex.is_some_and(|x| x.is_object()), "{side} has explanations: {e}");
        }
        assert_eq!(&stripped, p, "explanations are all --explain adds");
    }
    // A reviewer sees the article that flipped the ruling.
    let flipped = explained
        .iter()
        .find(|d| d["added"]["fifty_move_claim_correct"].is_array())
        .expect("a case whose claim became correct");
    let text = flipped["new"]["explanations"].to_string();
    assert!(text.contains("FiftyMoveClaimCorrect") && text.contains("the last 40 moves"), "{flipped}");
}

#[test]
fn a_removed_priority_is_named_as_the_cause_with_its_article() {
    // Without Article 9.6.2's priority, checkmate no longer beats the 75-move draw.
    let priority = "urn:fide:laws:clir:chess#CheckmateOverSeventyFiveMoves";
    let pkg = published_with("0.3.0", |node| node["id"] != priority);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(pkg.file_name());
    std::fs::write(&path, pkg.bytes()).unwrap();
    let mut lines: Vec<String> = gen::lines(300, 11).collect();
    for (i, moves) in [80, 75, 120].into_iter().enumerate() {
        lines.push(
            json!({"case": format!("mate{i}"), "facts": {"checkmate_delivered": [[format!("mate{i}"), "w"]],
                   "moves_by_each_without_pawn_or_capture": [[format!("mate{i}"), moves]]}})
            .to_string(),
        );
    }
    let stdin: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (code, out, err) = clir(&["diff", PUBLISHED, path.to_str().unwrap()], &stdin);
    assert_eq!(code, 0, "{err}");
    let got: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(got.iter().any(|d| d["case"] == "mate0" && d["removed"]["~game_drawn"].is_array()), "{out}");
    let want = json!([{
        "node": priority,
        "kind": "priority",
        "change": "removed",
        "label": "Article 9.6.2. Checkmate takes precedence over the 75-move draw",
        "articles": ["article/9"],
    }]);
    for d in &got {
        assert_eq!(d["causes"], want, "{d}");
    }
}

const DEMO_OLD: &str = "package demo.diff 0.1.0
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
institutional gone(n: Node)
rule Step strict: reach(x, y) :- edge(x, y)
rule Trans strict: reach(x, z) :- reach(x, y), edge(y, z)
rule Gone strict: gone(x) :- edge(x, x)";

const DEMO_NEW: &str = "package demo.diff 0.2.0
type Node
empirical edge(from: Node, to: Node)
empirical blocked(n: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y), not blocked(y)
rule Trans strict: reach(x, z) :- reach(x, y), edge(y, z), not blocked(z)";

fn demo(dir: &Path, text: &str) -> String {
    let mut text = text.to_string();
    if text.contains("not ") {
        text = text.replacen('\n', "\nfeatures negation-as-failure\n", 1);
    }
    let pkg = clir_testkit::Package::parse(&text).unwrap();
    let path = dir.join(pkg.file_name());
    std::fs::write(&path, pkg.bytes()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn relations_in_one_version_only_are_reported_and_an_error_on_one_side_is_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (demo(dir.path(), DEMO_OLD), demo(dir.path(), DEMO_NEW));
    let input = concat!(
        "{\"case\":\"same\",\"facts\":{\"edge\":[[\"a\",\"b\"]]}}\n",
        "{\"case\":\"blocked\",\"facts\":{\"edge\":[[\"a\",\"b\"],[\"b\",\"c\"]],\"blocked\":[[\"c\"]]}}\n",
        "{\"case\":\"loop\",\"facts\":{\"edge\":[[\"a\",\"a\"]]}}\n",
        "{\"case\":\"both\",\"facts\":{\"edge\":[[\"a\"]]}}\n",
    );
    let (code, out, err) = clir(&["diff", &old, &new], input);
    assert_eq!(code, 1, "{err}");
    let got: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(got.len(), 2, "{out}");
    // `blocked` is unknown to OLD: an error line there, a ruling in NEW.
    assert_eq!(got[0]["case"], "blocked");
    assert!(got[0]["old"]["error"].as_str().unwrap().contains("blocked"), "{}", got[0]);
    assert_eq!(got[0]["old"].as_object().unwrap().len(), 1);
    assert_eq!(got[0]["new"]["concluded"]["reach"], json!([["a", "b"]]));
    assert_eq!(got[0]["added"], json!({"reach": [["a", "b"]]}));
    assert_eq!(got[0]["removed"], json!({}));
    // The rules of `reach` changed; `Gone` is no cause of it.
    let causes = |d: &Value| -> Vec<String> {
        d["causes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                format!("{} {} {}", c["kind"], c["change"], c["node"].as_str().unwrap().rsplit('#').next().unwrap())
            })
            .collect()
    };
    assert_eq!(causes(&got[0]), ["\"rule\" \"changed\" Step", "\"rule\" \"changed\" Trans"], "{}", got[0]);
    // `gone` is only in OLD: its one rule, removed, is the cause.
    assert_eq!(causes(&got[1]), ["\"rule\" \"removed\" Gone"], "{}", got[1]);
    assert_eq!(got[1]["causes"][0]["articles"], json!([]));
    assert_eq!(got[1]["case"], "loop");
    assert_eq!(got[1]["removed"], json!({"gone": [["a"]]}));
    assert_eq!(got[1]["added"], json!({}));
    // The same arity error on both sides is no change.
    assert!(err.contains("relations only in OLD: gone; only in NEW: blocked"), "{err}");
    assert!(err.contains("4 cases read, 2 changed; rejected: 2 by OLD, 1 by NEW"), "{err}");
}

#[test]
fn a_ruler_that_writes_far_more_than_the_other_neither_blocks_nor_is_held_whole() {
    // OLD explains every game (kilobytes a line), NEW rejects every one (a short error line):
    // small batches and one thread make the line queues short.
    let dir = tempfile::tempdir().unwrap();
    let new = demo(dir.path(), DEMO_OLD);
    let lines: Vec<String> = gen::lines(3000, 9).collect();
    let input = write_cases(dir.path(), &lines);
    let (code, out, err) =
        clir(&["diff", PUBLISHED, &new, "--input", &input, "--explain", "--threads", "1", "--batch", "4"], "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.lines().count(), 3000);
    assert!(err.contains("3000 cases read, 3000 changed; rejected: 0 by OLD, 3000 by NEW"), "{err}");
    assert!(err.contains("OLD is fide.laws.chess 0.1.0, NEW is demo.diff 0.1.0"), "{err}");
    let (code, swapped, err) =
        clir(&["diff", &new, PUBLISHED, "--input", &input, "--explain", "--threads", "1", "--batch", "4"], "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(swapped.lines().count(), 3000);
}

#[test]
fn bad_flags_and_unreadable_or_unverifiable_packages_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.lawir.json");
    let mut bytes = std::fs::read(Path::new(ROOT).join(PUBLISHED)).unwrap();
    bytes.push(b'\n');
    std::fs::write(&bad, bytes).unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        &["diff", PUBLISHED][..],
        &["diff", PUBLISHED, PUBLISHED, "--threads", "0"],
        &["diff", PUBLISHED, PUBLISHED, "--no-such-flag"],
        &["diff", PUBLISHED, "/no/such/package.lawir.json"],
        &["diff", "/no/such/package.lawir.json", PUBLISHED],
        &["diff", PUBLISHED, bad],
        &["diff", PUBLISHED, PUBLISHED, "--input", "/no/such/cases.jsonl"],
        &["diff", PUBLISHED, PUBLISHED, "--output", "/no/such/dir/out.jsonl"],
        &["diff", PUBLISHED, PUBLISHED, "--certify"],
        &["diff", PUBLISHED, PUBLISHED, "--coverage", "/no/such/dir/coverage.json"],
    ] {
        let (code, out, err) = clir(args, "");
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert!(!out.contains("\"case\""), "{args:?}: {out}");
    }
}
