//! The deterministic fide.laws.chess game generator, shared (`#[path]`) by
//! `examples/gen_fide_games.rs`, the benchmark and `tests/handwritten_agrees.rs`, plus a way to
//! put a generated case into a `clir::Batch` the way the JSONL path does (constants by name,
//! entities interned). `tests/handwritten_agrees.rs` checks that `lines(300, 2023)` is
//! `examples/fide/games.jsonl`.

#![allow(dead_code, clippy::manual_range_patterns)]

use clir::{Batch, Schema};
use serde_json::{json, Map, Value};

pub use clir_testkit::rng::Rng;

/// One game's facts (a docs/FORMAT.md "Case lines" object).
pub fn game(i: u64, rng: &mut Rng) -> Value {
    let g = format!("g{i}");
    let (w, b) = ("white".to_string(), "black".to_string());
    let mut f: Map<String, Value> = Map::new();
    let mut add = |rel: &str, t: Value| {
        f.entry(rel.to_string()).or_insert_with(|| json!([])).as_array_mut().unwrap().push(t);
    };
    add("player_of", json!([g, w]));
    add("player_of", json!([g, b]));
    add("procedure_instance", json!([g]));
    add("play_started", json!([g]));
    add("both_players_have_moved", json!([g]));
    add("attempted_transition", json!([g, "StartPlay"]));
    add("attempted_transition", json!([g, "PlayMove"]));
    add("checked_game", json!([g]));
    add("move_meets_articles_3_1_to_3_9", json!([g]));
    add("arbiter_of", json!([g, "arbiter"]));
    let mover = if rng.below(2) == 0 { &w } else { &b };
    let other = if mover == &w { &b } else { &w };
    add("player_has_the_move", json!([g, mover]));
    let quiet = rng.below(60) as i64;
    let occurrences = 1 + rng.below(2) as i64;
    match rng.below(10) {
        0 | 1 | 2 => {
            add("checkmate_delivered", json!([g, other]));
            add("attempted_transition", json!([g, "ConcludeByCheckmate"]));
            // Now and then the mate comes on the move that completes 75 quiet moves.
            let n = if rng.below(8) == 0 { 75 } else { quiet };
            add("moves_by_each_without_pawn_or_capture", json!([g, n]));
        }
        3 | 4 => {
            add("player_resigned", json!([mover]));
            add("checked_player", json!([mover]));
            add("attempted_transition", json!([g, "ConcludeByResignation"]));
            if rng.below(6) == 0 {
                add("king_cannot_be_checkmated", json!([mover]));
            }
            add("moves_by_each_without_pawn_or_capture", json!([g, quiet]));
        }
        5 => {
            add("draw_agreed", json!([g]));
            add("attempted_transition", json!([g, "ConcludeByAgreement"]));
            add("moves_by_each_without_pawn_or_capture", json!([g, quiet]));
        }
        6 => {
            add("stalemate_arisen", json!([g]));
            add("attempted_transition", json!([g, "ConcludeByStalemate"]));
        }
        7 => {
            add("dead_position_arisen", json!([g]));
            add("attempted_transition", json!([g, "ConcludeByDeadPosition"]));
        }
        8 => {
            // A claim: threefold or fifty moves, correct or not.
            add("draw_claimed", json!([mover]));
            add("attempted_transition", json!([g, "ConcludeByDrawnClaim"]));
            add("position_occurrence_count", json!([g, 2 + rng.below(2) as i64]));
            add("moves_by_each_without_pawn_or_capture", json!([g, 40 + rng.below(20) as i64]));
        }
        _ => {
            // Automatic draws: fivefold repetition or 75 moves.
            if rng.below(2) == 0 {
                add("position_occurrence_count", json!([g, 5]));
            } else {
                add("moves_by_each_without_pawn_or_capture", json!([g, 75 + rng.below(10) as i64]));
            }
        }
    }
    if occurrences > 1 {
        add("position_occurrence_count", json!([g, occurrences]));
    }
    // The final position's castling rights for the side to move.
    let (k, r, side) = (format!("{mover}_king"), format!("{mover}_rook_h"), format!("{mover}_kingside"));
    add("king_of", json!([mover, k]));
    add("rook_of", json!([mover, r]));
    add("castling_side_of", json!([g, mover, side, r]));
    add("checked_piece", json!([k]));
    add("checked_piece", json!([r]));
    add("checked_castling_side", json!([side]));
    match rng.below(4) {
        0 => add("piece_has_moved", json!([k])),
        1 => add("castling_path_attacked", json!([side])),
        _ => {}
    }
    json!({ "case": g, "facts": f })
}

/// Games `1..=count` from `seed`, as JSON values.
pub fn games(count: u64, seed: u64) -> impl Iterator<Item = Value> {
    let mut rng = Rng(seed);
    (1..=count).map(move |i| game(i, &mut rng))
}

/// Games `1..=count` from `seed`, as the example writes them (one JSON line each, no newline).
pub fn lines(count: u64, seed: u64) -> impl Iterator<Item = String> {
    games(count, seed).map(|v| v.to_string())
}

/// Adds a generated case (`{"case":..,"facts":{..}}`) to `batch` as `clir::jsonl` would:
/// relations by name, constants of a parameter's type by name, other strings interned, Integers
/// as they are. Panics on anything the generator does not make.
pub fn push_case(schema: &Schema, batch: &mut Batch, case: &Value) {
    let id = batch.add_case();
    let mut flat = Vec::with_capacity(4);
    for (key, tuples) in case["facts"].as_object().expect("facts") {
        let (neg, name) = match key.strip_prefix('~') {
            Some(n) => (true, n),
            None => (false, key.as_str()),
        };
        let rel = schema.relation(name).unwrap_or_else(|| panic!("unknown relation {name}"));
        let params = schema.relations[rel].params;
        for t in tuples.as_array().expect("tuples") {
            flat.clear();
            for (a, p) in t.as_array().expect("tuple").iter().zip(params) {
                if p.integer {
                    flat.push(a.as_i64().expect("Integer"));
                } else {
                    let s = a.as_str().expect("entity");
                    let constant = schema.constants.iter().position(|c| c.ty == p.ty && c.name == s);
                    flat.push(match constant {
                        Some(c) => c as i64,
                        None => batch.entity(s).0 as i64,
                    });
                }
            }
            batch.push(id, rel, neg, &flat);
        }
    }
}

/// Cases as batches of `per_batch` (the JSONL runner's default is 512).
pub fn batches(schema: &Schema, cases: &[Value], per_batch: usize) -> Vec<Batch> {
    cases
        .chunks(per_batch.max(1))
        .map(|part| {
            let mut b = Batch::new(schema);
            for c in part {
                push_case(schema, &mut b, c);
            }
            b
        })
        .collect()
}
