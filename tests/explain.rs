//! `--explain`: proofs of minimal height (docs/DECISIONS.md 31), down to input facts and closure
//! policies, with the articles cited and the attacks overcome.

use clir::jsonl::{rule_chunk, Catalog, Options};
clir::include_clir!("fide.laws.chess");

use fide_laws_chess::Package;
use serde_json::Value;

fn explain(case: &str) -> Value {
    let cat = Catalog::new(clir::Package::schema(&Package));
    let opts = Options { grants: vec![], explain: true, ..Default::default() };
    let (out, errors) = rule_chunk(&Package, &cat, &[(1, case.to_string())], &opts);
    assert_eq!(errors, 0, "{}", out[0]);
    serde_json::from_str(&out[0]).unwrap()
}

#[test]
fn checkmate_on_the_75th_move_overcomes_the_automatic_draw_by_priority() {
    let r = explain(
        r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]}}"#,
    );
    let e = &r["explanations"]["~game_drawn(g)"];
    assert_eq!(e["rule"], "urn:fide:laws:clir:chess#CheckmateTakesPrecedenceOverSeventyFive");
    assert_eq!(e["definite"], false);
    assert_eq!(e["articles"][0]["locator"], "article/9");
    assert!(e["articles"][0]["citation"].as_str().unwrap().starts_with("9.6.2 "));
    let attack = &e["overcame"][0];
    assert_eq!(attack["attack"], "urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw");
    assert_eq!(attack["beaten_by"], "urn:fide:laws:clir:chess#CheckmateTakesPrecedenceOverSeventyFive");
    assert_eq!(attack["priority"], "urn:fide:laws:clir:chess#CheckmateOverSeventyFiveMoves");
    assert_eq!(e["premises"][0]["literal"], "checkmate_delivered(g,w)");
    assert_eq!(e["premises"][0]["fact"], "input");
    // Every concluded literal is explained, and nothing else is.
    let concluded: usize = r["concluded"].as_object().unwrap().values().map(|v| v.as_array().unwrap().len()).sum();
    assert_eq!(r["explanations"].as_object().unwrap().len(), concluded);
}

#[test]
fn a_closure_negative_is_explained_by_its_policy_and_snapshot() {
    let r =
        explain(r#"{"case":"r","facts":{"player_of":[["g","b"]],"player_resigned":[["b"]],"checked_player":[["b"]]}}"#);
    let e = &r["explanations"]["game_lost_by(g,b)"];
    assert_eq!(e["rule"], "urn:fide:laws:clir:chess#ResignationLoses");
    let closure =
        e["premises"].as_array().unwrap().iter().find(|p| p["literal"] == "~king_cannot_be_checkmated(b)").unwrap();
    assert!(closure["closure"].as_str().unwrap().starts_with("urn:fide:laws:clir:chess#"));
    assert!(closure["snapshot"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(closure["because"], "king_cannot_be_checkmated(b) is not supported");
    assert_eq!(closure["premises"][0]["literal"], "checked_player(b)");
}

#[test]
fn recursive_derivations_reach_input_facts_by_the_shortest_route() {
    let r = explain(
        r#"{"case":"s","facts":{"procedure_instance":[["g"]],"play_started":[["g"]],"attempted_transition":[["g","StartPlay"],["g","ConcludeByStalemate"]],"stalemate_arisen":[["g"]]}}"#,
    );
    let e = &r["explanations"]["entered_state(g,Ended)"];
    assert_eq!(e["rule"], "urn:fide:laws:clir:chess#GamePlay/ConcludeByStalemate/enters");
    // entered_state(g,Ended) <- valid_transition(g,ConcludeByStalemate) <- entered_state(g,Playing) <- ...
    fn height(v: &Value) -> usize {
        v["premises"].as_array().map_or(0, |ps| 1 + ps.iter().map(height).max().unwrap_or(0))
    }
    assert_eq!(height(e), 5, "{e:#}");
    fn leaves_are_facts(v: &Value) -> bool {
        match v["premises"].as_array() {
            Some(ps) => ps.iter().all(leaves_are_facts),
            None => v["fact"] == "input",
        }
    }
    assert!(leaves_are_facts(e));
}

#[test]
fn a_definite_literal_is_explained_by_its_definite_derivation_not_a_shorter_attacked_one() {
    // issue 14: the correct fifty-move claim draws the game for certain (two strict rules); the
    // seventy-five-move draw is one step shorter but defeasible and attacked by the checkmate.
    let r = explain(
        r#"{"case":"i","facts":{"draw_claimed":[["bob"]],"player_has_the_move":[["g","bob"]],"moves_by_each_without_pawn_or_capture":[["g",58],["g",84]],"checkmate_delivered":[["g","alice"]]}}"#,
    );
    let e = &r["explanations"]["game_drawn(g)"];
    assert_eq!(e["rule"], "urn:fide:laws:clir:chess#FiftyMoveClaimDraws", "{e:#}");
    assert_eq!(e["definite"], true);
    assert!(e.get("overcame").is_none(), "{e:#}");
    let claim = &e["premises"][0];
    assert_eq!(claim["literal"], "fifty_move_claim_correct(g,bob)");
    assert_eq!(claim["rule"], "urn:fide:laws:clir:chess#FiftyMoveClaimCorrect");
    assert_eq!(claim["definite"], true);
}
