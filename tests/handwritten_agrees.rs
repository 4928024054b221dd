//! The baselines of `benches/rulings.rs` rule exactly as the compiled fide.laws.chess does:
//! the hand-written evaluator (`benches/handwritten`) and the ascent program (`benches/ascent`),
//! on 10^4 generated games (`benches/gen.rs`, the generator of `examples/gen_fide_games.rs`)
//! and on hand-made cases for what the generator never makes (the SEMANTICS §5 rows, explicit
//! negatives, contradictions, judgments under the grant, a drawn claim concluded but not
//! definite). In memory, the `clir::Output` of every batch must be equal slot for slot; through
//! JSON Lines, the ruling lines byte for byte.

#[path = "../benches/ascent/mod.rs"]
mod ascent_fide;
#[path = "../benches/gen.rs"]
mod gen;
#[path = "../benches/handwritten/mod.rs"]
mod handwritten;

clir::include_clir!("fide.laws.chess");

use clir::runner::{rule_stream, RunOptions};
use clir::{Batch, Output};
use fide_laws_chess::{self as fide, SCHEMA};
use serde_json::{json, Value};

const GAMES: u64 = 10_000;
const SEED: u64 = 2023;
const ARBITER: &str = "judgment:FIDEArbiter";

/// Cases the generator does not make, each a whole case object.
fn hand_made() -> Vec<Value> {
    let g = |facts: Value| facts;
    let cases = vec![
        // SEMANTICS §5.
        g(json!({"stalemate_arisen": [["g"]]})),
        g(json!({"checkmate_delivered": [["g", "w"]], "moves_by_each_without_pawn_or_capture": [["g", 80]]})),
        g(json!({"moves_by_each_without_pawn_or_capture": [["g", 75]]})),
        g(json!({"checkmate_delivered": [["g", "w"]], "stalemate_arisen": [["g"]]})),
        g(json!({"player_of": [["g", "b"]], "player_resigned": [["b"]], "checked_player": [["b"]]})),
        g(
            json!({"player_of": [["g", "b"]], "player_resigned": [["b"]], "checked_player": [["b"]], "king_cannot_be_checkmated": [["b"]]}),
        ),
        g(json!({"player_of": [["g", "b"]], "player_resigned": [["b"]]})),
        g(json!({"checked_game": [["g"]]})),
        g(json!({"procedure_instance": [["g"]], "play_started": [["g"]],
                 "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByStalemate"]], "stalemate_arisen": [["g"]]})),
        g(json!({"procedure_instance": [["g"]], "play_started": [["g"]],
                 "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByDrawnClaim"]],
                 "checkmate_delivered": [["g", "w"]], "moves_by_each_without_pawn_or_capture": [["g", 80]]})),
        g(json!({"castling_side_of": [["g", "w", "k", "r"]], "king_of": [["w", "K"]], "rook_of": [["w", "r"]],
                 "player_has_the_move": [["g", "w"]], "checked_piece": [["K"], ["r"]], "checked_castling_side": [["k"]]})),
        g(json!({"castling_side_of": [["g", "w", "k", "r"]], "king_of": [["w", "K"]], "rook_of": [["w", "r"]],
                 "player_has_the_move": [["g", "w"]], "checked_piece": [["K"], ["r"]], "checked_castling_side": [["k"]],
                 "castling_path_attacked": [["k"]]})),
        // A drawn claim over the 75-move draw: concluded, but not definite.
        g(json!({"procedure_instance": [["g"]], "play_started": [["g"]], "move_meets_articles_3_1_to_3_9": [["g"]],
                 "attempted_transition": [["g", "StartPlay"], ["g", "PlayMove"], ["g", "ConcludeByDrawnClaim"]],
                 "moves_by_each_without_pawn_or_capture": [["g", 76]]})),
        // Explicit negatives instead of closures, and contradictions among inputs.
        g(json!({"castling_side_of": [["g", "w", "k", "r"]], "king_of": [["w", "K"]], "rook_of": [["w", "r"]],
                 "player_has_the_move": [["g", "w"]], "~piece_has_moved": [["K"], ["r"]], "~castling_path_blocked": [["k"]],
                 "~castling_path_attacked": [["k"]], "piece_has_moved": [["K"]]})),
        g(json!({"player_of": [["g", "b"], ["g", "w"]], "~player_of": [["g", "w"]], "player_resigned": [["b"]],
                 "~king_cannot_be_checkmated": [["b"]], "king_cannot_be_checkmated": [["b"]],
                 "move_meets_articles_3_1_to_3_9": [["g"]], "~move_meets_articles_3_1_to_3_9": [["g"]], "checked_game": [["g"]],
                 "completed_illegal_move_count": [["w", 2]], "~completed_illegal_move_count": [["w", 2], ["w", 3]]})),
        // Several games and repeated facts in one case; claims; en passant; two games share a player.
        g(json!({"player_of": [["g1", "a"], ["g2", "a"], ["g2", "a"]], "completed_illegal_move_count": [["a", 3]],
                 "king_cannot_be_checkmated": [["a"]], "player_has_the_move": [["g1", "a"], ["g2", "b"]],
                 "draw_claimed": [["a"], ["b"]], "position_occurrence_count": [["g1", 3], ["g2", 4], ["g2", 5]],
                 "moves_by_each_without_pawn_or_capture": [["g1", 50], ["g2", 49]],
                 "en_passant_right_open": [["g1"]], "capturing_pawn_on_adjacent_file": [["g1", "p"], ["g2", "q"]],
                 "arbiter_of": [["g1", "x"], ["g2", "x"]], "play_started": [["g2"]]})),
    ];
    cases.into_iter().enumerate().map(|(i, facts)| json!({"case": format!("h{i}"), "facts": facts})).collect()
}

