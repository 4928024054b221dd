//! The review page's certificate checker (src/cli/serve/check.js, plain JavaScript, run here
//! under `node`) and `clir-check` (Rust) judge the same certificates alike, with the same
//! outcome, step, literal and reason, word for word and number for number: every certificate of
//! the sample games and of generated games accepted by both; every mutation of
//! tests/support/mutations.rs rejected by both; random packages of Integer arithmetic near 2^53
//! and 2^63, certified by `clir run`, and forgeries of their rulings; the hostile case lines of
//! tests/check_strict.rs, with and without the grant; random edits of certified case and ruling
//! lines. tests/js_checker_forgeries.rs holds the forgeries of issue 45.
//!
//! Without `node` the test is skipped loudly, except under `CI=true`, where it fails:
//! `.ci/browser` installs Debian's `nodejs` when `node` is missing.

use clir_testkit::rng::Rng;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

#[path = "support/cli.rs"]
mod cli;
use cli::clir;

#[path = "support/mutations.rs"]
mod mutations;

#[path = "../benches/gen.rs"]
mod gen;

const PACKAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sources/fide.laws.chess-0.1.0.lawir.json");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl");
const CHECK_JS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cli/serve/check.js");

/// Reads `{"case":LINE,"ruling":LINE}` lines from stdin and writes one verdict line each, as
/// check.js's `checkLine` gives it under the grants of its third argument (a JSON list).
const DRIVER: &str = r#"
const ClirCheck = require(process.argv[1]);
const fs = require("fs");
(async () => {
  const pkg = await ClirCheck.readPackage(fs.readFileSync(process.argv[2]));
  const grants = JSON.parse(process.argv[3]);
  const pairs = fs.readFileSync(0, "utf8").split("\n").filter((l) => l);
  const out = [];
  for (const p of pairs) {
    const { case: c, ruling } = JSON.parse(p);
    out.push(JSON.stringify(await ClirCheck.checkLine(pkg, c, ruling, { grants })));
  }
  process.stdout.write(out.join("\n") + "\n");
})().catch((e) => { console.error(e && e.stack || e); process.exit(2); });
"#;

/// Whether `node` runs; without it, a skip said on stderr, or a failure under `CI=true`.
fn node_runs() -> bool {
    let runs = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "node is missing under CI=true (.ci/browser installs it)"
        );
        eprintln!("\n\n*** SKIPPED: the JavaScript checker needs node (`bash .ci/browser` installs Debian's nodejs and runs it) ***\n");
    }
    runs
}

/// check.js's verdict on each pair with the package file `package`, under `grants`.
fn js_verdicts_of(package: &str, pairs: &[(String, String)], grants: &[&str]) -> Vec<Value> {
    js_verdicts_within(package, pairs, grants, std::time::Duration::from_secs(600))
}

