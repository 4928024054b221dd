//! SEMANTICS.md §5: the worked rulings of fide.laws.chess 0.1.0, row by row.

use crate::evaluate;
use clir_codegen::ir::Document;
use serde_json::{json, Value};

const FIDE: &[u8] = include_bytes!("../../sources/fide.laws.chess-0.1.0.lawir.json");

fn doc() -> Document {
    Document::parse(FIDE).expect("the published package parses")
}

/// Rules one case with the given facts and no grants; panics on an error line.
fn rule(facts: Value) -> Value {
    let out = evaluate(&doc(), &json!({"case": "g1", "facts": facts}), &[]);
    assert!(out.get("error").is_none(), "unexpected error: {out}");
    out
}

/// Whether `rel` (with `~` for negatives) holds `tuple` in the `which` part of the ruling.
fn has(out: &Value, which: &str, rel: &str, tuple: Value) -> bool {
    out[which].get(rel).and_then(Value::as_array).is_some_and(|ts| ts.contains(&tuple))
}

fn concluded(out: &Value, rel: &str, tuple: Value) -> bool {
    has(out, "concluded", rel, tuple)
}

#[test]
fn row01_stalemate_draws_and_ends() {
    let out = rule(json!({"stalemate_arisen": [["g"]]}));
    assert!(concluded(&out, "game_drawn", json!(["g"])), "{out}");
    assert!(concluded(&out, "stalemate_has_ended_the_game", json!(["g"])), "{out}");
}

#[test]
fn row02_checkmate_over_seventy_five_moves() {
    let out = rule(json!({
        "checkmate_delivered": [["g", "w"]],
        "moves_by_each_without_pawn_or_capture": [["g", 80]],
    }));
    assert!(concluded(&out, "game_won_by", json!(["g", "w"])), "{out}");
    assert!(concluded(&out, "~game_drawn", json!(["g"])), "{out}");
    assert!(!concluded(&out, "game_drawn", json!(["g"])), "{out}");
    // Only defeasibly: no strict rule and no fact for either sign.
    assert!(!has(&out, "definite", "~game_drawn", json!(["g"])), "{out}");
}

#[test]
fn row03_seventy_five_moves_alone_draws() {
    let out = rule(json!({"moves_by_each_without_pawn_or_capture": [["g", 75]]}));
    assert!(concluded(&out, "game_drawn", json!(["g"])), "{out}");
    assert!(!has(&out, "definite", "game_drawn", json!(["g"])), "{out}");
}

#[test]
fn row03b_seventy_four_moves_do_not_draw() {
    let out = rule(json!({"moves_by_each_without_pawn_or_capture": [["g", 74]]}));
    assert_eq!(out["concluded"], json!({}), "{out}");
}

#[test]
fn row04_strict_stalemate_beats_defeasible_checkmate_precedence() {
    let out = rule(json!({"checkmate_delivered": [["g", "w"]], "stalemate_arisen": [["g"]]}));
    assert!(concluded(&out, "game_drawn", json!(["g"])), "{out}");
    assert!(concluded(&out, "game_won_by", json!(["g", "w"])), "{out}");
    assert!(!concluded(&out, "~game_drawn", json!(["g"])), "{out}");
    assert_eq!(out["contradictions"], json!([]), "{out}");
}

#[test]
fn row05_resignation_with_mate_possible_loses() {
    let out = rule(json!({
        "player_of": [["g", "b"]],
        "player_resigned": [["b"]],
        "checked_player": [["b"]],
    }));
    assert!(concluded(&out, "game_lost_by", json!(["g", "b"])), "{out}");
    assert!(concluded(&out, "resignation_has_ended_the_game", json!(["g"])), "{out}");
    assert!(!concluded(&out, "game_drawn", json!(["g"])), "{out}");
}

#[test]
fn row06_resignation_with_mate_impossible_draws() {
    let out = rule(json!({
        "player_of": [["g", "b"]],
        "player_resigned": [["b"]],
        "checked_player": [["b"]],
        "king_cannot_be_checkmated": [["b"]],
    }));
    assert!(concluded(&out, "game_drawn", json!(["g"])), "{out}");
    assert!(!concluded(&out, "game_lost_by", json!(["g", "b"])), "{out}");
}

#[test]
fn row07_resignation_with_mate_possibility_unknown() {
    let out = rule(json!({"player_of": [["g", "b"]], "player_resigned": [["b"]]}));
    assert!(concluded(&out, "resignation_has_ended_the_game", json!(["g"])), "{out}");
    assert!(!concluded(&out, "game_lost_by", json!(["g", "b"])), "{out}");
    assert!(!concluded(&out, "game_drawn", json!(["g"])), "{out}");
}

