//! Every explanation `--explain` writes for fide.laws.chess is a proof on its own
//! (docs/DECISIONS.md 31), rebuilt by the independent checker `clir_reference::explanations`
//! against the package document and the reference evaluator: generated games
//! (`benches/gen.rs`), random fact sets over the package (`clir_reference::random::facts`) and
//! hand-made cases such as the correct fifty-move claim after a checkmate.
//! `CLIR_EXPLAIN_CASES` sets how many of each generated kind (default 150).
//! The random packages and the demo packages are checked in `clir-random`.

#[path = "../benches/gen.rs"]
mod gen;

clir::include_clir!("fide.laws.chess");

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_codegen::ir::Document;
use clir_reference::explanations::Checker;
use serde_json::{json, Value};

const PACKAGE: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");

fn hand_made() -> Vec<Value> {
    let cases = [
        // The issue: game_drawn(g) is definite through the correct fifty-move claim, although
        // the seventy-five-move draw is attacked by the checkmate.
        json!({"draw_claimed":[["bob"]],"player_has_the_move":[["g","bob"]],"player_of":[["g","alice"],["g","bob"]],
               "moves_by_each_without_pawn_or_capture":[["g",58],["g",84]],"checkmate_delivered":[["g","alice"]]}),
        json!({"draw_claimed":[["bob"]],"player_has_the_move":[["g","bob"]],
               "moves_by_each_without_pawn_or_capture":[["g",58],["g",84]],"checkmate_delivered":[["g","alice"]]}),
        json!({"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]}),
        json!({"checkmate_delivered":[["g","w"]],"stalemate_arisen":[["g"]]}),
        json!({"player_of":[["g","b"]],"player_resigned":[["b"]],"checked_player":[["b"]]}),
        json!({"player_of":[["g","b"]],"player_resigned":[["b"]]}),
        json!({"procedure_instance":[["g"]],"play_started":[["g"]],"stalemate_arisen":[["g"]],
               "attempted_transition":[["g","StartPlay"],["g","ConcludeByStalemate"]]}),
    ];
    cases.into_iter().enumerate().map(|(i, f)| json!({"case": format!("hand{i}"), "facts": f})).collect()
}

#[test]
fn every_fide_explanation_is_a_proof() {
    let n: u64 = std::env::var("CLIR_EXPLAIN_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(150);
    let doc = Document::parse(PACKAGE).expect("the package parses");
    let checker = Checker::new(&doc);
    let schema = clir::Package::schema(&fide_laws_chess::Package);
    let grants: Vec<String> = schema.relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect();
    let mut cases = hand_made();
    cases.extend(gen::games(n, 2023));
    for seed in 0..n {
        cases.extend(clir_reference::random::facts(seed, &doc));
    }
    let cat = Catalog::new(schema);
    let opts = Options { grants: grants.clone(), explain: true, ..Default::default() };
    let (mut checked, mut unsound, mut examples) = (0, 0, Vec::new());
    for chunk in cases.chunks(64) {
        let lines: Vec<(usize, String)> = chunk.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
        let (out, _) = rule_chunk(&fide_laws_chess::Package, &cat, &lines, &opts);
        for (case, line) in chunk.iter().zip(&out) {
            let ruling: Value = serde_json::from_str(line).expect("a ruling line is JSON");
            let v = checker.check(case, &grants, &ruling);
            checked += v.checked;
            unsound += v.unsound.len();
            for (lit, why) in v.unsound {
                if examples.len() < 8 {
                    examples.push(format!("case {}: {lit}: {why}", case["case"]));
                }
            }
        }
    }
    eprintln!("fide.laws.chess: {} cases, {checked} explanations checked, {unsound} unsound", cases.len());
    assert!(checked > 1000, "too few explanations checked: {checked}");
    assert_eq!(unsound, 0, "explanations that are not proofs:\n{}", examples.join("\n"));
}

/// The checker is not vacuous: an explanation changed in any part that makes it a proof is
/// rejected.
#[test]
fn the_checker_rejects_what_is_not_a_proof() {
    let doc = Document::parse(PACKAGE).expect("the package parses");
    let checker = Checker::new(&doc);
    let cat = Catalog::new(clir::Package::schema(&fide_laws_chess::Package));
    let case = json!({"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]}});
    let opts = Options { grants: vec![], explain: true, ..Default::default() };
    let (out, _) = rule_chunk(&fide_laws_chess::Package, &cat, &[(1, case.to_string())], &opts);
    let ruling: Value = serde_json::from_str(&out[0]).unwrap();
    assert!(checker.check(&case, &[], &ruling).unsound.is_empty());
    let key = "/explanations/~game_drawn(g)";
    type Mutation = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        ("no beater", Box::new(|e| e["overcame"][0].as_object_mut().unwrap().clear())),
        ("attack left out", Box::new(|e| e["overcame"] = json!([]))),
        ("another priority", Box::new(|e| e["overcame"][0]["priority"] = json!("urn:fide:laws:clir:chess#X"))),
        ("marked definite", Box::new(|e| e["definite"] = json!(true))),
        ("another rule", Box::new(|e| e["rule"] = json!("urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw"))),
        ("another strength", Box::new(|e| e["strength"] = json!("strict"))),
        ("a premise not given", Box::new(|e| e["premises"][0]["literal"] = json!("checkmate_delivered(g,b)"))),
        ("a premise left out", Box::new(|e| e["premises"] = json!([]))),
        ("not a fact", Box::new(|e| e["premises"][0]["fact"] = json!(null))),
    ];
    for (what, mutate) in mutations {
        let mut bad = ruling.clone();
        mutate(bad.pointer_mut(key).expect("the explanation"));
        assert!(!checker.check(&case, &[], &bad).unsound.is_empty(), "accepted with {what}: {bad}");
    }
    let mut bad = ruling.clone();
    bad["explanations"].as_object_mut().unwrap().remove("~game_drawn(g)");
    assert!(!checker.check(&case, &[], &bad).unsound.is_empty(), "accepted a missing explanation");
}
