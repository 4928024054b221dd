//! Forgeries of issue 45 that the review page's checker (src/cli/serve/check.js) certified: a
//! ruling for a case line `clir rule` refuses, a ruling line with a key written twice, a ruling
//! computed in doubles past 2^53, keys a certificate does not prove riding along in a ruling
//! line, extra and repeated certificate nodes, a tampered package, case ids told apart only past
//! 2^53, and entity names whose bidi and zero-width characters reach the page. Each is built
//! from a certificate `clir rule --certify` wrote (or, for the small packages here, from one
//! written the way it writes them), and each must be rejected by check.js at the step and for
//! the reason clir-check (Rust) gives; every genuine one must be certified by both.
//!
//! Without `node` the tests are skipped loudly, except under `CI=true`, where they fail.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

const FIDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
const CHECK_JS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cli/serve/check.js");
const DRIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/js/driver.js");
const GRANT: &str = "judgment:FIDEArbiter";

/// Whether `node` runs; without it, a skip said on stderr, or a failure under `CI=true`.
fn node_runs() -> bool {
    let runs = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "node is missing under CI=true");
        eprintln!("\n\n*** SKIPPED: the JavaScript checker needs node ***\n");
    }
    runs
}

/// A case line and a ruling line, what they are, and the rejection both checkers must give
/// (`None`: both must certify it).
struct Forgery {
    name: &'static str,
    case: String,
    ruling: String,
    /// The step and a part of the reason.
    rejected: Option<(&'static str, &'static str)>,
}

fn forgery(name: &'static str, case: &str, ruling: &str, step: &'static str, reason: &'static str) -> Forgery {
    Forgery { name, case: case.into(), ruling: ruling.into(), rejected: Some((step, reason)) }
}

fn genuine(name: &'static str, case: &str, ruling: &str) -> Forgery {
    Forgery { name, case: case.into(), ruling: ruling.into(), rejected: None }
}

/// check.js's verdicts on `pairs` with the package file `package` under `grants`: the package
/// it read (`{"package":{name,version,seal}}` or `{"package_error":...}`), then one a pair.
fn js(package: &[u8], pairs: &[(String, String)], grants: &[&str]) -> (Value, Vec<Value>) {
    js_with(package, pairs, grants, json!({}))
}