#[test]
fn row08_unrecorded_legality_is_illegal() {
    let out = rule(json!({"checked_game": [["g"]]}));
    assert!(concluded(&out, "illegal_move", json!(["g"])), "{out}");
    assert!(!concluded(&out, "legal_move", json!(["g"])), "{out}");
}

#[test]
fn row09_procedure_through_stalemate() {
    let out = rule(json!({
        "procedure_instance": [["g"]],
        "play_started": [["g"]],
        "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByStalemate"]],
        "stalemate_arisen": [["g"]],
    }));
    for state in ["NotStarted", "Playing", "Ended"] {
        assert!(concluded(&out, "entered_state", json!(["g", state])), "{state}: {out}");
    }
    assert!(concluded(&out, "valid_transition", json!(["g", "ConcludeByStalemate"])), "{out}");
}

#[test]
fn row10_drawn_claim_premise_supported_but_not_concluded() {
    let out = rule(json!({
        "procedure_instance": [["g"]],
        "play_started": [["g"]],
        "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByDrawnClaim"]],
        "checkmate_delivered": [["g", "w"]],
        "moves_by_each_without_pawn_or_capture": [["g", 80]],
    }));
    assert!(concluded(&out, "entered_state", json!(["g", "Playing"])), "{out}");
    assert!(concluded(&out, "game_won_by", json!(["g", "w"])), "{out}");
    assert!(concluded(&out, "~game_drawn", json!(["g"])), "{out}");
    assert!(!concluded(&out, "valid_transition", json!(["g", "ConcludeByDrawnClaim"])), "{out}");
    assert!(!concluded(&out, "entered_state", json!(["g", "Ended"])), "{out}");
}

fn castling_facts() -> Value {
    json!({
        "castling_side_of": [["g", "w", "k", "r"]],
        "king_of": [["w", "K"]],
        "rook_of": [["w", "r"]],
        "player_has_the_move": [["g", "w"]],
        "checked_piece": [["K"], ["r"]],
        "checked_castling_side": [["k"]],
    })
}

#[test]
fn row11_castling_legal() {
    let out = rule(castling_facts());
    assert!(concluded(&out, "castling_legal", json!(["g", "w", "k"])), "{out}");
}

#[test]
fn row12_castling_path_attacked() {
    let mut facts = castling_facts();
    facts["castling_path_attacked"] = json!([["k"]]);
    let out = rule(facts);
    assert!(!concluded(&out, "castling_legal", json!(["g", "w", "k"])), "{out}");
}

#[test]
fn row13_judgment_without_grant_is_rejected() {
    let case = json!({"case": "g1", "facts": {"piece_touched_intentionally": [["w", "n"]]}});
    let out = evaluate(&doc(), &case, &[]);
    let err = out["error"].as_str().unwrap_or_else(|| panic!("expected an error: {out}"));
    assert!(err.contains("piece_touched_intentionally") && err.contains("judgment:FIDEArbiter"), "{err}");
    assert_eq!(out["case"], json!("g1"));
    // Its negative needs the grant too.
    let case = json!({"case": "g1", "facts": {"~piece_touched_intentionally": [["w", "n"]]}});
    assert!(evaluate(&doc(), &case, &[]).get("error").is_some());
}

#[test]
fn row13b_judgment_with_grant_is_accepted() {
    let case = json!({"case": "g1", "facts": {
        "piece_touched_intentionally": [["w", "n"]],
        "own_piece_of": [["w", "n"]],
        "piece_can_be_moved": [["n"]],
        "player_has_the_move": [["g", "w"]],
    }});
    let out = evaluate(&doc(), &case, &["judgment:FIDEArbiter".to_string()]);
    assert!(concluded(&out, "must_move_first_touched_piece", json!(["w", "n"])), "{out}");
}

#[test]
fn contract_example_ruling_is_reproduced_exactly() {
    let case = json!({"case":"g1","facts":{"player_of":[["g1","w"],["g1","b"]],"player_resigned":[["b"]],"~king_cannot_be_checkmated":[["b"]]}});
    let out = evaluate(&doc(), &case, &[]);
    let expected = json!({"case":"g1","concluded":{"game_lost_by":[["g1","b"]],"resignation_has_ended_the_game":[["g1"]]},"definite":{"game_lost_by":[["g1","b"]],"resignation_has_ended_the_game":[["g1"]]},"contradictions":[]});
    assert_eq!(out, expected);
}

