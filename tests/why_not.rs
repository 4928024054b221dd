//! Why not on fide.laws.chess: the literals SEMANTICS.md §5 leaves unconcluded, explained as a
//! reader of the FIDE Laws would explain them.

use clir::jsonl::{rule_chunk, Catalog, Options};
clir::include_clir!("fide.laws.chess");

use fide_laws_chess::Package;
use serde_json::Value;

/// The reasons of each literal `line` asks about, as `(rule without namespace, kind, detail)`.
fn why_not(line: &str) -> Value {
    let cat = Catalog::new(clir::Package::schema(&Package));
    let (out, errors) = rule_chunk(&Package, &cat, &[(1, line.to_string())], &Options::default());
    assert_eq!(errors, 0, "{}", out[0]);
    serde_json::from_str::<Value>(&out[0]).unwrap()["why_not"].clone()
}

fn reasons(w: &Value, literal: &str) -> Vec<String> {
    assert_eq!(w[literal]["concluded"], false, "{literal}: {}", w[literal]);
    w[literal]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let source = r["rule"]["id"].as_str().or(r["closure"]["id"].as_str()).unwrap_or("-");
            let detail =
                ["premise", "comparison", "by", "complement"].iter().find_map(|k| r[*k].as_str()).unwrap_or("");
            let short = |s: &str| s.rsplit('#').next().unwrap().to_string();
            format!("{} {} {}", short(source), r["kind"].as_str().unwrap(), short(detail)).trim_end().to_string()
        })
        .collect()
}

#[test]
fn resignation_without_checked_player_does_not_lose_for_want_of_the_mate_possibility() {
    let w = why_not(
        r#"{"case":"r","facts":{"player_of":[["g","b"]],"player_resigned":[["b"]]},"why_not":["game_lost_by(g,b)","~king_cannot_be_checkmated(b)","resignation_has_ended_the_game(g)"]}"#,
    );
    let lost = reasons(&w, "game_lost_by(g,b)");
    assert_eq!(lost[0], "ResignationLoses premise_not_concluded ~king_cannot_be_checkmated(b)");
    // The premise asked in the same line: the closure needs the mate possibility checked.
    assert_eq!(
        reasons(&w, "~king_cannot_be_checkmated(b)"),
        ["MateImpossibilityClosure premise_not_concluded checked_player(b)"]
    );
    assert_eq!(w["resignation_has_ended_the_game(g)"]["concluded"], true);
    assert_eq!(w["resignation_has_ended_the_game(g)"]["explanation"]["definite"], true);
}

#[test]
fn checkmate_on_the_80th_move_keeps_the_automatic_draw_from_concluding() {
    let w = why_not(
        r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",80]]},"why_not":["game_drawn(g)"]}"#,
    );
    let drawn = reasons(&w, "game_drawn(g)");
    assert!(drawn.contains(&"SeventyFiveAutomaticDraw attacked CheckmateTakesPrecedenceOverSeventyFive".to_string()));
    assert!(drawn.contains(&"StalemateDraws premise_not_concluded stalemate_arisen(g)".to_string()));
}

#[test]
fn stalemate_makes_the_draw_definite_against_the_mate() {
    let w = why_not(
        r#"{"case":"s","facts":{"checkmate_delivered":[["g","w"]],"stalemate_arisen":[["g"]]},"why_not":["~game_drawn(g)"]}"#,
    );
    assert_eq!(
        reasons(&w, "~game_drawn(g)"),
        ["CheckmateTakesPrecedenceOverSeventyFive attacked StalemateDraws", "- complement_definite game_drawn(g)"]
    );
}

#[test]
fn resignation_with_a_mate_impossible_does_not_lose() {
    let w = why_not(
        r#"{"case":"k","facts":{"player_of":[["g","b"]],"player_resigned":[["b"]],"checked_player":[["b"]],"king_cannot_be_checkmated":[["b"]]},"why_not":["game_lost_by(g,b)"]}"#,
    );
    assert_eq!(
        reasons(&w, "game_lost_by(g,b)")[0],
        "ResignationLoses premise_not_concluded ~king_cannot_be_checkmated(b)"
    );
}

#[test]
fn an_unchecked_move_is_not_legal_and_a_castling_through_attack_is_not_legal() {
    let w = why_not(r#"{"case":"i","facts":{"checked_game":[["g"]]},"why_not":["legal_move(g)"]}"#);
    assert_eq!(reasons(&w, "legal_move(g)"), ["MoveIsLegal premise_not_concluded move_meets_articles_3_1_to_3_9(g)"]);
    let w = why_not(
        r#"{"case":"c","facts":{"castling_side_of":[["g","w","k","r"]],"king_of":[["w","K"]],"rook_of":[["w","r"]],"player_has_the_move":[["g","w"]],"checked_piece":[["K"],["r"]],"checked_castling_side":[["k"]],"castling_path_attacked":[["k"]]},"why_not":["castling_legal(g,w,k)"]}"#,
    );
    assert_eq!(
        reasons(&w, "castling_legal(g,w,k)"),
        ["CastlingLegal premise_not_concluded ~castling_path_attacked(k)"]
    );
}

#[test]
fn a_drawn_claim_is_not_valid_when_the_draw_is_only_supported() {
    let w = why_not(
        r#"{"case":"p","facts":{"procedure_instance":[["g"]],"play_started":[["g"]],"attempted_transition":[["g","StartPlay"],["g","ConcludeByDrawnClaim"]],"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",80]]},"why_not":["valid_transition(g,ConcludeByDrawnClaim)","entered_state(g,Ended)"]}"#,
    );
    assert_eq!(
        reasons(&w, "valid_transition(g,ConcludeByDrawnClaim)"),
        ["GamePlay/ConcludeByDrawnClaim/valid premise_not_concluded game_drawn(g)"]
    );
    let ended = reasons(&w, "entered_state(g,Ended)");
    assert!(ended.contains(
        &"GamePlay/ConcludeByDrawnClaim/enters premise_not_supported valid_transition(g,ConcludeByDrawnClaim)"
            .to_string()
    ));
}

#[test]
fn the_typed_api_answers_as_the_lines_do() {
    let mut cases = fide_laws_chess::Cases::new();
    let mut case = cases.case();
    let (g, b) = (case.game("g"), case.player("b"));
    case.player_of(g, b).player_resigned(b);
    let id = case.id();
    let answer = cases.evaluate().case(id).why_not_game_lost_by(&(g, b));
    assert!(!answer.concluded);
    assert_eq!(
        answer.reasons[0].kind,
        clir::ReasonKind::PremiseNotConcluded { premise: "~king_cannot_be_checkmated(b)".into() }
    );
}