/// Cases that need the arbiter's grant.
fn judgments() -> Vec<Value> {
    vec![json!({"case": "j1", "facts": {
        "own_piece_of": [["w", "n"], ["w", "b"]], "piece_touched_intentionally": [["w", "n"], ["w", "b"]],
        "piece_can_be_moved": [["n"]], "player_has_the_move": [["g", "w"]],
        "case_not_precisely_regulated": [["s"]], "~case_not_precisely_regulated": [["s"]]}})]
}

/// Asserts two outputs of the same batch are equal, naming the first slot and case that differ.
#[track_caller]
fn assert_same(what: &str, batch: &Batch, compiled: &Output, other: &Output) {
    let name = |s: usize| format!("{}{}", if s % 2 == 1 { "~" } else { "" }, SCHEMA.relations[s / 2].name);
    for (layer, a, b) in
        [("concluded", &compiled.concluded, &other.concluded), ("definite", &compiled.definite, &other.definite)]
    {
        assert_eq!(a.len(), b.len(), "{what}: number of {layer} slots");
        for s in 0..a.len() {
            assert_eq!(a[s], b[s], "{what}: {layer} {} differs (batch of {} cases)", name(s), batch.cases);
        }
    }
    assert_eq!(compiled.contradictions, other.contradictions, "{what}: contradictions differ");
}

fn agree_in_memory(cases: &[Value]) {
    for batch in gen::batches(&SCHEMA, cases, 512) {
        let compiled = fide::evaluate(&batch);
        assert_same("handwritten", &batch, &compiled, &handwritten::evaluate(&batch));
        assert_same("ascent", &batch, &compiled, &ascent_fide::evaluate(&batch));
    }
}

fn agree_jsonl(cases: &[Value], grant: bool) -> Vec<String> {
    let input: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let mut compiled = Vec::new();
    let mut opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    if grant {
        opts.options.grants.push(ARBITER.to_string());
    }
    let summary = rule_stream(&fide::Package, input.as_bytes(), &mut compiled, &opts).unwrap();
    let mut hand = Vec::new();
    let (lines, errors) = handwritten::rule_stream(input.as_bytes(), &mut hand, 2, grant).unwrap();
    assert_eq!((summary.lines, summary.errors), (lines, errors), "lines and error lines");
    let (compiled, hand) = (String::from_utf8(compiled).unwrap(), String::from_utf8(hand).unwrap());
    assert_eq!(compiled.lines().count(), cases.len());
    for (i, (c, h)) in compiled.lines().zip(hand.lines()).enumerate() {
        assert_eq!(c, h, "ruling line {} differs", i + 1);
    }
    assert_eq!(compiled, hand);
    compiled.lines().map(str::to_string).collect()
}