/// [`js_verdicts_of`], node killed (and the test failed) past `limit`: a bound far above the
/// linear cost, not a timing.
fn js_verdicts_within(
    package: &str,
    pairs: &[(String, String)],
    grants: &[&str],
    limit: std::time::Duration,
) -> Vec<Value> {
    let mut child = Command::new("node")
        .args(["-e", DRIVER, CHECK_JS, package, &json!(grants).to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let input: String = pairs.iter().map(|(c, r)| json!({"case": c, "ruling": r}).to_string() + "\n").collect();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).map(|_| out)
    });
    let errors = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut out).map(|_| out)
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("check.js took longer than {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    feeder.join().unwrap().unwrap();
    let (out, err) = (reader.join().unwrap().unwrap(), errors.join().unwrap().unwrap());
    assert!(status.success(), "{err}");
    out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// clir-check's verdict on each pair with the package file `package`, under `grants`, written
/// as check.js writes its own (`caseJson`: the case line's `case` as written).
fn rust_verdicts_of(package: &str, pairs: &[(String, String)], grants: &[&str]) -> Vec<Value> {
    let pkg = clir_check::Package::parse(&std::fs::read(package).unwrap()).unwrap();
    let opts = clir_check::Options { grants: grants.iter().map(|g| g.to_string()).collect() };
    pairs
        .iter()
        .map(|(c, r)| {
            let (case, verdict) = clir_check::check_case(&pkg, c, r, &opts);
            let mut v = match verdict {
                clir_check::Verdict::Certified => json!({"outcome": "certified"}),
                clir_check::Verdict::NotRuled(e) => json!({"outcome": "not_ruled", "error": e}),
                clir_check::Verdict::Rejected(f) => {
                    json!({"outcome": "rejected", "literal": f.literal, "step": f.step, "reason": f.reason})
                }
            };
            v["caseJson"] = json!(case);
            v
        })
        .collect()
}

/// The same outcome, and for a rejection the same step, literal and reason, word for word and
/// number for number, from both checkers (check.js reads Integers and ranks exactly, as BigInt,
/// and words JSON errors as serde_json does).
fn assert_agree(pairs: &[(String, String)], names: &[&str]) -> (Vec<Value>, Vec<Value>) {
    assert_agree_of(PACKAGE, pairs, names, &[])
}

/// [`assert_agree`] with the package file `package`, under `grants`; the case line's `case`
/// value as written the same too.
fn assert_agree_of(
    package: &str,
    pairs: &[(String, String)],
    names: &[&str],
    grants: &[&str],
) -> (Vec<Value>, Vec<Value>) {
    let (js, rust) = (js_verdicts_of(package, pairs, grants), rust_verdicts_of(package, pairs, grants));
    assert_eq!(js.len(), pairs.len());
    for ((j, r), name) in js.iter().zip(&rust).zip(names) {
        for k in ["outcome", "step", "literal", "error", "reason", "caseJson"] {
            assert_eq!(j.get(k), r.get(k), "{name}: `{k}` differs\nnode: {j}\nrust: {r}");
        }
    }
    (js, rust)
}

/// `clir rule --certify` of `cases`: the ruling lines.
fn certify(cases: &str) -> Vec<String> {
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--certify"], cases);
    assert!(code == 0 || code == 1, "{err}");
    out.lines().map(str::to_string).collect()
}

#[test]
fn both_checkers_accept_every_certificate_of_sample_and_generated_games() {
    if !node_runs() {
        return;
    }
    let mut cases: Vec<String> = std::fs::read_to_string(GAMES).unwrap().lines().map(str::to_string).collect();
    cases.extend(gen::lines(2_000, 53));
    // A case clir refuses: an error line, not ruled by either checker.
    cases.push("{\"case\":\"bad\",\"facts\":{\"game_drawn\":[[\"g\"]]}}".into());
    let rulings = certify(&(cases.join("\n") + "\n"));
    assert_eq!(rulings.len(), cases.len());
    let pairs: Vec<(String, String)> = cases.into_iter().zip(rulings).collect();
    let names: Vec<&str> = pairs.iter().map(|(c, _)| c.as_str()).collect();
    let (js, _) = assert_agree(&pairs, &names);
    let (last, ruled) = js.split_last().unwrap();
    assert!(
        ruled.iter().all(|v| v["outcome"] == "certified"),
        "{:?}",
        ruled.iter().find(|v| v["outcome"] != "certified")
    );
    assert_eq!(last["outcome"], "not_ruled", "{last}");
}

#[test]
fn both_checkers_reject_every_mutation_at_the_same_step_and_literal_for_the_same_reason() {
    if !node_runs() {
        return;
    }
    let case = std::fs::read_to_string(GAMES).unwrap().lines().nth(4).unwrap().to_string();
    let ruling: Value = serde_json::from_str(&certify(&format!("{case}\n")).remove(0)).unwrap();
    let all = mutations::mutations(&case, &ruling);
    let mut pairs = vec![(case.clone(), ruling.to_string())];
    pairs.extend(all.iter().map(|m| (m.case.clone(), m.ruling.clone())));
    let mut names = vec!["the unchanged certificate"];
    names.extend(all.iter().map(|m| m.name));
    let (js, _) = assert_agree(&pairs, &names);
    assert_eq!(js[0]["outcome"], "certified", "{}", js[0]);
    for (m, v) in all.iter().zip(&js[1..]) {
        assert_eq!(v["outcome"], "rejected", "{}: {v}", m.name);
        if let Some(literal) = m.literal {
            assert_eq!(v["literal"].as_str(), literal, "{}: {v}", m.name);
        }
        assert!(v["step"].as_str().unwrap().starts_with(m.step), "{}: {v}", m.name);
        assert!(v["reason"].as_str().unwrap().contains(m.reason), "{}: {v}", m.name);
    }
}

/// Integers where 64-bit arithmetic and doubles part ways: about 2^53 (doubles stop being exact),
/// about 2^63 (i64 wraps), their square roots (a product crosses them), and small ones.
const EDGES: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    94_906_265,
    94_906_266,
    134_217_729,
    3_037_000_499,
    3_037_000_500,
    4_294_967_296,
    (1 << 53) - 1,
    1 << 53,
    (1 << 53) + 1,
    -(1 << 53) - 1,
    (1 << 62) + 1,
    i64::MAX - 1,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];