#[test]
fn rejected_inputs() {
    let d = doc();
    let err = |case: Value| -> String {
        let out = evaluate(&d, &case, &[]);
        out["error"].as_str().unwrap_or_else(|| panic!("expected an error: {out}")).to_string()
    };
    let e = err(json!({"case": "g2", "facts": {"player_of": [["g1", "w", "x"]]}}));
    assert_eq!(e, "relation `player_of` takes 2 arguments (game: Game, who: Player), got 3");
    assert!(err(json!({"case": "g", "facts": {"no_such": [["g"]]}})).contains("no_such"));
    assert!(err(json!({"case": "g", "facts": {"~no_such": [["g"]]}})).contains("no_such"));
    assert!(err(json!({"case": "g", "facts": {"game_drawn": [["g"]]}})).contains("institutional"));
    assert!(err(json!({"case": "g", "facts": {"~game_drawn": [["g"]]}})).contains("institutional"));
    assert!(err(json!({"case": "g", "facts": {"moves_by_each_without_pawn_or_capture": [["g", "80"]]}}))
        .contains("Integer"));
    assert!(
        err(json!({"case": "g", "facts": {"moves_by_each_without_pawn_or_capture": [["g", 1.5]]}})).contains("Integer")
    );
    assert!(err(json!({"case": "g", "facts": {"player_of": [["g", 3]]}})).contains("Player"));
    assert!(err(json!({"case": "g", "facts": {}, "extra": 1})).contains("extra"));
    assert!(err(json!({"case": "g"})).contains("facts"));
    let out = evaluate(&d, &json!({"facts": {}}), &[]);
    assert_eq!(out["case"], Value::Null);
    assert!(out["error"].is_string());
    let out = evaluate(&d, &json!([1, 2]), &[]);
    assert_eq!(out["case"], Value::Null);
}

#[test]
fn contradictions_of_any_relation_are_listed_sorted() {
    let out = rule(json!({
        "player_of": [["g", "w"], ["g", "b"]],
        "~player_of": [["g", "w"], ["g", "b"]],
        "completed_illegal_move_count": [["b", 10], ["b", 9]],
        "~completed_illegal_move_count": [["b", 9], ["b", 10]],
    }));
    assert_eq!(
        out["contradictions"],
        json!([
            "completed_illegal_move_count(b,10)",
            "completed_illegal_move_count(b,9)",
            "player_of(g,b)",
            "player_of(g,w)"
        ])
    );
    // Both sides are +D and so concluded: a contradiction is not a panic, and rules still fire.
    assert!(concluded(&out, "second_illegal_move_has_ended_the_game", json!(["g"])), "{out}");
}

#[test]
fn output_tuples_are_sorted_integers_first() {
    let out = rule(json!({
        "position_occurrence_count": [["g2", 7], ["g10", 3]],
        "draw_claimed": [["b"], ["a"]],
        "player_has_the_move": [["g2", "b"], ["g10", "a"], ["g2", "a"]],
    }));
    assert_eq!(out["concluded"]["threefold_claim_correct"], json!([["g10", "a"], ["g2", "a"], ["g2", "b"]]));
    assert_eq!(out["concluded"]["game_drawn"], json!([["g10"], ["g2"]]));
    let mut vals =
        vec![crate::Val::Str("a".into()), crate::Val::Int(10), crate::Val::Int(-3), crate::Val::Str("B".into())];
    vals.sort();
    assert_eq!(
        vals,
        vec![crate::Val::Int(-3), crate::Val::Int(10), crate::Val::Str("B".into()), crate::Val::Str("a".into())]
    );
}

#[test]
fn closure_needs_the_domain_tuple_and_no_support() {
    // The domain tuple is concluded and the predicate is unsupported: the negative is +D.
    let out = rule(json!({"checked_game": [["g"]], "checked_piece": [["p"]], "piece_has_moved": [["q"]]}));
    assert!(has(&out, "definite", "illegal_move", json!(["g"])), "{out}");
    // An input fact for the closed predicate suppresses the closure negative.
    let out = rule(json!({"checked_game": [["g"]], "move_meets_articles_3_1_to_3_9": [["g"]]}));
    assert!(concluded(&out, "legal_move", json!(["g"])), "{out}");
    assert!(!concluded(&out, "illegal_move", json!(["g"])), "{out}");
}