#[test]
fn the_generator_is_the_examples() {
    let sample = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let ours: Vec<String> = gen::lines(300, 2023).collect();
    assert_eq!(sample.lines().collect::<Vec<_>>(), ours);
}

#[test]
fn generated_games_agree_in_memory() {
    let cases: Vec<Value> = gen::games(GAMES, SEED).collect();
    agree_in_memory(&cases);
}

#[test]
fn generated_games_agree_through_json_lines() {
    let cases: Vec<Value> = gen::games(GAMES, SEED).collect();
    let lines = agree_jsonl(&cases, false);
    // The agreement is not vacuous: the generated games reach the defeasible parts.
    let count = |pred: &dyn Fn(&Value) -> bool| {
        lines.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|v| pred(v)).count()
    };
    let not_drawn = count(&|v| v["concluded"].get("~game_drawn").is_some());
    let drawn_not_definite =
        count(&|v| v["concluded"].get("game_drawn").is_some() && v["definite"].get("game_drawn").is_none());
    let ended =
        count(&|v| v["concluded"]["entered_state"].as_array().is_some_and(|a| a.iter().any(|t| t[1] == "Ended")));
    let castling = count(&|v| v["concluded"].get("castling_legal").is_some());
    let lost = count(&|v| v["concluded"].get("game_lost_by").is_some());
    assert!(
        not_drawn > 100 && drawn_not_definite > 100 && ended > 1000 && castling > 1000 && lost > 100,
        "{not_drawn} {drawn_not_definite} {ended} {castling} {lost}"
    );
}

#[test]
fn hand_made_cases_agree() {
    let cases = hand_made();
    agree_in_memory(&cases);
    let lines = agree_jsonl(&cases, false);
    // Spot checks of what they are there for.
    let v: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(v[1]["concluded"]["~game_drawn"], json!([["g"]]));
    assert_eq!(v[12]["concluded"]["entered_state"], json!([["g", "Ended"], ["g", "NotStarted"], ["g", "Playing"]]));
    assert_eq!(v[12]["definite"]["entered_state"], json!([["g", "NotStarted"], ["g", "Playing"]]));
    assert_eq!(
        v[14]["contradictions"],
        json!([
            "completed_illegal_move_count(w,2)",
            "king_cannot_be_checkmated(b)",
            "move_meets_articles_3_1_to_3_9(g)",
            "player_of(g,w)"
        ])
    );
}

#[test]
fn judgments_agree_under_the_grant_and_are_refused_without() {
    let cases = judgments();
    agree_in_memory(&cases);
    let granted = agree_jsonl(&cases, true);
    assert!(granted[0].contains("must_move_first_touched_piece"), "{}", granted[0]);
    let mut out = String::new();
    assert!(handwritten::rule_line(&cases[0].to_string(), 1, false, &mut out), "without the grant: an error line");
    assert!(out.starts_with("{\"case\":\"j1\",\"error\":\"line 1: relation `"), "{out}");
}

#[test]
fn batches_with_rows_out_of_case_order() {
    // The hand-written evaluator takes rows per case in order; a batch whose rows are not
    // (built by hand) is sorted first.
    let cases: Vec<Value> = gen::games(50, 7).collect();
    let mut batch = gen::batches(&SCHEMA, &cases, 50).remove(0);
    // Reverse the rows (not the values) of every relation.
    for (sl, rows) in batch.facts.iter_mut().enumerate() {
        let stride = SCHEMA.relations[sl / 2].params.len() + 1;
        let mut chunks: Vec<Vec<i64>> = rows.chunks_exact(stride).map(<[i64]>::to_vec).collect();
        chunks.reverse();
        *rows = chunks.concat();
    }
    let compiled = fide::evaluate(&batch);
    assert_same("handwritten", &batch, &compiled, &handwritten::evaluate(&batch));
    assert_same("ascent", &batch, &compiled, &ascent_fide::evaluate(&batch));
}