/// An Integer near an edge (or, now and then, any).
fn edge(rng: &mut Rng) -> i64 {
    match rng.below(4) {
        0 => rng.next() as i64,
        1 => rng.pick(EDGES).wrapping_add(rng.below(5) as i64 - 2),
        _ => *rng.pick(EDGES),
    }
}

/// A random Integer term over the variables `a` and `b`, in the kit's notation.
fn expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.chance(30) {
        return match rng.below(3) {
            0 => "a".into(),
            1 => "b".into(),
            _ => edge(rng).to_string(),
        };
    }
    let op = *rng.pick(&["+", "-", "*"]);
    format!("({} {op} {})", expr(rng, depth - 1), expr(rng, depth - 1))
}

/// A random package of Integer arithmetic near 2^53 and 2^63: strict rules whose comparisons
/// decide them (`h`), strict rules whose heads compute (`m`), and defeasible rules for both
/// signs of `e`, ranked by a priority, whose comparisons decide them.
fn arithmetic_package(seed: u64) -> clir_testkit::Package {
    let mut rng = Rng::new(seed, 45);
    let mut text = String::from(
        "package test.arithmetic 0.1.0\nfeatures integer-arithmetic\ntype Game\nempirical n(g: Game, a: Integer, b: Integer)\n",
    );
    for k in 0..12 {
        let cmp = *rng.pick(&["=", "!=", "<", "<=", ">", ">="]);
        text += &format!("institutional h{k}(g: Game)\n");
        text += &format!(
            "rule H{k} strict: h{k}(x) :- n(x, a, b), 0 + {} {cmp} {}\n",
            expr(&mut rng, 2),
            expr(&mut rng, 2)
        );
        text += &format!("institutional m{k}(g: Game, v: Integer)\n");
        text += &format!("rule M{k} strict: m{k}(x, {}) :- n(x, a, b)\n", expr(&mut rng, 2));
    }
    for k in 0..3 {
        let (c1, c2) = (*rng.pick(&["<", ">=", "="]), *rng.pick(&["!=", ">", "<="]));
        text += &format!("institutional e{k}(g: Game)\n");
        text += &format!(
            "rule E{k} defeasible: e{k}(x) :- n(x, a, b), 0 + {} {c1} {}\n",
            expr(&mut rng, 2),
            expr(&mut rng, 2)
        );
        text += &format!(
            "rule NE{k} defeasible: ~e{k}(x) :- n(x, a, b), 0 + {} {c2} {}\n",
            expr(&mut rng, 2),
            expr(&mut rng, 2)
        );
        text += &format!("priority P{k}: E{k} > NE{k}\n");
    }
    clir_testkit::Package::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Random case lines for [`arithmetic_package`]: one to three facts `n(g, a, b)` near the edges.
fn arithmetic_cases(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed, 53);
    (0..count)
        .map(|i| {
            let facts: Vec<Value> =
                (0..rng.range(1, 3)).map(|j| json!([format!("g{}", j % 2), edge(&mut rng), edge(&mut rng)])).collect();
            json!({"case": i, "facts": {"n": facts}}).to_string()
        })
        .collect()
}

/// `clir run PACKAGE --certify` of `cases`: the engine's certified rulings of a package file.
fn run_certify(package: &std::path::Path, cases: &[String]) -> Vec<String> {
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("js_checker_agrees-cache");
    let dir = package.parent().unwrap();
    let (input, output) = (dir.join("cases.jsonl"), dir.join("certified.jsonl"));
    std::fs::write(&input, cases.join("\n") + "\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", package.to_str().unwrap(), "--certify", "--input", input.to_str().unwrap()])
        .args(["--output", output.to_str().unwrap()])
        .env("CLIR_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert!(out.status.code() == Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&output).unwrap().lines().map(str::to_string).collect()
}