/// [`js`] with more options of checkLine.
fn js_with(package: &[u8], pairs: &[(String, String)], grants: &[&str], options: Value) -> (Value, Vec<Value>) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), package).unwrap();
    let mut child = Command::new("node")
        .args([DRIVER, CHECK_JS, file.path().to_str().unwrap(), &json!(grants).to_string(), &options.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let input: String = pairs.iter().map(|(c, r)| json!({"case": c, "ruling": r}).to_string() + "\n").collect();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let first = lines.remove(0);
    (first, lines)
}

/// clir-check's verdicts on `pairs`, written as check.js writes its own; `Err` when it refuses
/// the package.
fn rust(package: &[u8], pairs: &[(String, String)], grants: &[&str]) -> Result<Vec<Value>, String> {
    let pkg = clir_check::Package::parse(package)?;
    let opts = clir_check::Options { grants: grants.iter().map(|g| g.to_string()).collect() };
    Ok(pairs
        .iter()
        .map(|(c, r)| match clir_check::check_case(&pkg, c, r, &opts).1 {
            clir_check::Verdict::Certified => json!({"outcome": "certified"}),
            clir_check::Verdict::NotRuled(e) => json!({"outcome": "not_ruled", "error": e}),
            clir_check::Verdict::Rejected(f) => {
                json!({"outcome": "rejected", "literal": f.literal, "step": f.step, "reason": f.reason})
            }
        })
        .collect())
}

/// What the review page shows of `text`: its `shown()` (src/cli/serve/page.html), run by node.
fn page_shows(text: &str) -> String {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/cli/serve/page.html")).unwrap();
    let unseen = page.lines().find(|l| l.starts_with("const UNSEEN = ")).expect("page.html has UNSEEN");
    let from = page.find("function shown(s) {").expect("page.html has shown()");
    let shown = &page[from..from + page[from..].find("\n}\n").unwrap() + 2];
    let script = format!("{unseen}\n{shown}\nprocess.stdout.write(shown(JSON.parse(process.argv[1])));");
    let out = Command::new("node").args(["-e", &script, &json!(text).to_string()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs both checkers over `all` with `package` and requires what each forgery says: the same
/// outcome, step, literal and reason of both, and the rejection (or certification) expected.
fn assert_judged(package: &[u8], all: &[Forgery], grants: &[&str]) -> Vec<Value> {
    let pairs: Vec<(String, String)> = all.iter().map(|f| (f.case.clone(), f.ruling.clone())).collect();
    let (read, verdicts) = js(package, &pairs, grants);
    assert!(read.get("package").is_some(), "check.js refuses the package: {read}");
    assert_eq!(verdicts.len(), all.len());
    for (f, v) in all.iter().zip(&verdicts) {
        match f.rejected {
            None => assert_eq!(v["outcome"], "certified", "{}: {v}", f.name),
            Some((step, reason)) => {
                assert_eq!(v["outcome"], "rejected", "{}: {v}", f.name);
                assert_eq!(v["step"], step, "{}: {v}", f.name);
                assert!(v["reason"].as_str().unwrap().contains(reason), "{}: `{reason}` is not in {v}", f.name);
            }
        }
    }
    let rust = rust(package, &pairs, grants).expect("clir-check reads the package");
    for ((f, j), r) in all.iter().zip(&verdicts).zip(&rust) {
        for k in ["outcome", "step", "literal", "reason", "error"] {
            assert_eq!(j.get(k), r.get(k), "{}: `{k}` differs\nnode: {j}\nrust: {r}", f.name);
        }
    }
    verdicts
}

/// The sha256 of a case line, as a certificate names it.
fn hash(line: &str) -> String {
    clir_check::sha256(line.as_bytes())
}

/// `clir rule --package fide.laws.chess --certify --grant judgment:FIDEArbiter` of `cases`: the
/// ruling lines.
fn certify(cases: &[&str]) -> Vec<String> {
    let input: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--certify", "--grant", GRANT], &input);
    assert_eq!(code, 0, "{err}");
    out.lines().map(str::to_string).collect()
}

/// A ruling line as JSON.
fn parsed(line: &str) -> Value {
    serde_json::from_str(line).unwrap()
}

/// `ruling` as the ruling of the case line `case`: its certificate names that line's hash.
fn recase(case: &str, ruling: &Value) -> String {
    let mut r = ruling.clone();
    r["certificate"]["case"] = json!(hash(case));
    r.to_string()
}

const G3: &str =
    r#"{"case":"g3","facts":{"checkmate_delivered":[["g3","w"]],"moves_by_each_without_pawn_or_capture":[["g3",80]]}}"#;

/// Case lines `clir rule` refuses, each with the certificate of the line it was made from, its
/// hash recomputed: a certificate for a case that has no ruling.
fn refused_case_lines(g3: &Value) -> Vec<Forgery> {
    let facts = r#""facts":{"checkmate_delivered":[["g3","w"]],"moves_by_each_without_pawn_or_capture":[["g3",80]]}"#;
    let with = |line: String| (line.clone(), recase(&line, g3));
    let mut out = Vec::new();
    let mut add = |name, line: String, reason| {
        let (c, r) = with(line);
        out.push(forgery(name, &c, &r, "case_line", reason));
    };
    add("an Integer written 80.0", G3.replace("80]", "80.0]"), "argument `n` is an Integer, got 80.0");
    add("an Integer written 8e1", G3.replace("80]", "8e1]"), "argument `n` is an Integer, got 80.0");
    add(
        "an as_of before the law is in force",
        format!(r#"{{"case":"g3","as_of":"2022-12-31",{facts}}}"#),
        "the case is dated 2022-12-31 (as_of), before fide.laws.chess 0.1.0 is in force (2023-01-01)",
    );
    add(
        "an as_of that is not a string",
        format!(r#"{{"case":"g3","as_of":20230101,{facts}}}"#),
        "invalid type: integer `20230101`, expected a string",
    );
    add(
        "an as_of that is no date",
        format!(r#"{{"case":"g3","as_of":"2023-02-29",{facts}}}"#),
        "`as_of` is a date written YYYY-MM-DD, got `2023-02-29`",
    );
    add("facts written twice", format!(r#"{{"case":"g3","facts":{{}},{facts}}}"#), "duplicate key `facts`");
    add("case written twice", format!(r#"{{"case":"g4","case":"g3",{facts}}}"#), "duplicate key `case`");
    add(
        "a relation written twice",
        G3.replace(r#"{"checkmate"#, r#"{"checkmate_delivered":[],"checkmate"#),
        "duplicate key `checkmate_delivered` in `facts`",
    );
    add(
        "a key written twice in the case value",
        format!(r#"{{"case":{{"id":"g3","id":"g4"}},{facts}}}"#),
        "duplicate key `id` in the `case` value",
    );
    add("an unknown key", format!(r#"{{"case":"g3",{facts},"note":1}}"#), "unknown key `note`");
    let many: Vec<&str> = vec!["game_drawn(g3)"; 1025];
    add(
        "a why_not of 1,025 literals",
        format!(r#"{{"case":"g3",{facts},"why_not":{}}}"#, json!(many)),
        "`why_not` asks about 1025 literals; at most 1024 are answered a case",
    );
    add(
        "a why_not literal that does not parse",
        format!(r#"{{"case":"g3",{facts},"why_not":["game_drawn(g3"]}}"#),
        "why_not: `game_drawn(g3` is not a literal (no closing `)`)",
    );
    add(
        "a why_not literal of no relation",
        format!(r#"{{"case":"g3",{facts},"why_not":["game_drawnn(g3)"]}}"#),
        "why_not: unknown relation `game_drawnn` in `game_drawnn(g3)` (did you mean `game_drawn`?)",
    );
    out
}

#[test]
fn a_certificate_for_a_case_line_clir_rule_refuses_is_rejected() {
    if !node_runs() {
        return;
    }
    let judged = r#"{"case":"t","facts":{"piece_touched_intentionally":[["w","q"]]}}"#;
    let rulings = certify(&[G3, judged]);
    let mut all = vec![genuine("the genuine g3", G3, &rulings[0])];
    all.extend(refused_case_lines(&parsed(&rulings[0])));
    all.push(forgery(
        "a judgment fact without its grant",
        judged,
        &rulings[1],
        "case_line",
        "relation `piece_touched_intentionally` is a judgment reserved to capability `judgment:FIDEArbiter`",
    ));
    let fide = std::fs::read(FIDE).unwrap();
    assert_judged(&fide, &all, &[]);
    // Under its grant, as `clir rule --grant` rules it, the judgment fact is certified.
    assert_judged(&fide, &[genuine("a judgment fact under its grant", judged, &rulings[1])], &[GRANT]);
}

/// A small package of the kit's notation: arithmetic past 2^53, a relation without
/// parameters, an institutional relation a case might state, and a law in force from
/// 2023-01-01 until 2030-01-01.
fn small_package() -> clir_testkit::Package {
    clir_testkit::Package::parse(
        r#"package test.forgeries 0.1.0
           features integer-arithmetic
           type Game
           empirical n(g: Game, v: Integer)
           empirical z
           institutional p(g: Game)
           institutional q(g: Game)
           institutional y
           rule P strict: p(x) :- n(x, v), v * v = v * v + 1
           rule Q strict: q(x) :- n(x, v), v * v + 1 > v * v
           rule Y strict: y :- z
           node {"id": "urn:test:forgeries#EDITION", "kind": "source_edition", "lifecycle": [{"extent": "2023-01-01", "status": "in_force"}, {"extent": "2030-01-01", "status": "superseded"}]}"#,
    )
    .unwrap()
}

/// A ruling line as `clir rule --certify` writes it for a case of the small package.
fn small_ruling(pkg: &clir_testkit::Package, case: &str, concluded: Value, d: Value, nodes: &[&str]) -> String {
    let nodes: Vec<String> = nodes.iter().map(|n| pkg.id(n)).collect();
    let case_value: Value = serde_json::from_str::<Value>(case).unwrap()["case"].clone();
    json!({
        "case": case_value, "concluded": concluded, "definite": concluded, "contradictions": [],
        "certificate": {"format": "clir.certificate/1", "seal": pkg.seal(), "case": hash(case), "nodes": nodes,
            "D": d, "S": [], "d": []},
    })
    .to_string()
}

#[test]
fn arithmetic_is_exact_past_two_to_the_53_and_a_stated_institutional_fact_is_refused() {
    if !node_runs() {
        return;
    }
    let pkg = small_package();
    // 134217729^2 = 2^54 + 2^28 + 1: as doubles, v*v == v*v+1 and v*v+1 > v*v is false.
    let n = r#"{"case":"e","facts":{"n":[["e",134217729]]}}"#;
    let fact = json!([0, ["n", "e", 134217729], "fact"]);
    let all = vec![
        genuine(
            "q(e), exactly",
            n,
            &small_ruling(&pkg, n, json!({"q": [["e"]]}), json!([fact, [1, ["q", "e"], [0, ["D0"]]]]), &["Q"]),
        ),
        forgery(
            "p(e), as doubles have it",
            n,
            &small_ruling(&pkg, n, json!({"p": [["e"]]}), json!([fact, [1, ["p", "e"], [0, ["D0"]]]]), &["P"]),
            "+D[1]",
            "with x=e, v=134217729 a comparison or negation of its body is false",
        ),
        forgery(
            "an institutional fact stated",
            r#"{"case":"k","facts":{"p":[["g"]]}}"#,
            &small_ruling(
                &pkg,
                r#"{"case":"k","facts":{"p":[["g"]]}}"#,
                json!({"p": [["g"]]}),
                json!([[0, ["p", "g"], "fact"]]),
                &[],
            ),
            "case_line",
            "relation `p` is institutional: it is derived by rules and cannot be given as input",
        ),
        genuine(
            "z stated as a list",
            r#"{"case":"z","facts":{"z":[[]]}}"#,
            &small_ruling(
                &pkg,
                r#"{"case":"z","facts":{"z":[[]]}}"#,
                json!({"y": [[]]}),
                json!([[0, ["z"], "fact"], [1, ["y"], [0, ["D0"]]]]),
                &["Y"],
            ),
        ),
        forgery(
            "a tuple of z that is not a list",
            r#"{"case":"z","facts":{"z":[5]}}"#,
            &small_ruling(
                &pkg,
                r#"{"case":"z","facts":{"z":[5]}}"#,
                json!({"y": [[]]}),
                json!([[0, ["z"], "fact"], [1, ["y"], [0, ["D0"]]]]),
                &["Y"],
            ),
            "case_line",
            "relation `z`: each tuple must be a list of arguments, got 5",
        ),
        forgery(
            "an as_of when the law is no longer in force",
            r#"{"case":"z","as_of":"2030-01-01","facts":{"z":[[]]}}"#,
            &small_ruling(
                &pkg,
                r#"{"case":"z","as_of":"2030-01-01","facts":{"z":[[]]}}"#,
                json!({"y": [[]]}),
                json!([[0, ["z"], "fact"], [1, ["y"], [0, ["D0"]]]]),
                &["Y"],
            ),
            "case_line",
            "when test.forgeries 0.1.0 is no longer in force (since 2030-01-01)",
        ),
    ];
    assert_judged(&pkg.bytes(), &all, &[]);
}

#[test]
fn a_key_written_twice_anywhere_in_a_ruling_line_is_rejected() {
    if !node_runs() {
        return;
    }
    let g3 = certify(&[G3]).remove(0);
    assert!(g3.starts_with('{') && g3.contains("\"certificate\":{"), "{g3}");
    let all = vec![
        genuine("the genuine g3", G3, &g3),
        // A reader that keeps the first `concluded` sees g3 drawn; one that keeps the last, won.
        forgery(
            "a forged `concluded` in front of the certified one",
            G3,
            &format!("{{\"concluded\":{{\"game_drawn\":[[\"g3\"]]}},{}", &g3[1..]),
            "line",
            "the ruling line is not JSON: duplicate key `concluded`",
        ),
        forgery(
            "a list of the certificate written twice",
            G3,
            &g3.replacen("\"certificate\":{", "\"certificate\":{\"d\":[],", 1),
            "line",
            "the ruling line is not JSON: duplicate key `d`",
        ),
        forgery(
            "a relation of `definite` written twice",
            G3,
            &g3.replacen("\"definite\":{", "\"definite\":{\"game_drawn\":[[\"g3\"]],\"game_drawn\":[[\"g3\"]],", 1),
            "line",
            "the ruling line is not JSON: duplicate key `game_drawn`",
        ),
    ];
    assert_judged(&std::fs::read(FIDE).unwrap(), &all, &[]);
}

#[test]
fn a_key_or_node_the_certificate_does_not_prove_is_rejected() {
    if !node_runs() {
        return;
    }
    let g3 = parsed(&certify(&[G3]).remove(0));
    let change = |f: &dyn Fn(&mut Value)| {
        let mut r = g3.clone();
        f(&mut r);
        r.to_string()
    };
    let all = vec![
        forgery(
            "a forged why_not answer",
            G3,
            &change(&|r| r["why_not"] = json!({"game_drawn(g3)": {"concluded": true}})),
            "ruling",
            "the ruling line carries `why_not`, which no certificate proves",
        ),
        forgery(
            "a forged explanation",
            G3,
            &change(&|r| r["explanations"] = json!({"game_drawn(g3)": {"fact": "input"}})),
            "ruling",
            "the ruling line carries `explanations`, which no certificate proves",
        ),
        forgery(
            "a forged warning",
            G3,
            &change(&|r| r["warnings"] = json!(["the arbiter was asleep"])),
            "ruling",
            "the ruling's warnings are [\"the arbiter was asleep\"], reading the case line gives []",
        ),
        forgery(
            "a key no checker reads",
            G3,
            &change(&|r| r["verdict"] = json!("drawn")),
            "ruling",
            "the ruling line carries the key `verdict`, which the checker does not check",
        ),
        forgery(
            "a key of the certificate no checker reads",
            G3,
            &change(&|r| r["certificate"]["signed_by"] = json!("FIDE")),
            "certificate",
            "the certificate carries the key `signed_by`, which the checker does not check",
        ),
        forgery(
            "a node listed twice",
            G3,
            &change(&|r| {
                let first = r["certificate"]["nodes"][0].clone();
                r["certificate"]["nodes"].as_array_mut().unwrap().push(first);
            }),
            "nodes",
            "is listed twice",
        ),
        forgery(
            "a node no entry names",
            G3,
            &change(&|r| {
                r["certificate"]["nodes"].as_array_mut().unwrap().push(json!("urn:fide:laws:clir:chess#StalemateDraws"))
            }),
            "nodes",
            "urn:fide:laws:clir:chess#StalemateDraws is named by no entry",
        ),
    ];
    assert_judged(&std::fs::read(FIDE).unwrap(), &all, &[]);
}

#[test]
fn a_package_whose_hashes_do_not_recompute_is_refused_by_both_checkers() {
    if !node_runs() {
        return;
    }
    let fide = std::fs::read(FIDE).unwrap();
    let (read, _) = js(&fide, &[], &[]);
    let seal = clir_check::sha256(&fide);
    assert_eq!(read["package"], json!({"name": "fide.laws.chess", "version": "0.1.0", "seal": seal}), "{read}");
    let text = String::from_utf8(fide.clone()).unwrap();
    let label = "Laws of Chess taking effect from 1 January 2023";
    assert!(text.contains(label));
    for (name, changed, says) in [
        ("a label changed", text.replacen(label, "Laws of Chess taking effect from 1 January 2024", 1), "contentHash"),
        ("a space between tokens", text.replacen("\"nodes\":[", "\"nodes\": [", 1), "not canonical JSON"),
        ("a key written twice", text.replacen("\"features\":[", "\"features\":[],\"features\":[", 1), "duplicate key"),
    ] {
        let (read, _) = js(changed.as_bytes(), &[], &[]);
        let js_error = read["package_error"].as_str().unwrap_or_else(|| panic!("{name}: check.js reads it: {read}"));
        let rust_error = clir_check::Package::parse(changed.as_bytes()).expect_err(name);
        assert!(js_error.contains(says), "{name}: {js_error}");
        assert_eq!(js_error, rust_error, "{name}");
    }
}

#[test]
fn case_ids_are_told_apart_exactly_and_1e400_is_json() {
    if !node_runs() {
        return;
    }
    let (even, odd, huge) = (
        r#"{"case":9007199254740992,"facts":{}}"#,
        r#"{"case":9007199254740993,"facts":{}}"#,
        r#"{"case":1e400,"facts":{}}"#,
    );
    let rulings = certify(&[even, huge]);
    let all = vec![
        genuine("case 2^53", even, &rulings[0]),
        genuine("case 1e400", huge, &rulings[1]),
        forgery(
            "the ruling of case 2^53 for case 2^53 + 1",
            odd,
            &recase(odd, &parsed(&rulings[0])),
            "case",
            "the ruling's `case` is not the case line's",
        ),
    ];
    let verdicts = assert_judged(&std::fs::read(FIDE).unwrap(), &all, &[]);
    assert_eq!(verdicts[1]["caseJson"], "1e400", "{}", verdicts[1]);
}

#[test]
fn invisible_characters_of_a_name_are_given_as_written_and_shown_escaped_once() {
    if !node_runs() {
        return;
    }
    let g3 = parsed(&certify(&[G3]).remove(0));
    let hostile = "g\u{202e}3\u{2066}\u{200e}\u{200b}\u{feff}\u{ad}";
    let mut r = g3.clone();
    r["concluded"]["game_drawn"] = json!([[hostile]]);
    let verdicts = assert_judged(
        &std::fs::read(FIDE).unwrap(),
        &[forgery(
            "a concluded literal of a hostile name",
            G3,
            &r.to_string(),
            "ruling",
            "the ruling lists it as concluded",
        )],
        &[],
    );
    // check.js names the literal as clir-check does, as the package and lines hold it, and the
    // page escapes what it shows once: an escape on the page means the name holds that character.
    let literal = verdicts[0]["literal"].as_str().unwrap();
    assert_eq!(literal, format!("game_drawn({hostile})"));
    assert_eq!(page_shows(literal), "game_drawn(g\\u{202e}3\\u{2066}\\u{200e}\\u{200b}\\u{feff}\\u{00ad})");
}

#[test]
fn explanations_are_rejected_unless_set_aside_as_unproved_and_then_the_rest_is_checked() {
    if !node_runs() {
        return;
    }
    // The review page rules with explanations: no certificate proves them.
    let (code, out, err) =
        clir(&["rule", "--package", "fide.laws.chess", "--certify", "--explain"], &format!("{G3}\n"));
    assert_eq!(code, 0, "{err}");
    let explained = out.lines().next().unwrap().to_string();
    assert!(explained.contains("\"explanations\":"), "{explained}");
    let mut forged = parsed(&explained);
    forged["concluded"]["game_drawn"] = json!([["g3"]]);
    let fide = std::fs::read(FIDE).unwrap();
    let pairs = vec![(G3.to_string(), explained.clone()), (G3.to_string(), forged.to_string())];
    assert_judged(
        &fide,
        &[
            forgery(
                "explanations",
                G3,
                &explained,
                "ruling",
                "the ruling line carries `explanations`, which no certificate proves",
            ),
            forgery(
                "explanations and a forged conclusion",
                G3,
                &forged.to_string(),
                "ruling",
                "carries `explanations`",
            ),
        ],
        &[],
    );
    let (_, set_aside) = js_with(&fide, &pairs, &[], json!({"unproved": ["explanations", "why_not"]}));
    assert_eq!(set_aside[0]["outcome"], "certified", "{}", set_aside[0]);
    assert_eq!(set_aside[0]["unchecked"], json!(["explanations"]), "{}", set_aside[0]);
    assert_eq!(
        (&set_aside[1]["outcome"], &set_aside[1]["step"]),
        (&json!("rejected"), &json!("ruling")),
        "{}",
        set_aside[1]
    );
    assert_eq!(set_aside[1]["literal"], "game_drawn(g3)", "{}", set_aside[1]);
}