/// The certified ruling `ruling` changed: an entry and its literal (as concluded and definite)
/// added, or a listed `m` value moved, or a concluded `h` literal dropped; `None` when the
/// ruling has nothing of the kind.
fn forge(ruling: &Value, pkg: &clir_testkit::Package, kind: usize, rng: &mut Rng) -> Option<(&'static str, Value)> {
    let mut r = ruling.clone();
    let cert = &r["certificate"];
    let d = cert["D"].as_array().unwrap();
    let facts: Vec<usize> = (0..d.len()).filter(|&i| d[i][2] == "fact").collect();
    match kind {
        // h_k(g) by H_k over a fact, where the ruling does not conclude it.
        0 => {
            let k = rng.below(12);
            let name = format!("h{k}");
            let f = *rng.pick(&facts);
            let g = d[f][1][1].clone();
            if r["concluded"][&name].as_array().is_some_and(|t| t.contains(&json!([g]))) {
                return None;
            }
            let id = pkg.id(&format!("H{k}"));
            let nodes = r["certificate"]["nodes"].as_array_mut().unwrap();
            let node = nodes.iter().position(|n| n == &json!(id)).unwrap_or_else(|| {
                nodes.push(json!(id));
                nodes.len() - 1
            });
            r["certificate"]["D"].as_array_mut().unwrap().push(json!([1, [name, g], [node, [format!("D{f}")]]]));
            for layer in ["concluded", "definite"] {
                let tuples = r[layer][&name].as_array().cloned().unwrap_or_default();
                r[layer][&name] = json!(tuples.into_iter().chain([json!([g])]).collect::<Vec<_>>());
            }
            Some(("an h literal its comparison does not give", r))
        }
        // m_k(g, v) listed with another value: v + 1, or v as a double rounds it.
        1 => {
            let i = (0..d.len()).find(|&i| d[i][1][0].as_str().is_some_and(|n| n.starts_with('m')))?;
            let v = d[i][1][2].as_i64().unwrap();
            let rounded = v as f64 as i64;
            let w = if rounded != v && rng.chance(50) { rounded } else { v.wrapping_add(1) };
            let (name, g) = (d[i][1][0].as_str().unwrap().to_string(), d[i][1][1].clone());
            r["certificate"]["D"][i][1][2] = json!(w);
            for layer in ["concluded", "definite"] {
                for t in r[layer][&name].as_array_mut().unwrap() {
                    if t[0] == g && t[1] == json!(v) {
                        t[1] = json!(w);
                    }
                }
            }
            Some(("an m value moved", r))
        }
        // A concluded h_k(g) dropped from the certificate and the ruling.
        _ => {
            let i = (0..d.len()).rev().find(|&i| d[i][1][0].as_str().is_some_and(|n| n.starts_with('h')))?;
            let (name, g) = (d[i][1][0].as_str().unwrap().to_string(), d[i][1][1].clone());
            r["certificate"]["D"].as_array_mut().unwrap().remove(i);
            for layer in ["concluded", "definite"] {
                let tuples: Vec<Value> =
                    r[layer][&name].as_array().unwrap().iter().filter(|t| t[0] != g).cloned().collect();
                if tuples.is_empty() {
                    r[layer].as_object_mut().unwrap().remove(&name);
                } else {
                    r[layer][&name] = json!(tuples);
                }
            }
            Some(("an h literal dropped", r))
        }
    }
}

#[test]
fn both_checkers_agree_on_random_arithmetic_near_2_to_the_53_and_2_to_the_63() {
    if !node_runs() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(45, 1);
    for seed in [1, 2] {
        let pkg = arithmetic_package(seed);
        let file = dir.path().join(format!("p{seed}")).join(pkg.file_name());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, pkg.bytes()).unwrap();
        let cases = arithmetic_cases(seed, 60);
        let rulings = run_certify(&file, &cases);
        assert_eq!(rulings.len(), cases.len());
        let mut pairs: Vec<(String, String)> = cases.iter().cloned().zip(rulings.iter().cloned()).collect();
        let mut names: Vec<&str> = vec!["a genuine ruling"; pairs.len()];
        for (case, ruling) in cases.iter().zip(&rulings) {
            let ruling: Value = serde_json::from_str(ruling).unwrap();
            for kind in 0..3 {
                if let Some((name, forged)) = forge(&ruling, &pkg, kind, &mut rng) {
                    pairs.push((case.clone(), forged.to_string()));
                    names.push(name);
                }
            }
        }
        let (js, _) = assert_agree_of(file.to_str().unwrap(), &pairs, &names, &[]);
        for ((v, name), (case, _)) in js.iter().zip(&names).zip(&pairs) {
            let want = if *name == "a genuine ruling" { "certified" } else { "rejected" };
            assert_eq!(v["outcome"], want, "{name}: {case}\n{v}");
        }
    }
}

/// Case lines clir refuses, each for its own reason, and some it rules that a lax reader gets
/// wrong (case ids, escapes, `-0`, a name close to a constant): the lines of
/// tests/check_strict.rs, on which clir-check is tested against clir rule.
fn hostile_case_lines() -> Vec<String> {
    let why_not_1025 = serde_json::to_string(&vec!["game_drawn(g)"; 1025]).unwrap();
    let mut lines: Vec<String> = [
        r#"{"case":"k","facts":{"game_lost_by":[["g","w"]]}}"#,
        r#"{"case":"k2","facts":{"~game_drawn":[["g"]]}}"#,
        r#"{"case":"j","facts":{"piece_touched_intentionally":[["w","n"]]}}"#,
        r#"{"case":"a1","as_of":"2022-12-31","facts":{}}"#,
        r#"{"case":"a2","as_of":20230101,"facts":{}}"#,
        r#"{"case":"a3","as_of":"2023-02-29","facts":{}}"#,
        r#"{"case":"a4","as_of":"2023-01-01","facts":{"stalemate_arisen":[["g"]]}}"#,
        r#"{"case":"a5","as_of":"2023-01-01","as_of":"2023-01-02","facts":{}}"#,
        r#"{"case":"d1","facts":{},"facts":{"game_lost_by":[["g","w"]]}}"#,
        r#"{"case":"d2","facts":{"draw_agreed":[["g"]],"draw_agreed":[["h"]]}}"#,
        r#"{"case":"d3","case":"d4","facts":{}}"#,
        r#"{"case":{"id":1,"id":2},"facts":{}}"#,
        r#"{"case":[{"a":{"b":1,"b":1}}],"facts":{}}"#,
        r#"{"case":"u","facts":{},"extra":1}"#,
        r#"{"case":"u2","facts":{},"why_not":[],"why_not":[]}"#,
        r#"{"case":"m1"}"#,
        r#"{"facts":{}}"#,
        r#"{"case":"w1","facts":{},"why_not":["game_drawn(g"]}"#,
        r#"{"case":"w2","facts":{},"why_not":["no_such(g)"]}"#,
        r#"{"case":"w3","facts":{},"why_not":["game_drawnn(g)"]}"#,
        r#"{"case":"w4","facts":{},"why_not":["game_drawn(g,h)"]}"#,
        r#"{"case":"w5","facts":{},"why_not":["game_drawn()"]}"#,
        r#"{"case":"w6","facts":{},"why_not":["moves_by_each_without_pawn_or_capture(g,x)"]}"#,
        r#"{"case":"w7","facts":{},"why_not":["game_drawn(\"g)"]}"#,
        r#"{"case":"w8","facts":{},"why_not":["game_drawn(g) x"]}"#,
        r#"{"case":"w9","facts":{},"why_not":"game_drawn(g)"}"#,
        r#"{"case":"w10","facts":{},"why_not":[1]}"#,
        r#"{"case":"w11","facts":{},"why_not":["game_drawn(,)"]}"#,
        r#"{"case":"w12","facts":{},"why_not":["game_drawn(_)"]}"#,
        r#"{"case":"w13","facts":{},"why_not":["game_drawn(\"_\")"]}"#,
        r#"{"case":"f1","facts":[]}"#,
        r#"{"case":"f2","facts":{"draw_agreed":5}}"#,
        r#"{"case":"f3","facts":{"draw_agreed":["g"]}}"#,
        r#"{"case":"f4","facts":{"draw_agreed":[{"a":1,"a":2}]}}"#,
        r#"{"case":"f5","facts":{"draw_agreed":[[{"a":1,"a":2}]]}}"#,
        r#"{"case":"f6","facts":{"draw_agreed":[["g","h"]]}}"#,
        r#"{"case":"f7","facts":{"moves_by_each_without_pawn_or_capture":[["g","80"]]}}"#,
        r#"{"case":"f8","facts":{"moves_by_each_without_pawn_or_capture":[["g",1.0]]}}"#,
        r#"{"case":"f9","facts":{"moves_by_each_without_pawn_or_capture":[["g",1e2]]}}"#,
        r#"{"case":"f10","facts":{"moves_by_each_without_pawn_or_capture":[["g",18446744073709551615]]}}"#,
        r#"{"case":"f11","facts":{"moves_by_each_without_pawn_or_capture":[["g",-0]]}}"#,
        r#"{"case":"f12","facts":{"draw_agreed":[[1]]}}"#,
        r#"{"case":"f13","facts":{"game_drawnn":[["g"]]}}"#,
        r#"{"case":"f14","facts":{"no_such_relation":[["g"]]}}"#,
        r#"{"case":"f15","facts":{"draw\u005fagreed":[["g"]],"~draw_agreed":[["h"]]}}"#,
        r#"{"case":"f16","facts":{"attempted_transition":[["g","startPlay"],["g","StartPlay"]]}}"#,
        r#"{"case":"f17","facts":{"draw_agreed":[null]}}"#,
        r#"{"case":"f18","facts":{"moves_by_each_without_pawn_or_capture":[["g",9223372036854775808]]}}"#,
        r#"{"case":"f19","facts":{"moves_by_each_without_pawn_or_capture":[["g",-9223372036854775808]]}}"#,
        r#"{"case":"f20","facts":{"moves_by_each_without_pawn_or_capture":[["g",12345678901234567890123]]}}"#,
        "not json",
        r#"{"case":1"#,
        r#"{"case":1,"facts":{}} x"#,
        "[1]",
        "null",
        "\u{a0}",
        r#"{"case":18446744073709551616,"facts":{}}"#,
        r#"{"case":1E2,"facts":{"stalemate_arisen":[["g"]]}}"#,
        r#"{"case":-0,"facts":{}}"#,
        r#"{"case":1e400,"facts":{}}"#,
        r#"{"case":[1e400],"facts":{}}"#,
        "{\"case\": [1, \"a b\",\t{\"x\" : 1.50}],\"facts\":{}}",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    lines.push(format!(r#"{{"case":"w1025","facts":{{}},"why_not":{why_not_1025}}}"#));
    lines
}

#[test]
fn both_checkers_read_every_hostile_case_line_as_clir_rule_does_with_its_message() {
    if !node_runs() {
        return;
    }
    let g5 = std::fs::read_to_string(GAMES).unwrap().lines().nth(4).unwrap().to_string();
    let forged = certify(&format!("{g5}\n")).remove(0);
    let lines = hostile_case_lines();
    for grants in [&[][..], &["judgment:FIDEArbiter"][..]] {
        let mut args = vec!["rule", "--package", "fide.laws.chess", "--certify"];
        for g in grants {
            args.extend(["--grant", g]);
        }
        let (code, out, err) = clir(&args, &(lines.join("\n") + "\n"));
        assert!(code == 0 || code == 1, "{err}");
        let ruled: Vec<&str> = out.lines().collect();
        assert_eq!(ruled.len(), lines.len());
        // Where clir refused the line, a certified ruling of another case stands in its place: a
        // forger's. Where it ruled it, its own certified ruling.
        let pairs: Vec<(String, String)> = lines
            .iter()
            .zip(&ruled)
            .map(|(c, r)| (c.clone(), if r.contains("\"error\":") { forged.clone() } else { r.to_string() }))
            .collect();
        let names: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (js, _) = assert_agree_of(PACKAGE, &pairs, &names, grants);
        for ((v, r), line) in js.iter().zip(&ruled).zip(&lines) {
            if let Some(i) = r.find("\"error\":\"line ") {
                // The error line's message, as JSON text, without its `line N: `.
                let message = &r[i + "\"error\":\"line ".len()..r.len() - 2];
                let error = &message[message.find(": ").unwrap() + 2..];
                assert_eq!(v["outcome"], "rejected", "{line}: {v}");
                assert_eq!(v["step"], "case_line", "{line}: {v}");
                let reason = serde_json::to_string(&v["reason"]).unwrap();
                assert_eq!(&reason[1..reason.len() - 1], error, "{line}: {v}");
            } else if r.contains("\"why_not\":{") {
                // Ruled, and answered: no certificate proves a why-not answer.
                assert_eq!((&v["outcome"], &v["step"]), (&json!("rejected"), &json!("ruling")), "{line}: {v}");
            } else {
                assert_eq!(v["outcome"], "certified", "{line}: {v}\n{r}");
            }
        }
    }
}

/// `line` with one to three random edits: bytes deleted, or a piece of JSON (a bracket, a quote,
/// an escape, a number past 2^64, a non-ASCII letter, ...) put in or in place of some.
fn edited(line: &str, rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        " ",
        "0",
        "1",
        "-",
        ".",
        "e",
        "E",
        "+",
        "~",
        "true",
        "null",
        "\"x\"",
        "1e400",
        "-0",
        "1.0",
        "é",
        "\\u00e9",
        "\\ud800",
        "\"D0\"",
        "\"fact\"",
        "18446744073709551616",
        "[]",
        "{}",
        "\"~game_drawn\"",
        "\"g5\"",
    ];
    let mut s: Vec<char> = line.chars().collect();
    for _ in 0..rng.range(1, 3) {
        let i = rng.below(s.len() + 1);
        let cut = (i + rng.range(1, 4)).min(s.len());
        match rng.below(3) {
            0 if s.len() > 1 => drop(s.drain(i..cut)),
            1 => drop(s.splice(i..i, rng.pick(PIECES).chars())),
            _ => drop(s.splice(i..cut, rng.pick(PIECES).chars())),
        }
    }
    s.into_iter().collect()
}

#[test]
fn both_checkers_judge_every_edit_of_a_case_line_or_a_ruling_line_alike() {
    if !node_runs() {
        return;
    }
    let cases: Vec<String> = std::fs::read_to_string(GAMES).unwrap().lines().take(60).map(str::to_string).collect();
    let rulings = certify(&(cases.join("\n") + "\n"));
    let mut rng = Rng::new(45, 2);
    let mut pairs = Vec::new();
    for (case, ruling) in cases.iter().zip(&rulings) {
        for _ in 0..25 {
            pairs.push((case.clone(), edited(ruling, &mut rng)));
            pairs.push((edited(case, &mut rng), ruling.clone()));
        }
    }
    let names: Vec<&str> = pairs.iter().map(|(c, _)| c.as_str()).collect();
    let (js, _) = assert_agree(&pairs, &names);
    let steps: std::collections::BTreeSet<&str> = js.iter().filter_map(|v| v["step"].as_str()).collect();
    for step in ["line", "case_line", "case", "nodes", "+D[0]", "ruling"] {
        assert!(steps.iter().any(|s| s.starts_with(step)), "no edit was rejected at {step}: {steps:?}");
    }
}

/// En passant with `n` players to move and `n` pawns beside the open right: the case line and
/// the certificate clir writes for it (tests/check_strict.rs), each capture by rule
/// EnPassantCaptureLegal over the right, `witness(i)`'s player and pawn `i`.
fn en_passant(n: usize, witness: impl Fn(usize) -> usize) -> (String, String) {
    let players: Vec<Value> = (0..n).map(|i| json!(["g", format!("p{i}")])).collect();
    let pawns: Vec<Value> = (0..n).map(|i| json!(["g", format!("q{i}")])).collect();
    let case = json!({"case": "ep", "facts": {"en_passant_right_open": [["g"]], "player_has_the_move": players,
        "capturing_pawn_on_adjacent_file": pawns}})
    .to_string();
    let mut d = vec![json!([0, ["en_passant_right_open", "g"], "fact"])];
    d.extend((0..n).map(|i| json!([0, ["player_has_the_move", "g", format!("p{i}")], "fact"])));
    d.extend((0..n).map(|i| json!([0, ["capturing_pawn_on_adjacent_file", "g", format!("q{i}")], "fact"])));
    d.extend((0..n).map(|i| {
        let premises = [format!("D{}", 1 + witness(i)), "D0".to_string(), format!("D{}", 1 + n + i)];
        json!([1, ["en_passant_capture_legal", "g", format!("q{i}")], [0, premises]])
    }));
    let seal = clir_check::sha256(&std::fs::read(PACKAGE).unwrap());
    let ruling = json!({"case": "ep", "concluded": {"en_passant_capture_legal": pawns},
        "definite": {"en_passant_capture_legal": pawns}, "contradictions": [],
        "certificate": {"format": "clir.certificate/1", "seal": seal, "case": clir_check::sha256(case.as_bytes()),
            "nodes": ["urn:fide:laws:clir:chess#EnPassantCaptureLegal"], "D": d, "S": [], "d": []}})
    .to_string();
    (case, ruling)
}

#[test]
fn both_checkers_join_a_lone_variable_as_an_existence_test() {
    if !node_runs() {
        return;
    }
    // clir's own certificate of a small such case is the one written here.
    let (small, mine) = en_passant(3, |_| 0);
    let ruled: Value = serde_json::from_str(&certify(&format!("{small}\n")).remove(0)).unwrap();
    let entries = |v: &Value| {
        let mut e: Vec<String> = v["certificate"]["D"].as_array().unwrap().iter().map(|e| e[1].to_string()).collect();
        e.sort();
        e
    };
    assert_eq!(entries(&ruled), entries(&serde_json::from_str(&mine).unwrap()));
    // 8,000 players and 8,000 pawns: 64 million bindings of (who, pawn) if the lone `who` were
    // joined (minutes), a second or two if not; any listed witness of it will do; one capture
    // left out is missed by the fixpoint.
    let n = 8000;
    let (case, first) = en_passant(n, |_| 0);
    let (_, other) = en_passant(n, |i| (i * 7) % n);
    let mut dropped: Value = serde_json::from_str(&first).unwrap();
    dropped["certificate"]["D"].as_array_mut().unwrap().pop();
    for key in ["concluded", "definite"] {
        dropped[key]["en_passant_capture_legal"].as_array_mut().unwrap().pop();
    }
    let pairs = vec![(case.clone(), first), (case.clone(), other), (case, dropped.to_string())];
    let js = js_verdicts_within(PACKAGE, &pairs, &[], std::time::Duration::from_secs(60));
    let rust = rust_verdicts_of(PACKAGE, &pairs, &[]);
    for (j, r) in js.iter().zip(&rust) {
        for k in ["outcome", "step", "literal", "reason"] {
            assert_eq!(j.get(k), r.get(k), "`{k}` differs\nnode: {j}\nrust: {r}");
        }
    }
    assert_eq!((&js[0]["outcome"], &js[1]["outcome"]), (&json!("certified"), &json!("certified")), "{js:?}");
    assert_eq!(js[2]["step"], "fixpoint", "{}", js[2]);
    assert_eq!(js[2]["literal"], format!("en_passant_capture_legal(g,q{})", n - 1), "{}", js[2]);
}

/// Castling with `n` rooks and `n` kings of the player to move, each rook on the side checked
/// and every piece checked (tests/hostile_existential.rs): the case line.
fn castling(n: usize) -> String {
    let tuples = |f: &dyn Fn(usize) -> Value| Value::Array((0..n).map(f).collect());
    let pieces: Vec<Value> = (0..n).flat_map(|i| [json!([format!("r{i}")]), json!([format!("K{i}")])]).collect();
    let facts = json!({
        "castling_side_of": tuples(&|i| json!(["g", "w", "k", format!("r{i}")])),
        "rook_of": tuples(&|i| json!(["w", format!("r{i}")])),
        "king_of": tuples(&|i| json!(["w", format!("K{i}")])),
        "player_has_the_move": [["g", "w"]],
        "checked_castling_side": [["k"]],
        "checked_piece": pieces,
    });
    json!({"case": "castle", "facts": facts}).to_string()
}

#[test]
fn both_checkers_join_castling_as_the_plan_does() {
    if !node_runs() {
        return;
    }
    // `castling_legal(game, who, side) :- castling_side_of(game, who, side, rook),
    // king_of(who, king), ~piece_has_moved(rook), ..., ~piece_has_moved(king)`: with 4,000
    // rooks and 4,000 kings, 16 million bindings of (rook, king) if the join extended each
    // rook by every king before testing `~piece_has_moved` and walked each again (minutes);
    // tests first, comparisons and negations as soon as bound, and each subtree once per value
    // of the variables still live make it linear. clir's certificate is certified by both; with
    // the one conclusion left out, both miss it at the fixpoint.
    let n = 4000;
    let case = castling(n);
    let ruling = certify(&format!("{case}\n")).remove(0);
    let mut dropped: Value = serde_json::from_str(&ruling).unwrap();
    let d = dropped["certificate"]["D"].as_array_mut().unwrap();
    assert_eq!(d.last().unwrap()[1], json!(["castling_legal", "g", "w", "k"]), "{}", d.last().unwrap());
    d.pop();
    for key in ["concluded", "definite"] {
        dropped[key].as_object_mut().unwrap().remove("castling_legal");
    }
    let pairs = vec![(case.clone(), ruling), (case, dropped.to_string())];
    let start = std::time::Instant::now();
    let js = js_verdicts_within(PACKAGE, &pairs, &[], std::time::Duration::from_secs(60));
    eprintln!("check.js: castling with {n} rooks and {n} kings, twice, in {:?}", start.elapsed());
    let rust = rust_verdicts_of(PACKAGE, &pairs, &[]);
    for (j, r) in js.iter().zip(&rust) {
        for k in ["outcome", "step", "literal", "reason"] {
            assert_eq!(j.get(k), r.get(k), "`{k}` differs\nnode: {j}\nrust: {r}");
        }
    }
    assert_eq!(js[0]["outcome"], "certified", "{}", js[0]);
    assert_eq!(js[1]["step"], "fixpoint", "{}", js[1]);
    assert_eq!(js[1]["literal"], "castling_legal(g,w,k)", "{}", js[1]);
}
